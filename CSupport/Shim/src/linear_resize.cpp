#include "linear_resize.hpp"

#include "pixel_rows.hpp"

#include <opencv2/imgproc.hpp>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>
#include <map>
#include <memory>
#include <mutex>
#include <vector>

#if defined(__x86_64__)
#include <immintrin.h>
#endif

namespace cs {
namespace {

#if defined(__x86_64__)

constexpr int kOne = 256; // 1.0 in the weights' 8 fractional bits
constexpr int kChunk = 8; // destination pixels per horizontal step, four per 128-bit lane

// One axis of OpenCV's bit-exact linear resize: destination pixel d is source pixels offset[d]
// and offset[d] + 1 weighted near[d] and far[d] (their sum is 256); beyond the source's edges
// it is the edge pixel (far weight 0).
struct AxisTable {
    std::vector<int32_t> offset;
    std::vector<int16_t> near, far;
};

AxisTable axis_table(int from, int to) {
    AxisTable t;
    // As cv::resize: the inverse of its scale to / from, in double precision (OpenCV's software
    // doubles round as the hardware's do), each operation rounded on its own.
    const double scale = 1.0 / (double(to) / double(from));
    for (int d = 0; d < to; ++d) {
        const double centre = scale * (double(d) + 0.5);
        const double position = centre - 0.5;
        const int below = int(std::floor(position));
        int offset = 0, far = 0;
        if (below >= 0 && from > 1) {
            if (below < from - 1) {
                offset = below;
                far = int(std::nearbyint((position - double(below)) * kOne));
            } else {
                offset = from - 1;
            }
        }
        t.offset.push_back(offset);
        t.near.push_back(int16_t(kOne - far));
        t.far.push_back(int16_t(far));
    }
    return t;
}

// A pair of sizes: the rows' tables, and the columns' as byte shuffles (each 128-bit lane
// gathers the pixel pairs of four destination pixels from 16 bytes at `base`).
struct Plan {
    AxisTable rows;
    std::vector<int32_t> base;                  // two per chunk
    std::vector<std::array<uint8_t, 32>> pairs; // one shuffle per chunk
    std::vector<std::array<int16_t, 16>> weights;
    int width = 0;  // destination
    bool exact = false;
};

std::unique_ptr<Plan> make_plan(int from_width, int from_height, cv::Size to) {
    auto plan = std::make_unique<Plan>();
    plan->rows = axis_table(from_height, to.height);
    plan->width = to.width;
    const AxisTable columns = axis_table(from_width, to.width);
    const int chunks = (to.width + kChunk - 1) / kChunk;
    for (int c = 0; c < chunks; ++c) {
        std::array<uint8_t, 32> pairs{};
        std::array<int16_t, 16> weights{};
        for (int lane = 0; lane < 2; ++lane) {
            const int first = std::min(c * kChunk + 4 * lane, to.width - 1);
            const int base = columns.offset[size_t(first)];
            plan->base.push_back(base);
            for (int k = 0; k < 4; ++k) {
                const size_t d = size_t(std::min(c * kChunk + 4 * lane + k, to.width - 1));
                const int relative = columns.offset[d] - base;
                if (relative < 0 || relative + 1 >= 16) return plan; // not exact: cv::resize runs
                const size_t byte = size_t(16 * lane + 4 * k);
                pairs[byte] = uint8_t(relative);
                pairs[byte + 1] = 0x80; // zero
                pairs[byte + 2] = uint8_t(relative + 1);
                pairs[byte + 3] = 0x80;
                weights[size_t(8 * lane + 2 * k)] = columns.near[d];
                weights[size_t(8 * lane + 2 * k + 1)] = columns.far[d];
            }
        }
        plan->pairs.push_back(pairs);
        plan->weights.push_back(weights);
    }
    plan->exact = true;
    return plan;
}

// A source row (copied with 16 spare bytes, so that every lane's load stays inside) to the
// destination's columns in 8.8 fixed point.
__attribute__((target("avx2"))) void resize_row(const Plan &plan, const uint8_t *padded, uint16_t *out) {
    const size_t chunks = plan.pairs.size();
    for (size_t c = 0; c < chunks; ++c) {
        const __m256i bytes = _mm256_inserti128_si256(
            _mm256_castsi128_si256(_mm_loadu_si128(reinterpret_cast<const __m128i *>(padded + plan.base[2 * c]))),
            _mm_loadu_si128(reinterpret_cast<const __m128i *>(padded + plan.base[2 * c + 1])), 1);
        const __m256i pairs = _mm256_shuffle_epi8(bytes, _mm256_loadu_si256(reinterpret_cast<const __m256i *>(plan.pairs[c].data())));
        const __m256i sums = _mm256_madd_epi16(pairs, _mm256_loadu_si256(reinterpret_cast<const __m256i *>(plan.weights[c].data())));
        // Eight sums of at most 255 * 256: to 16 bits, in order.
        const __m128i packed = _mm_packus_epi32(_mm256_castsi256_si128(sums), _mm256_extracti128_si256(sums, 1));
        _mm_storeu_si128(reinterpret_cast<__m128i *>(out + kChunk * c), packed);
    }
}

// Two rows of 8.8 values to destination pixels: (upper * near + lower * far + 2^15) >> 16,
// computed on the values minus 2^15 so that they multiply as signed 16-bit words.
__attribute__((target("avx2"))) void blend_rows(const uint16_t *upper, const uint16_t *lower, int16_t near, int16_t far,
                                                int width, uint8_t *out) {
    const __m256i bias = _mm256_set1_epi16(int16_t(0x8000));
    const __m256i weights = _mm256_set1_epi32(int32_t(uint16_t(near)) | (int32_t(uint16_t(far)) << 16));
    const __m256i restore = _mm256_set1_epi32((1 << 15) * kOne + (1 << 15));
    for (int x = 0; x < width; x += 16) {
        const __m256i a = _mm256_xor_si256(_mm256_loadu_si256(reinterpret_cast<const __m256i *>(upper + x)), bias);
        const __m256i b = _mm256_xor_si256(_mm256_loadu_si256(reinterpret_cast<const __m256i *>(lower + x)), bias);
        const __m256i low = _mm256_srli_epi32(_mm256_add_epi32(_mm256_madd_epi16(_mm256_unpacklo_epi16(a, b), weights), restore), 16);
        const __m256i high = _mm256_srli_epi32(_mm256_add_epi32(_mm256_madd_epi16(_mm256_unpackhi_epi16(a, b), weights), restore), 16);
        const __m256i words = _mm256_packus_epi32(low, high); // pixels 0-7 | 8-15
        const __m128i pixels = _mm256_castsi256_si128(_mm256_permute4x64_epi64(_mm256_packus_epi16(words, words), 0x08));
        store_row_pixels(pixels, out, x, width);
    }
}

void run_plan(const Plan &plan, const cv::Mat &from, cv::Mat &to) {
    const int width = plan.width, height = int(plan.rows.offset.size());
    cv::Mat result(height, width, CV_8UC1); // `to` may share `from`'s pixels
    const size_t stride = size_t(plan.pairs.size()) * kChunk + 16;
    thread_local std::vector<uint8_t> padded;
    thread_local std::vector<uint16_t> lines;
    padded.assign(size_t(from.cols) + 32, 0);
    lines.resize(2 * stride);
    int held[2] = {-1, -1};
    // The 8.8 row for source row `r`, computed into the slot not holding `keep`.
    auto line = [&](int r, int keep) -> const uint16_t * {
        for (int s = 0; s < 2; ++s)
            if (held[s] == r) return lines.data() + size_t(s) * stride;
        const int s = held[0] == keep ? 1 : 0;
        std::memcpy(padded.data(), from.ptr<uint8_t>(r), size_t(from.cols));
        resize_row(plan, padded.data(), lines.data() + size_t(s) * stride);
        held[s] = r;
        return lines.data() + size_t(s) * stride;
    };
    for (int y = 0; y < height; ++y) {
        const int upper = plan.rows.offset[size_t(y)], lower = std::min(upper + 1, from.rows - 1);
        const uint16_t *a = line(upper, -1);
        const uint16_t *b = plan.rows.far[size_t(y)] == 0 ? a : line(lower, upper);
        blend_rows(a, b, plan.rows.near[size_t(y)], plan.rows.far[size_t(y)], width, result.ptr<uint8_t>(y));
    }
    to = result;
}

// Whether the plan gives cv::resize's bytes on noise of the source's size.
bool reproduces_opencv(const Plan &plan, cv::Size from, cv::Size to) {
    cv::Mat noise(from, CV_8UC1), ours, theirs;
    cv::RNG random(0x5eed);
    random.fill(noise, cv::RNG::UNIFORM, 0, 256);
    run_plan(plan, noise, ours);
    cv::resize(noise, theirs, to, 0, 0, cv::INTER_LINEAR_EXACT);
    return ours.size() == theirs.size() && cv::norm(ours, theirs, cv::NORM_INF) == 0;
}

// Plans by pair of sizes; a video's frames need a handful.
constexpr size_t kMaxPlans = 64;

const Plan *plan_for(cv::Size from, cv::Size to) {
    static std::mutex mutex;
    static std::map<std::array<int, 4>, std::unique_ptr<Plan>> plans;
    const std::array<int, 4> key{from.width, from.height, to.width, to.height};
    std::lock_guard<std::mutex> lock(mutex);
    auto found = plans.find(key);
    if (found == plans.end()) {
        if (plans.size() >= kMaxPlans) return nullptr;
        auto plan = make_plan(from.width, from.height, to);
        if (plan->exact) plan->exact = reproduces_opencv(*plan, from, to);
        found = plans.emplace(key, std::move(plan)).first;
    }
    return found->second->exact ? found->second.get() : nullptr;
}

#endif

} // namespace

void resize_linear_exact(const cv::Mat &from, cv::Mat &to, cv::Size size) {
#if defined(__x86_64__)
    static const bool avx2 = __builtin_cpu_supports("avx2");
    if (avx2 && from.type() == CV_8UC1 && !from.empty() && size.width > 0 && size.height > 0)
        if (const Plan *plan = plan_for(from.size(), size)) return run_plan(*plan, from, to);
#endif
    cv::resize(from, to, size, 0, 0, cv::INTER_LINEAR_EXACT);
}

} // namespace cs
