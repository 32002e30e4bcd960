#include "cell_fast.hpp"

#include "barrier.hpp"

#include <opencv2/features2d.hpp>
#include <opencv2/imgproc.hpp>

#include <algorithm>

#if defined(__x86_64__)
#include <immintrin.h>
#endif

namespace cs {
namespace {

// FAST's circle of 16 pixels (radius 3), in order around the centre, as (x, y) offsets.
constexpr int kCircle[16][2] = {{0, 3},  {1, 3},   {2, 2},   {3, 1},   {3, 0},  {3, -1},  {2, -2},  {1, -3},
                                {0, -3}, {-1, -3}, {-2, -2}, {-3, -1}, {-3, 0}, {-3, 1}, {-2, 2}, {-1, 3}};
constexpr int kRadius = 3;
// A corner needs this many contiguous circle pixels all brighter or all darker than the centre.
constexpr int kArc = 9;
// Pixels whose strength one AVX2 pass computes.
constexpr int kLanes = 32;

void require_inside(const cv::Mat &level, const cv::Rect &cell) {
    require(level.type() == CV_8UC1, "fast_in_cell: the level must be 8-bit gray");
    require(cell.x >= kRadius && cell.y >= kRadius && cell.x + cell.width + kRadius <= level.cols &&
                cell.y + cell.height + kRadius <= level.rows,
            "fast_in_cell: the cell must lie 3 pixels inside the level");
}

void fast_in_cell_opencv(const cv::Mat &level, const cv::Rect &cell, int threshold, std::vector<cv::KeyPoint> &out) {
    const cv::Rect window(cell.x - kRadius, cell.y - kRadius, cell.width + 2 * kRadius, cell.height + 2 * kRadius);
    std::vector<cv::KeyPoint> found;
    cv::FAST(level(window), found, threshold, true);
    for (cv::KeyPoint k : found) {
        k.pt += cv::Point2f(float(window.x), float(window.y));
        out.push_back(k);
    }
}

#if defined(__x86_64__)
struct CircleOffsets {
    int at[16];
    explicit CircleOffsets(size_t step) {
        for (int m = 0; m < 16; ++m) at[m] = kCircle[m][0] + kCircle[m][1] * int(step);
    }
};

// How far the pixel's circle clears it: the largest s such that nine contiguous circle pixels
// are all at least s brighter, or all at least s darker, than the centre (0 when there is none).
// FAST finds a corner at threshold t exactly where s > t, and scores it s - 1 (OpenCV's
// cornerScore: the largest threshold at which it is still a corner).
int strength(const uint8_t *centre, const CircleOffsets &circle) {
    const int v = centre[0];
    int best = 0;
    for (int k = 0; k < 16; ++k) {
        int darkest = 255, brightest = 0;
        for (int m = 0; m < kArc; ++m) {
            const int x = centre[circle.at[(k + m) % 16]];
            darkest = std::min(darkest, x);
            brightest = std::max(brightest, x);
        }
        best = std::max({best, v - brightest, darkest - v});
    }
    return best;
}

__attribute__((target("avx2"))) inline __m256i load_32(const uint8_t *bytes) {
    return _mm256_loadu_si256(reinterpret_cast<const __m256i *>(bytes));
}

// strength() of the 32 pixels from `centre` on: the darkest and brightest of each arc of nine
// from those of arcs of two, four and eight; all 16 arcs' bounds at once per pixel lane.
__attribute__((target("avx2"))) __m256i strengths_avx2(const uint8_t *centre, const CircleOffsets &circle) {
    __m256i ring[16], low[16], high[16], low2[16], high2[16];
    for (int m = 0; m < 16; ++m)
        ring[m] = load_32(centre + circle.at[m]);
    for (int k = 0; k < 16; ++k) {
        low[k] = _mm256_min_epu8(ring[k], ring[(k + 1) & 15]);
        high[k] = _mm256_max_epu8(ring[k], ring[(k + 1) & 15]);
    }
    for (int k = 0; k < 16; ++k) {
        low2[k] = _mm256_min_epu8(low[k], low[(k + 2) & 15]);
        high2[k] = _mm256_max_epu8(high[k], high[(k + 2) & 15]);
    }
    __m256i darkest_arc = _mm256_setzero_si256(), brightest_arc = _mm256_set1_epi8(-1);
    for (int k = 0; k < 16; ++k) {
        const __m256i low8 = _mm256_min_epu8(low2[k], low2[(k + 4) & 15]);
        const __m256i high8 = _mm256_max_epu8(high2[k], high2[(k + 4) & 15]);
        // Of each arc of nine: its darkest pixel, its brightest; the brightest of the darkest
        // (an arc all brighter than the centre) and the darkest of the brightest (all darker).
        darkest_arc = _mm256_max_epu8(darkest_arc, _mm256_min_epu8(low8, ring[(k + 8) & 15]));
        brightest_arc = _mm256_min_epu8(brightest_arc, _mm256_max_epu8(high8, ring[(k + 8) & 15]));
    }
    const __m256i v = load_32(centre);
    return _mm256_max_epu8(_mm256_subs_epu8(v, brightest_arc), _mm256_subs_epu8(darkest_arc, v));
}

// False when none of the 32 pixels from `centre` on can be a corner: nine contiguous circle
// pixels include two neighbouring ones of the four at right angles (0, 4, 8, 12), so a corner
// has such a pair both brighter, or both darker, than the centre by `above_threshold` or more.
__attribute__((target("avx2"))) bool may_hold_corners_avx2(const uint8_t *centre, const CircleOffsets &circle,
                                                            __m256i above_threshold) {
    const __m256i v = load_32(centre);
    __m256i bright[4], dark[4];
    for (int q = 0; q < 4; ++q) {
        const __m256i x = load_32(centre + circle.at[4 * q]);
        const __m256i up = _mm256_subs_epu8(x, v), down = _mm256_subs_epu8(v, x);
        bright[q] = _mm256_cmpeq_epi8(_mm256_max_epu8(up, above_threshold), up);
        dark[q] = _mm256_cmpeq_epi8(_mm256_max_epu8(down, above_threshold), down);
    }
    __m256i any = _mm256_setzero_si256();
    for (int q = 0; q < 4; ++q)
        any = _mm256_or_si256(any, _mm256_or_si256(_mm256_and_si256(bright[q], bright[(q + 1) & 3]),
                                                   _mm256_and_si256(dark[q], dark[(q + 1) & 3])));
    return !_mm256_testz_si256(any, any);
}

// Lanes 0 ... count - 1 set.
__attribute__((target("avx2"))) __m256i first_lanes(int count) {
    alignas(32) static const int8_t ramp[32] = {0,  1,  2,  3,  4,  5,  6,  7,  8,  9,  10, 11, 12, 13, 14, 15,
                                                16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31};
    return _mm256_cmpgt_epi8(_mm256_set1_epi8(int8_t(count)), _mm256_load_si256(reinterpret_cast<const __m256i *>(ramp)));
}

// The scores of `width` pixels from `centre` on into `scored` (0 where not a corner at
// `threshold`, below 255), 32 at a time; the row's reads end before `end`.
__attribute__((target("avx2"))) void score_row_avx2(const uint8_t *centre, const uint8_t *end, int width,
                                                     const CircleOffsets &circle, int threshold, uint8_t *scored) {
    const __m256i above_threshold = _mm256_set1_epi8(int8_t(threshold + 1));
    const __m256i one = _mm256_set1_epi8(1);
    for (int c = 0; c < width; c += kLanes) {
        if (centre + c + kLanes + kRadius > end) {
            for (int i = c; i < width; ++i) {
                const int s = strength(centre + i, circle);
                scored[i] = s > threshold ? uint8_t(s - 1) : 0;
            }
            return;
        }
        if (!may_hold_corners_avx2(centre + c, circle, above_threshold)) {
            _mm256_storeu_si256(reinterpret_cast<__m256i *>(scored + c), _mm256_setzero_si256());
            continue;
        }
        const __m256i s = strengths_avx2(centre + c, circle);
        const __m256i corner = _mm256_cmpeq_epi8(_mm256_max_epu8(s, above_threshold), s);
        __m256i score = _mm256_and_si256(_mm256_subs_epu8(s, one), corner);
        if (width - c < kLanes) score = _mm256_and_si256(score, first_lanes(width - c));
        _mm256_storeu_si256(reinterpret_cast<__m256i *>(scored + c), score);
    }
}

// Corners of one row of scores (`here`, between the rows `above` and `below`, all with a zero
// before the first and after the last of `width`): the scores above all eight neighbours'.
__attribute__((target("avx2"))) void keep_maxima_avx2(const uint8_t *above, const uint8_t *here, const uint8_t *below,
                                                       int width, float x0, float y, std::vector<cv::KeyPoint> &out) {
    for (int c = 0; c < width; c += kLanes) {
        const __m256i s = load_32(here + c);
        // s beats a neighbour n where s - n, saturated at 0, is not 0.
        __m256i least = _mm256_subs_epu8(s, load_32(here + c - 1));
        for (const uint8_t *n : {here + c + 1, above + c - 1, above + c, above + c + 1, below + c - 1, below + c,
                                 below + c + 1})
            least = _mm256_min_epu8(least, _mm256_subs_epu8(s, load_32(n)));
        uint32_t maxima = ~uint32_t(_mm256_movemask_epi8(_mm256_cmpeq_epi8(least, _mm256_setzero_si256())));
        if (width - c < kLanes) maxima &= (uint32_t(1) << (width - c)) - 1;
        for (; maxima != 0; maxima &= maxima - 1) {
            const int i = c + __builtin_ctz(maxima);
            out.emplace_back(cv::Point2f(x0 + float(i), y), 7.f, -1.f, float(here[i]));
        }
    }
}

// The corners of `cell` from strength() of each of its pixels, scored and suppressed as cv::FAST
// does: scores in a grid with a ring of zeros around the cell (FAST's window ends there; the
// grid's rows are padded for whole vectors), a corner kept when its score is above all eight
// neighbours'.
void fast_in_cell_own(const cv::Mat &level, const cv::Rect &cell, int threshold, std::vector<uint8_t> &scores,
                      std::vector<cv::KeyPoint> &out) {
    threshold = std::clamp(threshold, 0, 255);
    if (threshold == 255) return; // no circle clears its centre by more than 255
    const CircleOffsets circle(level.step[0]);
    const int stride = cell.width + 2 + kLanes;
    scores.assign(size_t(stride * (cell.height + 2)), 0);
    for (int r = 0; r < cell.height; ++r) {
        const uint8_t *row = level.ptr<uint8_t>(cell.y + r);
        score_row_avx2(row + cell.x, row + level.cols, cell.width, circle, threshold,
                       scores.data() + (r + 1) * stride + 1);
    }
    for (int r = 0; r < cell.height; ++r) {
        const uint8_t *above = scores.data() + r * stride + 1;
        keep_maxima_avx2(above, above + stride, above + 2 * stride, cell.width, float(cell.x), float(cell.y + r), out);
    }
}

bool same_corners(const std::vector<cv::KeyPoint> &a, const std::vector<cv::KeyPoint> &b) {
    return std::equal(a.begin(), a.end(), b.begin(), b.end(), [](const cv::KeyPoint &p, const cv::KeyPoint &q) {
        return p.pt == q.pt && p.response == q.response && p.size == q.size && p.angle == q.angle &&
               p.octave == q.octave && p.class_id == q.class_id;
    });
}

// Whether fast_in_cell_own finds what cv::FAST finds: on smoothed noise (thousands of corners at
// low thresholds), cells of several sizes, some ending within a vector's reach of the right edge.
bool own_reproduces_opencv() {
    cv::Mat noise(160, 300, CV_8UC1);
    cv::RNG random(0x0FA57);
    random.fill(noise, cv::RNG::UNIFORM, 0, 256);
    cv::GaussianBlur(noise, noise, cv::Size(5, 5), 1.0);
    std::vector<uint8_t> scores;
    std::vector<cv::KeyPoint> ours, theirs;
    size_t corners = 0;
    for (int threshold : {1, 7, 10, 20}) {
        for (int y = kRadius; y + 40 + kRadius <= noise.rows; y += 37) {
            for (int x = kRadius; x + kRadius < noise.cols; x += 41) {
                const cv::Rect cell(x, y, std::min(40, noise.cols - kRadius - x), 40 - (x % 7));
                ours.clear();
                theirs.clear();
                fast_in_cell_own(noise, cell, threshold, scores, ours);
                fast_in_cell_opencv(noise, cell, threshold, theirs);
                if (!same_corners(ours, theirs)) return false;
                corners += ours.size();
            }
        }
    }
    return corners > 1000;
}

bool own_is_exact() {
    static const bool exact = [] {
        if (!__builtin_cpu_supports("avx2")) return false;
        try {
            return own_reproduces_opencv();
        } catch (...) {
            return false;
        }
    }();
    return exact;
}
#endif

} // namespace

void fast_in_cell(const cv::Mat &level, const cv::Rect &cell, int threshold, bool opencv_only,
                  std::vector<uint8_t> &scores, std::vector<cv::KeyPoint> &out) {
    require_inside(level, cell);
    if (cell.empty()) return;
#if defined(__x86_64__)
    if (!opencv_only && own_is_exact()) {
        fast_in_cell_own(level, cell, threshold, scores, out);
        return;
    }
#endif
    fast_in_cell_opencv(level, cell, threshold, out);
}

} // namespace cs
