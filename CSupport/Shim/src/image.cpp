#include "barrier.hpp"

#include <cmath>

#include "lazy_io.hpp"

#include <opencv2/imgcodecs.hpp>
#include <opencv2/imgproc.hpp>

namespace {

const cv::Mat &gray_of(const cv::Mat &mat, cv::Mat &scratch) {
    if (mat.channels() == 1) return mat;
    cv::cvtColor(mat, scratch, cv::COLOR_BGR2GRAY);
    return scratch;
}

// Decodes a file's bytes (read, checked and bounded by the caller). A decoder that throws, as
// OpenCV's do on a header they cannot take, fails like one that returns nothing.
cv::Mat decode(const uint8_t *bytes, size_t count, const char *name, int flags) {
    cs::require(bytes != nullptr && name != nullptr && count > 0, "decode: NULL or empty argument");
    cv::Mat mat;
    std::string messages;
    try {
        mat = cs::io::decode_image(cv::Mat(1, int(std::min<size_t>(count, INT32_MAX)), CV_8U, const_cast<uint8_t *>(bytes)),
                                   flags, messages);
    } catch (const cv::Exception &) {
        mat.release();
    }
    if (mat.empty()) {
        // The codec's last line says what it found wrong ("IDAT: CRC error"); warnings before it are noise.
        std::string reason = messages.substr(0, messages.find_last_not_of("\n") + 1);
        reason = reason.substr(reason.find_last_of('\n') + 1);
        throw cs::Failure(CS_DECODE_FAILED, std::string("not a readable image (corrupt, empty or unsupported format): ") + name +
                                                (reason.empty() ? "" : " (" + reason + ")"));
    }
    return mat;
}

void require_image(const cs_image *image) { cs::require(image != nullptr && !image->mat.empty(), "image is NULL or empty"); }

} // namespace

extern "C" {

cs_status cs_image_decode(const uint8_t *bytes, size_t count, const char *name, int32_t channels, cs_image **out,
                          cs_error *error) {
    return cs::guard(error, [&] {
        cs::require(out != nullptr, "cs_image_decode: NULL argument");
        cs::require(channels == 1 || channels == 3, "cs_image_decode: channels must be 1 or 3");
        *out = nullptr;
        *out = new cs_image{decode(bytes, count, name, channels == 1 ? cv::IMREAD_GRAYSCALE : cv::IMREAD_COLOR)};
    });
}

cs_status cs_image_create(int32_t width, int32_t height, int32_t channels, const uint8_t *pixels, size_t stride,
                          cs_image **out, cs_error *error) {
    return cs::guard(error, [&] {
        cs::require(out != nullptr, "cs_image_create: out is NULL");
        cs::require(width > 0 && height > 0, "cs_image_create: width and height must be positive");
        cs::require(channels == 1 || channels == 3, "cs_image_create: channels must be 1 or 3");
        *out = nullptr;
        cv::Mat mat(height, width, channels == 1 ? CV_8UC1 : CV_8UC3, cv::Scalar::all(0));
        if (pixels) {
            size_t row = size_t(width) * size_t(channels);
            cs::require(stride >= row, "cs_image_create: stride shorter than a row");
            for (int32_t y = 0; y < height; ++y) std::memcpy(mat.ptr(y), pixels + size_t(y) * stride, row);
        }
        *out = new cs_image{std::move(mat)};
    });
}

void cs_image_destroy(cs_image *image) { delete image; }

cs_status cs_image_get_info(const cs_image *image, cs_image_info *out, cs_error *error) {
    return cs::guard(error, [&] {
        cs::require(image != nullptr && out != nullptr, "cs_image_get_info: NULL argument");
        out->width = image->mat.cols;
        out->height = image->mat.rows;
        out->channels = image->mat.channels();
    });
}

cs_status cs_image_copy_pixels(const cs_image *image, uint8_t *out, size_t capacity, cs_error *error) {
    return cs::guard(error, [&] {
        require_image(image);
        size_t row = size_t(image->mat.cols) * image->mat.elemSize();
        cs::require_capacity(capacity, row * size_t(image->mat.rows));
        for (int y = 0; y < image->mat.rows; ++y) std::memcpy(out + size_t(y) * row, image->mat.ptr(y), row);
    });
}

cs_status cs_image_write(const cs_image *image, const char *path, const char *temporary, cs_error *error) {
    return cs::guard(error, [&] {
        require_image(image);
        cs::require(path != nullptr && temporary != nullptr, "cs_image_write: path is NULL");
        cs::write_atomically(path, temporary, [&](const std::string &file) { return cs::io::write_image(file, image->mat); });
    });
}

cs_status cs_image_swap_red_blue(cs_image *image, cs_error *error) {
    return cs::guard(error, [&] {
        require_image(image);
        cs::require(image->mat.channels() == 3, "cs_image_swap_red_blue: the image has not 3 channels");
        cv::cvtColor(image->mat, image->mat, cv::COLOR_RGB2BGR);
    });
}

cs_status cs_image_convert_to_gray(const cs_image *image, cs_image *out, cs_error *error) {
    return cs::guard(error, [&] {
        require_image(image);
        cs::require(out != nullptr, "cs_image_convert_to_gray: out is NULL");
        if (image->mat.channels() == 1) image->mat.copyTo(out->mat);
        else cv::cvtColor(image->mat, out->mat, cv::COLOR_BGR2GRAY);
    });
}

cs_status cs_image_resize(const cs_image *image, int32_t width, int32_t height, cs_image *out, cs_error *error) {
    return cs::guard(error, [&] {
        require_image(image);
        cs::require(out != nullptr && width > 0 && height > 0, "cs_image_resize: bad size or NULL output");
        bool shrinking = width < image->mat.cols || height < image->mat.rows;
        cv::resize(image->mat, out->mat, cv::Size(width, height), 0, 0, shrinking ? cv::INTER_AREA : cv::INTER_LINEAR);
    });
}

cs_status cs_image_warp_perspective(const cs_image *image, const double homography[9], int32_t width, int32_t height,
                                    cs_image *out, cs_error *error) {
    return cs::guard(error, [&] {
        require_image(image);
        cs::require(homography != nullptr && out != nullptr && width > 0 && height > 0,
                    "cs_image_warp_perspective: bad size or NULL argument");
        cv::Mat h(3, 3, CV_64F, const_cast<double *>(homography));
        // The shim's pixel convention puts pixel centres at +0.5; OpenCV's at integers.
        cv::Matx33d shift(1, 0, 0.5, 0, 1, 0.5, 0, 0, 1), unshift(1, 0, -0.5, 0, 1, -0.5, 0, 0, 1);
        cv::Matx33d centred = unshift * cv::Matx33d(h) * shift;
        cv::warpPerspective(image->mat, out->mat, cv::Mat(centred), cv::Size(width, height), cv::INTER_LINEAR,
                            cv::BORDER_CONSTANT, cv::Scalar::all(0));
    });
}

cs_status cs_image_match_brightness(const cs_image *image, double mean, double standard_deviation, cs_image *out,
                                    cs_error *error) {
    return cs::guard(error, [&] {
        require_image(image);
        cs::require(out != nullptr && image->mat.type() == CV_8UC1, "cs_image_match_brightness: needs a gray image");
        cs::require(standard_deviation >= 0, "cs_image_match_brightness: negative standard deviation");
        // One pass for a histogram of the non-zero pixels, one table lookup per pixel: several
        // times cheaper than a masked meanStdDev and a float conversion, on every alignment.
        // Four interleaved counts, so that runs of equal pixels do not wait on one counter.
        uint32_t counts[4][256] = {};
        for (int y = 0; y < image->mat.rows; ++y) {
            const uint8_t *row = image->mat.ptr<uint8_t>(y);
            int x = 0;
            for (; x + 4 <= image->mat.cols; x += 4) {
                ++counts[0][row[x]];
                ++counts[1][row[x + 1]];
                ++counts[2][row[x + 2]];
                ++counts[3][row[x + 3]];
            }
            for (; x < image->mat.cols; ++x) ++counts[0][row[x]];
        }
        double histogram[256];
        for (int v = 0; v < 256; ++v) histogram[v] = double(counts[0][v]) + counts[1][v] + counts[2][v] + counts[3][v];
        double n = 0, sum = 0, squares = 0;
        for (int v = 1; v < 256; ++v) {
            n += histogram[v];
            sum += histogram[v] * v;
            squares += histogram[v] * v * v;
        }
        double m = n > 0 ? sum / n : 0;
        double d = n > 0 ? std::sqrt(std::max(0.0, squares / n - m * m)) : 0;
        double gain = d > 1e-6 ? standard_deviation / d : 1.0;
        cv::Mat table(1, 256, CV_8U);
        for (int v = 0; v < 256; ++v) table.at<uint8_t>(v) = cv::saturate_cast<uint8_t>(gain * v + mean - gain * m);
        cv::LUT(image->mat, table, out->mat);
    });
}

cs_status cs_image_composite_warped(cs_image *canvas, const cs_image *image, const double homography[9],
                                    cs_error *error) {
    return cs::guard(error, [&] {
        require_image(image);
        cs::require(canvas != nullptr && !canvas->mat.empty() && homography != nullptr,
                    "cs_image_composite_warped: NULL argument");
        cs::require(canvas->mat.type() == image->mat.type(), "cs_image_composite_warped: channel counts differ");
        cv::Matx33d shift(1, 0, 0.5, 0, 1, 0.5, 0, 0, 1), unshift(1, 0, -0.5, 0, 1, -0.5, 0, 0, 1);
        cv::Mat centred(unshift * cv::Matx33d(homography) * shift);
        cv::Mat warped, coverage;
        cv::Mat opaque(image->mat.size(), CV_32F, cv::Scalar(1));
        cv::warpPerspective(image->mat, warped, centred, canvas->mat.size(), cv::INTER_LINEAR, cv::BORDER_CONSTANT);
        cv::warpPerspective(opaque, coverage, centred, canvas->mat.size(), cv::INTER_LINEAR, cv::BORDER_CONSTANT);
        cv::Mat base, top, alpha;
        canvas->mat.convertTo(base, CV_32F);
        warped.convertTo(top, CV_32F);
        if (canvas->mat.channels() == 3) cv::cvtColor(coverage, alpha, cv::COLOR_GRAY2BGR);
        else alpha = coverage;
        cv::Mat blended = base.mul(cv::Scalar::all(1) - alpha) + top.mul(alpha);
        blended.convertTo(canvas->mat, canvas->mat.type());
    });
}

cs_status cs_image_gaussian_blur(const cs_image *image, double sigma, cs_image *out, cs_error *error) {
    return cs::guard(error, [&] {
        require_image(image);
        cs::require(out != nullptr && sigma > 0, "cs_image_gaussian_blur: sigma must be positive");
        cv::GaussianBlur(image->mat, out->mat, cv::Size(0, 0), sigma);
    });
}

cs_status cs_image_get_statistics(const cs_image *image, cs_image_statistics *out, cs_error *error) {
    return cs::guard(error, [&] {
        require_image(image);
        cs::require(out != nullptr, "cs_image_get_statistics: out is NULL");
        cv::Mat scratch;
        const cv::Mat &gray = gray_of(image->mat, scratch);
        cv::Scalar mean, deviation;
        cv::meanStdDev(gray, mean, deviation);
        out->mean = mean[0];
        out->standard_deviation = deviation[0];
    });
}

} // extern "C"

struct cs_raster {
    cv::Mat mat;
};

extern "C" {

cs_status cs_raster_decode(const uint8_t *bytes, size_t count, const char *name, cs_raster **out, cs_error *error) {
    return cs::guard(error, [&] {
        cs::require(out != nullptr, "cs_raster_decode: NULL argument");
        *out = nullptr;
        cv::Mat mat = decode(bytes, count, name, cv::IMREAD_UNCHANGED);
        if (mat.channels() != 1)
            throw cs::Failure(CS_DECODE_FAILED, std::string("has ") + std::to_string(mat.channels()) +
                                                    " channels; a depth or label image has one: " + name);
        int depth = mat.depth();
        if (depth != CV_8U && depth != CV_16U && depth != CV_32F)
            throw cs::Failure(CS_DECODE_FAILED,
                              std::string("values are neither 8-bit, 16-bit nor 32-bit float: ") + name);
        *out = new cs_raster{std::move(mat)};
    });
}

void cs_raster_destroy(cs_raster *raster) { delete raster; }

cs_status cs_raster_get_info(const cs_raster *raster, cs_raster_info *out, cs_error *error) {
    return cs::guard(error, [&] {
        cs::require(raster != nullptr && out != nullptr, "cs_raster_get_info: NULL argument");
        out->width = raster->mat.cols;
        out->height = raster->mat.rows;
        int depth = raster->mat.depth();
        out->kind = depth == CV_8U ? CS_RASTER_U8 : depth == CV_16U ? CS_RASTER_U16 : CS_RASTER_F32;
    });
}

cs_status cs_raster_copy_values(const cs_raster *raster, float *out, size_t capacity, cs_error *error) {
    return cs::guard(error, [&] {
        cs::require(raster != nullptr && out != nullptr, "cs_raster_copy_values: NULL argument");
        const cv::Mat &mat = raster->mat;
        cs::require_capacity(capacity, size_t(mat.cols) * size_t(mat.rows));
        cv::Mat values(mat.rows, mat.cols, CV_32F, out);
        mat.convertTo(values, CV_32F);
    });
}

cs_status cs_raster_write_u16(const char *path, const char *temporary, int32_t width, int32_t height, const uint16_t *values,
                              cs_error *error) {
    return cs::guard(error, [&] {
        cs::require(path != nullptr && temporary != nullptr && values != nullptr, "cs_raster_write_u16: NULL argument");
        cs::require(width > 0 && height > 0, "cs_raster_write_u16: width and height must be positive");
        cv::Mat mat(height, width, CV_16UC1, const_cast<uint16_t *>(values));
        cs::write_atomically(path, temporary, [&](const std::string &file) { return cs::io::write_image(file, mat); });
    });
}

} // extern "C"
