#include "orb_describer.hpp"

#include "barrier.hpp"
#include "pixel_rows.hpp"

#include <opencv2/features2d.hpp>
#include <opencv2/imgproc.hpp>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <memory>

#if defined(__x86_64__)
#include <immintrin.h>
#endif

namespace cs {
namespace {

constexpr int kTests = 256;
constexpr int kPoints = 2 * kTests;
constexpr int kPatchSize = 31;
// Every point of OpenCV's pattern for a 31-pixel patch lies within this many pixels of the
// keypoint along each axis.
constexpr int kReach = kPatchSize / 2;
constexpr int kTaps = 7;
constexpr int kHalfTaps = kTaps / 2;

cv::Ptr<cv::ORB> opencv_orb() {
    return cv::ORB::create(500, 1.2f, 1, kPatchSize, 0, 2, cv::ORB::FAST_SCORE, kPatchSize, 20);
}

// The level as cv::ORB blurs it before describing: inside a bordered copy, so GaussianBlur works
// on a submatrix and takes OpenCV's general separable filter in float, not the fixed-point one a
// whole image gets.
void opencv_blur(const cv::Mat &in, cv::Mat &out) {
    constexpr int border = 32;
    cv::Mat bordered;
    cv::copyMakeBorder(in, bordered, border, border, border, border, cv::BORDER_REFLECT_101);
    cv::Mat inner = bordered(cv::Rect(border, border, in.cols, in.rows));
    cv::GaussianBlur(inner, inner, cv::Size(kTaps, kTaps), 2, 2, cv::BORDER_REFLECT_101);
    inner.copyTo(out);
}

bool has_avx2_fma() {
#if defined(__x86_64__)
    static const bool supported = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
    return supported;
#else
    return false;
#endif
}

using Kernel = std::array<float, kTaps>;

#if defined(__x86_64__)
// ---- The blur in OpenCV's arithmetic on processors with AVX2 and FMA (where OpenCV's filter
// uses them): each row's sum accumulates the taps left to right by fused multiply-add; each
// column's starts at the centre tap and adds the symmetric pairs' sums, outermost last; the
// result is rounded to nearest even and saturated. ----

// A row of floats (padded with three reflected pixels each side) times the taps, 8 at a time.
__attribute__((target("avx2,fma"))) void blur_row(const float *padded, int width, const Kernel &k, float *out) {
    __m256 taps[kTaps];
    for (int j = 0; j < kTaps; ++j) taps[j] = _mm256_set1_ps(k[size_t(j)]);
    for (int x = 0; x < width; x += 8) {
        __m256 sum = _mm256_setzero_ps();
        for (int j = 0; j < kTaps; ++j) sum = _mm256_fmadd_ps(_mm256_loadu_ps(padded + x + j), taps[j], sum);
        _mm256_storeu_ps(out + x, sum);
    }
}

// Eight pixels of a column pass (rows[3] the centre row), rounded.
__attribute__((target("avx2,fma"))) __m256i blur_column_eight(const float *const rows[kTaps], int x, const Kernel &k) {
    __m256 sum =
        _mm256_fmadd_ps(_mm256_set1_ps(k[kHalfTaps]), _mm256_loadu_ps(rows[kHalfTaps] + x), _mm256_setzero_ps());
    for (int j = 1; j <= kHalfTaps; ++j)
        sum = _mm256_fmadd_ps(
            _mm256_set1_ps(k[size_t(kHalfTaps + j)]),
            _mm256_add_ps(_mm256_loadu_ps(rows[kHalfTaps + j] + x), _mm256_loadu_ps(rows[kHalfTaps - j] + x)), sum);
    return _mm256_cvtps_epi32(sum);
}

// Seven rows of row sums down to one row of pixels, 16 at a time.
__attribute__((target("avx2,fma"))) void blur_column(const float *const rows[kTaps], int width, const Kernel &k,
                                                   uint8_t *out) {
    for (int x = 0; x < width; x += 16) {
        const __m256i words = _mm256_permute4x64_epi64(_mm256_packs_epi32(blur_column_eight(rows, x, k), blur_column_eight(rows, x + 8, k)), 0xd8);
        const __m128i pixels =
            _mm_packus_epi16(_mm256_castsi256_si128(words), _mm256_extracti128_si256(words, 1));
        store_row_pixels(pixels, out, x, width);
    }
}

// The blur of `in` into `out`, one row at a time: a ring of the last eight rows' sums.
__attribute__((target("avx2,fma"))) void blur_7(const cv::Mat &in, cv::Mat &out, const Kernel &k) {
    const int width = in.cols, height = in.rows;
    out.create(in.size(), CV_8UC1);
    // Rows are read and written 16 floats past the width at most; they are whole vectors.
    const size_t stride = (size_t(width) + 15) & ~size_t(15);
    thread_local std::vector<float> padded;
    thread_local std::vector<float> ring;
    padded.assign(stride + 2 * kHalfTaps + 16, 0.f);
    ring.resize(8 * stride);
    int next = 0; // the next row whose sums are computed
    const float *rows[kTaps];
    for (int y = 0; y < height; ++y) {
        for (; next < std::min(height, y + kHalfTaps + 1); ++next) {
            const uint8_t *source = in.ptr<uint8_t>(next);
            for (int x = 0; x < width; ++x) padded[size_t(kHalfTaps + x)] = float(source[x]);
            for (int i = 1; i <= kHalfTaps; ++i) {
                padded[size_t(kHalfTaps - i)] = float(source[i]);
                padded[size_t(kHalfTaps + width - 1 + i)] = float(source[width - 1 - i]);
            }
            blur_row(padded.data(), width, k, ring.data() + size_t(next % 8) * stride);
        }
        for (int j = 0; j < kTaps; ++j)
            rows[j] = ring.data() + size_t(cv::borderInterpolate(y + j - kHalfTaps, height, cv::BORDER_REFLECT_101) % 8) * stride;
        blur_column(rows, width, k, out.ptr<uint8_t>(y));
    }
}
#endif

// ---- Reading the pattern off OpenCV's ORB. ----
//
// Each probe is a tile whose pixels are 255 on one side of a straight edge and 0 on the other;
// the edge runs across x, y or the diagonal x + y at some offset from the tile's centre, where a
// keypoint at angle 0 sits (so a test's points are the pattern's own). Blurred, such a tile is a
// known function of that one coordinate, increasing through the edge, so test i's bit over all
// offsets and both polarities fixes the coordinate of both of its points; the diagonal fixes
// the one axis where both points share a coordinate.

enum class Axis { x, y, diagonal };

struct Probe {
    Axis axis;
    int threshold; // pixels whose coordinate is at least this are bright when `rising`
    bool rising;
};

constexpr int kTile = 48; // a probe's samples reach kReach + kHalfTaps from its centre
constexpr int kProbeBorder = kPatchSize + 1;

int coordinate(Axis axis, int dx, int dy) { return axis == Axis::x ? dx : axis == Axis::y ? dy : dx + dy; }

// The pixel (relative to the centre) where a probe of `axis` is read for coordinate `c`.
cv::Point probe_pixel(Axis axis, int c) {
    switch (axis) {
    case Axis::x: return {c, 0};
    case Axis::y: return {0, c};
    case Axis::diagonal: break;
    }
    const int dx = int(std::floor(c / 2.0));
    return {dx, c - dx};
}

std::vector<Probe> probes() {
    std::vector<Probe> all;
    for (Axis axis : {Axis::x, Axis::y, Axis::diagonal}) {
        const int reach = (axis == Axis::diagonal ? 2 : 1) * (kReach + kHalfTaps) + 1;
        for (int t = -reach; t <= reach; ++t)
            for (bool rising : {true, false}) all.push_back({axis, t, rising});
    }
    return all;
}

} // namespace

void OrbDescriber::blur(const cv::Mat &level, cv::Mat &out) const {
#if defined(__x86_64__)
    if (level.cols > kHalfTaps && level.rows > kHalfTaps) return blur_7(level, out, kernel_);
#endif
    opencv_blur(level, out);
}

OrbDescriber OrbDescriber::read_from_opencv(bool &ok) {
    OrbDescriber describer;
    ok = false;
    const cv::Mat kernel = cv::getGaussianKernel(kTaps, 2, CV_32F);
    for (int j = 0; j < kTaps; ++j) describer.kernel_[size_t(j)] = kernel.at<float>(j);
    cv::Mat blurred;

    const std::vector<Probe> all = probes();
    const int columns = 24, rows = int(all.size() + columns - 1) / columns;
    cv::Mat image(2 * kProbeBorder + rows * kTile, 2 * kProbeBorder + columns * kTile, CV_8UC1, cv::Scalar(0));
    std::vector<cv::KeyPoint> keypoints;
    for (size_t p = 0; p < all.size(); ++p) {
        const cv::Point corner(kProbeBorder + int(p % columns) * kTile, kProbeBorder + int(p / columns) * kTile);
        const cv::Point centre = corner + cv::Point(kTile / 2, kTile / 2);
        for (int dy = -kTile / 2; dy < kTile / 2; ++dy)
            for (int dx = -kTile / 2; dx < kTile / 2; ++dx)
                image.at<uint8_t>(centre.y + dy, centre.x + dx) =
                    (coordinate(all[p].axis, dx, dy) >= all[p].threshold) == all[p].rising ? 255 : 0;
        keypoints.emplace_back(cv::Point2f(centre), float(kPatchSize), 0.f, 0.f, 0);
    }
    cv::Mat descriptors;
    opencv_orb()->compute(image, keypoints, descriptors);
    if (descriptors.rows != int(all.size()) || descriptors.cols != kTests / 8) return describer;
    opencv_blur(image, blurred);

    // Along each axis, the bits a test whose points have coordinates (a, b) there gives on the
    // axis's probes (its signature); a test's coordinates are the pairs whose signature is its bits.
    using Signature = std::array<uint64_t, 4>;
    std::vector<size_t> on[3];
    for (size_t p = 0; p < all.size(); ++p) on[int(all[p].axis)].push_back(p);
    for (const auto &probes : on)
        if (probes.size() > 64 * std::tuple_size<Signature>::value) return describer;
    auto value = [&](size_t p, int c) {
        const cv::Point at = cv::Point(keypoints[p].pt) + probe_pixel(all[p].axis, c);
        return blurred.at<uint8_t>(at.y, at.x);
    };
    auto pair_signature = [&](Axis axis, int a, int b) {
        Signature signature{};
        const auto &probes = on[int(axis)];
        for (size_t k = 0; k < probes.size(); ++k)
            if (value(probes[k], a) < value(probes[k], b)) signature[k / 64] |= uint64_t(1) << (k % 64);
        return signature;
    };
    auto test_signature = [&](Axis axis, int test) {
        Signature signature{};
        const auto &probes = on[int(axis)];
        for (size_t k = 0; k < probes.size(); ++k)
            if ((descriptors.at<uint8_t>(int(probes[k]), test / 8) >> (test % 8)) & 1)
                signature[k / 64] |= uint64_t(1) << (k % 64);
        return signature;
    };
    // Signatures of every coordinate pair, row-major over (a + range, b + range).
    auto pair_signatures = [&](Axis axis, int range) {
        std::vector<Signature> signatures;
        for (int a = -range; a <= range; ++a)
            for (int b = -range; b <= range; ++b) signatures.push_back(pair_signature(axis, a, b));
        return signatures;
    };
    const int span = 2 * kReach + 1, diagonal_span = 4 * kReach + 1;
    const std::vector<Signature> along_x = pair_signatures(Axis::x, kReach), along_y = pair_signatures(Axis::y, kReach),
                                 along_diagonal = pair_signatures(Axis::diagonal, 2 * kReach);
    auto matching = [&](const std::vector<Signature> &signatures, const Signature &bits) {
        std::vector<std::pair<int, int>> found;
        for (size_t i = 0; i < signatures.size(); ++i)
            if (signatures[i] == bits) found.emplace_back(int(i) / span - kReach, int(i) % span - kReach);
        return found;
    };
    int reach = 0;
    for (int test = 0; test < kTests; ++test) {
        const auto xs = matching(along_x, test_signature(Axis::x, test));
        const auto ys = matching(along_y, test_signature(Axis::y, test));
        const Signature diagonal = test_signature(Axis::diagonal, test);
        int matches = 0;
        for (const auto &[x0, x1] : xs)
            for (const auto &[y0, y1] : ys) {
                const size_t i = size_t(x0 + y0 + 2 * kReach) * size_t(diagonal_span) + size_t(x1 + y1 + 2 * kReach);
                if (along_diagonal[i] != diagonal) continue;
                ++matches;
                describer.pattern_x_[size_t(test)] = float(x0);
                describer.pattern_y_[size_t(test)] = float(y0);
                describer.pattern_x_[size_t(kTests + test)] = float(x1);
                describer.pattern_y_[size_t(kTests + test)] = float(y1);
                reach = std::max({reach, x0 * x0 + y0 * y0, x1 * x1 + y1 * y1});
            }
        if (matches != 1) return describer;
    }
    // A rotated point lands within its radius (rounded) of the keypoint's (rounded) pixel.
    describer.margin_ = int(std::ceil(std::sqrt(double(reach)))) + 1;
    ok = true;
    return describer;
}

// Random keypoints on noise, described by OpenCV and by this describer: the same bytes, and the
// same blur everywhere.
bool OrbDescriber::reproduces_opencv() const {
    cv::RNG random(0x5eed);
    cv::Mat noise(360, 400, CV_8UC1);
    random.fill(noise, cv::RNG::UNIFORM, 0, 256);
    cv::Mat ours, theirs;
    blur(noise, ours);
    opencv_blur(noise, theirs);
    if (cv::norm(ours, theirs, cv::NORM_INF) != 0) return false;
    std::vector<cv::KeyPoint> keypoints;
    for (int i = 0; i < 400; ++i) {
        const float angle = i < 8 ? float(45 * i) : random.uniform(0.f, 360.f);
        keypoints.emplace_back(cv::Point2f(random.uniform(40.f, 360.f), random.uniform(40.f, 320.f)),
                               float(kPatchSize), angle, 0.f, 0);
    }
    std::vector<cv::KeyPoint> described = keypoints;
    cv::Mat expected;
    opencv_orb()->compute(noise, described, expected);
    if (expected.rows != int(keypoints.size()) || expected.cols != int(sizeof(Descriptor))) return false;
    std::vector<Descriptor> found(keypoints.size());
    describe_blurred(ours, keypoints, found.data());
    return std::memcmp(found.data(), expected.data, found.size() * sizeof(Descriptor)) == 0;
}

const OrbDescriber *OrbDescriber::exact() {
    static const std::unique_ptr<const OrbDescriber> describer = []() -> std::unique_ptr<const OrbDescriber> {
        if (!has_avx2_fma()) return nullptr;
        try {
            bool ok = false;
            auto read = std::unique_ptr<OrbDescriber>(new OrbDescriber(read_from_opencv(ok)));
            if (ok && read->reproduces_opencv()) return read;
        } catch (...) {
        }
        return nullptr;
    }();
    return describer.get();
}

void OrbDescriber::describe(const cv::Mat &level, const std::vector<cv::KeyPoint> &keypoints, cv::Mat &blurred,
                            Descriptor *out) const {
    for (const auto &k : keypoints) {
        const int x = cvRound(k.pt.x), y = cvRound(k.pt.y);
        require(x >= margin_ && y >= margin_ && x < level.cols - margin_ && y < level.rows - margin_,
                "OrbDescriber: keypoint too close to the edge");
    }
    blur(level, blurred);
    describe_blurred(blurred, keypoints, out);
}

#if defined(__x86_64__)
namespace {

// Each point's pixel offset from the keypoint: the pattern turned by (a, b) and rounded as
// OpenCV does it (x = px a - py b, y = px b + py a in float, to nearest even), eight at a time.
__attribute__((target("avx2"))) void rotated_offsets(const float *px, const float *py, float a, float b,
                                                          int step, int32_t *out) {
    const __m256 va = _mm256_set1_ps(a), vb = _mm256_set1_ps(b);
    const __m256i vstep = _mm256_set1_epi32(step);
    for (int i = 0; i < kPoints; i += 8) {
        const __m256 x0 = _mm256_load_ps(px + i), y0 = _mm256_load_ps(py + i);
        const __m256 x = _mm256_sub_ps(_mm256_mul_ps(x0, va), _mm256_mul_ps(y0, vb));
        const __m256 y = _mm256_add_ps(_mm256_mul_ps(x0, vb), _mm256_mul_ps(y0, va));
        const __m256i offset =
            _mm256_add_epi32(_mm256_mullo_epi32(_mm256_cvtps_epi32(y), vstep), _mm256_cvtps_epi32(x));
        _mm256_store_si256(reinterpret_cast<__m256i *>(out + i), offset);
    }
}

// The 256 tests' bits, eight a byte: test i is set when its first point's value is below its
// second's.
void compare_points(const uint8_t *centre, const int32_t *offsets, uint8_t *out) {
    for (int i = 0; i < kTests; i += 8) {
        uint32_t byte = 0;
        for (int j = 0; j < 8; ++j) byte |= uint32_t(centre[offsets[i + j]] < centre[offsets[kTests + i + j]]) << j;
        out[i / 8] = uint8_t(byte);
    }
}

} // namespace

void OrbDescriber::describe_blurred(const cv::Mat &blurred, const std::vector<cv::KeyPoint> &keypoints,
                                    Descriptor *out) const {
    const int step = int(blurred.step);
    alignas(32) int32_t offsets[kPoints];
    for (size_t n = 0; n < keypoints.size(); ++n) {
        const cv::KeyPoint &k = keypoints[n];
        const float angle = k.angle * float(CV_PI / 180.f);
        const float a = float(std::cos(double(angle))), b = float(std::sin(double(angle)));
        rotated_offsets(pattern_x_.data(), pattern_y_.data(), a, b, step, offsets);
        const uint8_t *centre = blurred.ptr<uint8_t>(cvRound(k.pt.y)) + cvRound(k.pt.x);
        compare_points(centre, offsets, reinterpret_cast<uint8_t *>(&out[n]));
    }
}

#else
void OrbDescriber::describe_blurred(const cv::Mat &, const std::vector<cv::KeyPoint> &, Descriptor *) const {
    require(false, "OrbDescriber: needs AVX2 and FMA");
}
#endif

} // namespace cs
