// Per-frame signals for coaching, on a half-size gray copy: sharpness (variance of
// the Laplacian), the mean structure tensor (products of Sobel gradients), FAST corner count and
// spread, and the view's shift since the previous frame (phase correlation of 128x96
// thumbnails); and, apart, on every fourth pixel of the colour frame in linear light, the scene's
// mean luminance and a histogram of its pixels' chromaticity, from which the light's colour is found. All
// buffers live in the meter and are reused.
#include "barrier.hpp"

#include <opencv2/features2d.hpp>
#include <opencv2/imgproc.hpp>

#include <algorithm>
#include <array>
#include <cmath>
#include <vector>

struct cs_frame_meter {
    cv::Mat gray, half, laplacian, gradient_x, gradient_y, small, thumbnail, previous, window;
    std::vector<cv::KeyPoint> corners;
    // The last colour frame's usable samples, (log R/G, log B/G) pairs ordered by histogram bin
    // (row-major), bin k's from pair chroma_bin_start[k] on; chroma_bins the bin of each as read.
    std::vector<float> chroma_samples, chroma_unsorted, chroma_near;
    std::vector<int32_t> chroma_bins, chroma_bin_start, chroma_fill;
    bool has_previous = false;
};

namespace {
constexpr int thumbnail_width = 128, thumbnail_height = 96, grid = 4, per_cell = 3;

double laplacian_variance(const cv::Mat &laplacian) {
    if (laplacian.empty()) return 0;
    cv::Scalar mean, deviation;
    cv::meanStdDev(laplacian, mean, deviation);
    return deviation[0] * deviation[0];
}

// sRGB's transfer function undone: code value -> linear light, 0-1; and its logarithm.
struct LinearLight {
    std::array<float, 256> value, log;
};

const LinearLight &linear_light() {
    static const LinearLight table = [] {
        LinearLight t{};
        for (int code = 0; code < 256; ++code) {
            const double c = code / 255.0;
            t.value[code] = float(c <= 0.04045 ? c / 12.92 : std::pow((c + 0.055) / 1.055, 2.4));
            t.log[code] = float(std::log(std::max(double(t.value[code]), 1e-4)));
        }
        return t;
    }();
    return table;
}

// Pixels that say something about the light's colour: none of their channels clipped, and not
// lost in the dark, where noise and the sensor's black level decide the hue.
constexpr int clipped_code = CS_CLIPPED_CODE;
constexpr float darkest_luminance = 0.01f;

// Rec. 709 luminance of a BGR pixel, linear light.
float luminance_of(const LinearLight &light, const uint8_t *bgr) {
    return 0.2126f * light.value[bgr[2]] + 0.7152f * light.value[bgr[1]] + 0.0722f * light.value[bgr[0]];
}

// std::floor's value without its call (this build's baseline x86-64 has no rounding instruction).
int floor_of(float x) {
    const int truncated = int(x);
    return truncated - (x < float(truncated) ? 1 : 0);
}

// Every fourth pixel of every fourth row: as many samples as a quarter-size copy, without
// the copy (an area resize of a 640x480 colour frame cost more than all the rest).
constexpr int sample_step = 4;

void measure_light(cs_frame_meter &meter, const cv::Mat &frame, int32_t *chroma, cs_light_signals *out) {
    const LinearLight &light = linear_light();
    const int bins = CS_CHROMA_BINS, channels = frame.channels();
    std::fill(chroma, chroma + bins * bins, 0);
    const size_t most = size_t((frame.rows + sample_step - 1) / sample_step) * ((frame.cols + sample_step - 1) / sample_step);
    std::vector<float> &unsorted = meter.chroma_unsorted;
    std::vector<int32_t> &sample_bins = meter.chroma_bins;
    unsorted.resize(2 * most);
    sample_bins.resize(most);
    size_t usable = 0;
    double luminance_sum = 0;
    int32_t samples = 0;
    for (int y = sample_step / 2; y < frame.rows; y += sample_step) {
        const uint8_t *row = frame.ptr<uint8_t>(y);
        for (int x = sample_step / 2; x < frame.cols; x += sample_step, ++samples) {
            if (channels == 1) {
                luminance_sum += light.value[row[x]];
                continue;
            }
            const uint8_t *p = row + 3 * x;  // BGR
            const float luminance = luminance_of(light, p);
            luminance_sum += luminance;
            if (std::max({p[0], p[1], p[2]}) >= clipped_code || luminance < darkest_luminance) continue;
            const float log_rg = light.log[p[2]] - light.log[p[1]], log_bg = light.log[p[0]] - light.log[p[1]];
            const int u = floor_of(log_rg / CS_CHROMA_STEP) + bins / 2;
            const int v = floor_of(log_bg / CS_CHROMA_STEP) + bins / 2;
            if (u < 0 || u >= bins || v < 0 || v >= bins) continue;
            ++chroma[v * bins + u];
            unsorted[2 * usable] = log_rg, unsorted[2 * usable + 1] = log_bg;
            sample_bins[usable++] = v * bins + u;
        }
    }
    // By bin (a counting sort on the histogram's counts), so that a mean shift reads only the
    // bins within its reach.
    std::vector<int32_t> &start = meter.chroma_bin_start;
    start.assign(size_t(bins * bins + 1), 0);
    for (int k = 0; k < bins * bins; ++k) start[k + 1] = start[k] + chroma[k];
    std::vector<float> &sorted = meter.chroma_samples;
    sorted.resize(2 * usable);
    std::vector<int32_t> &next = meter.chroma_fill;
    next.assign(start.begin(), start.end() - 1);
    for (size_t k = 0; k < usable; ++k) {
        const int32_t at = next[sample_bins[k]]++;
        sorted[2 * at] = unsorted[2 * k], sorted[2 * at + 1] = unsorted[2 * k + 1];
    }
    out->pixels = samples;
    out->has_chroma = channels == 3 ? 1 : 0;
    out->mean_luminance = samples > 0 ? luminance_sum / samples : 0;
}
} // namespace

extern "C" {

cs_status cs_frame_meter_create(cs_frame_meter **out, cs_error *error) {
    return cs::guard(error, [&] {
        cs::require(out != nullptr, "cs_frame_meter_create: out is NULL");
        *out = new cs_frame_meter();
    });
}

void cs_frame_meter_destroy(cs_frame_meter *meter) { delete meter; }

cs_status cs_frame_meter_measure(cs_frame_meter *meter, const cs_image *image, cs_frame_signals *out, cs_error *error) {
    return cs::guard(error, [&] {
        cs::require(meter != nullptr && out != nullptr, "cs_frame_meter_measure: NULL argument");
        cs::require(image != nullptr && !image->mat.empty(), "cs_frame_meter_measure: image is NULL or empty");
        const cv::Mat &frame = image->mat;
        const cv::Mat *gray = &frame;
        if (frame.channels() != 1) {
            cv::cvtColor(frame, meter->gray, cv::COLOR_BGR2GRAY);
            gray = &meter->gray;
        }
        const int w = std::max(1, gray->cols / 2), h = std::max(1, gray->rows / 2);
        cv::resize(*gray, meter->half, cv::Size(w, h), 0, 0, cv::INTER_AREA);
        cv::Laplacian(meter->half, meter->laplacian, CV_16S);
        out->sharpness = laplacian_variance(meter->laplacian);
        cv::Sobel(meter->half, meter->gradient_x, CV_32F, 1, 0);
        cv::Sobel(meter->half, meter->gradient_y, CV_32F, 0, 1);
        const double pixels = double(w) * h;
        out->gradient_xx = meter->gradient_x.dot(meter->gradient_x) / pixels;
        out->gradient_yy = meter->gradient_y.dot(meter->gradient_y) / pixels;
        out->gradient_xy = meter->gradient_x.dot(meter->gradient_y) / pixels;

        cv::FAST(meter->half, meter->corners, 20, true);
        int cells[grid * grid] = {};
        for (const cv::KeyPoint &corner : meter->corners) {
            const int cx = std::min(grid - 1, int(corner.pt.x * grid / w));
            const int cy = std::min(grid - 1, int(corner.pt.y * grid / h));
            ++cells[cy * grid + cx];
        }
        out->corner_count = int32_t(meter->corners.size());
        out->corner_spread = double(std::count_if(cells, cells + grid * grid, [](int n) { return n >= per_cell; })) /
                             (grid * grid);

        cv::resize(meter->half, meter->small, cv::Size(thumbnail_width, thumbnail_height), 0, 0, cv::INTER_AREA);
        meter->small.convertTo(meter->thumbnail, CV_32F);
        if (meter->window.empty()) cv::createHanningWindow(meter->window, meter->thumbnail.size(), CV_32F);
        out->has_motion = meter->has_previous ? 1 : 0;
        out->motion_x = out->motion_y = out->motion_response = 0;
        if (meter->has_previous) {
            double response = 0;
            const cv::Point2d shift = cv::phaseCorrelate(meter->previous, meter->thumbnail, meter->window, &response);
            out->motion_x = shift.x * frame.cols / thumbnail_width;
            out->motion_y = shift.y * frame.rows / thumbnail_height;
            out->motion_response = response;
        }
        std::swap(meter->previous, meter->thumbnail);
        meter->has_previous = true;
    });
}

cs_status cs_frame_meter_measure_light(cs_frame_meter *meter, const cs_image *image, int32_t *chroma,
                                       cs_light_signals *out, cs_error *error) {
    return cs::guard(error, [&] {
        cs::require(meter != nullptr && chroma != nullptr && out != nullptr, "cs_frame_meter_measure_light: NULL argument");
        cs::require(image != nullptr && !image->mat.empty() && image->mat.depth() == CV_8U &&
                        (image->mat.channels() == 1 || image->mat.channels() == 3),
                    "cs_frame_meter_measure_light: image is NULL, empty, or not 8-bit gray or BGR");
        measure_light(*meter, image->mat, chroma, out);
    });
}

cs_status cs_frame_meter_chroma_mode(cs_frame_meter *meter, double u, double v, double sigma, double *mode_u,
                                     double *mode_v, double *weight, cs_error *error) {
    return cs::guard(error, [&] {
        cs::require(meter != nullptr && mode_u != nullptr && mode_v != nullptr && weight != nullptr,
                    "cs_frame_meter_chroma_mode: NULL argument");
        cs::require(sigma > 0, "cs_frame_meter_chroma_mode: sigma must be positive");
        const std::vector<float> &samples = meter->chroma_samples;
        const std::vector<int32_t> &start = meter->chroma_bin_start;
        // The samples within reach of any step first (a mode lies well within 3 sigma of a start
        // on its cluster's slope), read from the bins that reach covers, then Gaussian mean shift
        // over them.
        const float reach = float(4 * sigma);
        std::vector<float> &near = meter->chroma_near;
        near.clear();
        const int bins = CS_CHROMA_BINS;
        const auto bin_of = [&](double value) {
            return int(std::clamp(std::floor(value / CS_CHROMA_STEP) + bins / 2, 0.0, double(bins - 1)));
        };
        if (!start.empty()) {
            // A bin more each way than the reach's: its edges, in float, need not round as the samples' did.
            const int u0 = std::max(bin_of(u - reach) - 1, 0), u1 = std::min(bin_of(u + reach) + 1, bins - 1);
            const int v0 = std::max(bin_of(v - reach) - 1, 0), v1 = std::min(bin_of(v + reach) + 1, bins - 1);
            for (int row = v0; row <= v1; ++row) {
                for (int32_t k = start[row * bins + u0]; k < start[row * bins + u1 + 1]; ++k) {
                    if (std::abs(samples[2 * k] - float(u)) < reach && std::abs(samples[2 * k + 1] - float(v)) < reach) {
                        near.push_back(samples[2 * k]);
                        near.push_back(samples[2 * k + 1]);
                    }
                }
            }
        }
        // exp(-d^2 / 2 sigma^2) from a table over d^2 < (3 sigma)^2, summed in float: the light's
        // whole cost per 640x480 frame fell from 0.72 to 0.27 ms against exp in double.
        constexpr int kernel_steps = 1024;
        constexpr float cutoff = 9;
        static const std::array<float, kernel_steps + 1> kernel = [] {
            std::array<float, kernel_steps + 1> table{};
            for (int k = 0; k <= kernel_steps; ++k) table[k] = std::exp(-0.5f * cutoff * k / kernel_steps);
            return table;
        }();
        const float to_step = float(kernel_steps / (cutoff * sigma * sigma));
        double total = 0;
        for (int round = 0; round < 30; ++round) {
            float su = 0, sv = 0, sw = 0;
            const float cu = float(u), cv = float(v);
            for (size_t k = 0; k < near.size(); k += 2) {
                const float du = near[k] - cu, dv = near[k + 1] - cv;
                const float at = (du * du + dv * dv) * to_step;
                if (at >= kernel_steps) continue;
                const float w = kernel[int(at)];
                su += w * near[k], sv += w * near[k + 1], sw += w;
            }
            total = sw;
            if (sw <= 0) break;
            const double nu = su / sw, nv = sv / sw;
            const double step = std::abs(nu - u) + std::abs(nv - v);
            u = nu, v = nv;
            if (step < 1e-3) break;
        }
        *mode_u = u, *mode_v = v, *weight = total;
    });
}

cs_status cs_region_luminance(const cs_image *image, const uint16_t *labels, int32_t labels_width, int32_t labels_height,
                              int32_t regions, double *sums, int32_t *counts, cs_error *error) {
    return cs::guard(error, [&] {
        cs::require(image != nullptr && !image->mat.empty() && image->mat.depth() == CV_8U &&
                        (image->mat.channels() == 1 || image->mat.channels() == 3),
                    "cs_region_luminance: image is NULL, empty, or not 8-bit gray or BGR");
        cs::require(labels != nullptr && labels_width > 0 && labels_height > 0 && regions >= 0 &&
                        (regions == 0 || (sums != nullptr && counts != nullptr)),
                    "cs_region_luminance: bad labels or outputs");
        std::fill(sums, sums + regions, 0.0);
        std::fill(counts, counts + regions, 0);
        const cv::Mat &frame = image->mat;
        const LinearLight &light = linear_light();
        const int channels = frame.channels();
        for (int y = sample_step / 2; y < frame.rows; y += sample_step) {
            const uint8_t *row = frame.ptr<uint8_t>(y);
            const uint16_t *label_row = labels + size_t(int64_t(y) * labels_height / frame.rows) * labels_width;
            for (int x = sample_step / 2; x < frame.cols; x += sample_step) {
                const int label = label_row[int64_t(x) * labels_width / frame.cols];
                if (label == 0 || label > regions) continue;
                const uint8_t *p = row + channels * x;
                if (channels == 1) {
                    if (p[0] >= clipped_code) continue;
                    sums[label - 1] += light.value[p[0]];
                } else {
                    if (std::max({p[0], p[1], p[2]}) >= clipped_code) continue;
                    sums[label - 1] += luminance_of(light, p);
                }
                ++counts[label - 1];
            }
        }
    });
}

cs_status cs_frame_meter_region_sharpness(const cs_frame_meter *meter, const cs_rect *regions, size_t count, double *out,
                                          cs_error *error) {
    return cs::guard(error, [&] {
        cs::require(meter != nullptr && (count == 0 || (regions != nullptr && out != nullptr)),
                    "cs_frame_meter_region_sharpness: NULL argument");
        const cv::Rect frame(0, 0, meter->laplacian.cols, meter->laplacian.rows);
        for (size_t k = 0; k < count; ++k) {
            const cs_rect &r = regions[k];
            const cv::Rect box = cv::Rect(int(r.x / 2), int(r.y / 2), int(r.width / 2), int(r.height / 2)) & frame;
            out[k] = box.area() > 0 ? laplacian_variance(meter->laplacian(box)) : 0;
        }
    });
}

} // extern "C"
