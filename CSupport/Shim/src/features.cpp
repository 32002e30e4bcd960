#include "barrier.hpp"
#include "cell_fast.hpp"
#include "descriptors.hpp"
#include "linear_resize.hpp"
#include "orb_describer.hpp"

#include <opencv2/features2d.hpp>
#include <opencv2/imgproc.hpp>

#include <algorithm>
#include <cmath>
#include <memory>
#include <vector>

namespace {

constexpr size_t descriptor_bytes = sizeof(cs::Descriptor);

void require_features(const cs_features *features) {
    cs::require(features != nullptr, "features are NULL");
}

// The spread selection's cells, in pixels of each pyramid level.
constexpr int kSpreadCell = 40;
// ORB's patch: 31 pixels across, its orientation from the intensity centroid of the disc in it.
constexpr int kPatchSize = 31;
constexpr int kHalfPatch = kPatchSize / 2;

// Half-widths of the disc's rows, symmetric about the diagonal as ORB's own.
std::vector<int> disc_rows() {
    std::vector<int> half_width(size_t(kHalfPatch) + 2);
    const int vmax = cvFloor(kHalfPatch * std::sqrt(2.f) / 2 + 1), vmin = cvCeil(kHalfPatch * std::sqrt(2.f) / 2);
    for (int v = 0; v <= vmax; ++v)
        half_width[size_t(v)] = cvRound(std::sqrt(double(kHalfPatch * kHalfPatch - v * v)));
    for (int v = kHalfPatch, u = 0; v >= vmin; --v) {
        while (half_width[size_t(u)] == half_width[size_t(u) + 1]) ++u;
        half_width[size_t(v)] = u++;
    }
    return half_width;
}

// The direction from a corner to the intensity centroid of the disc around it, degrees.
float centroid_angle(const cv::Mat &level, cv::Point2f at, const std::vector<int> &half_width) {
    const uchar *centre = level.ptr<uchar>(cvRound(at.y)) + cvRound(at.x);
    const int step = int(level.step1());
    int m01 = 0, m10 = 0;
    for (int u = -kHalfPatch; u <= kHalfPatch; ++u) m10 += u * centre[u];
    for (int v = 1; v <= kHalfPatch; ++v) {
        int difference = 0;
        for (int u = -half_width[size_t(v)]; u <= half_width[size_t(v)]; ++u) {
            const int below = centre[u + v * step], above = centre[u - v * step];
            difference += below - above;
            m10 += u * (below + above);
        }
        m01 += v * difference;
    }
    return cv::fastAtan2(float(m01), float(m10));
}

#if defined(__x86_64__)
// The disc's rows as byte masks over the 32 pixels from u = -15 to 16 (row v: |u| <= its
// half-width), and the weights u of those pixels.
struct DiscMasks {
    alignas(32) uint8_t rows[kHalfPatch + 1][32];
    alignas(32) int8_t weights[32];

    explicit DiscMasks(const std::vector<int> &half_width) {
        for (int v = 0; v <= kHalfPatch; ++v)
            for (int i = 0; i < 32; ++i)
                rows[v][i] = std::abs(i - kHalfPatch) <= half_width[size_t(v)] && i < kPatchSize ? 0xff : 0;
        for (int i = 0; i < 32; ++i) weights[i] = int8_t(i < kPatchSize ? i - kHalfPatch : 0);
    }
};

__attribute__((target("avx2"))) inline __m256i disc_row(const uchar *start, const uint8_t *mask) {
    return _mm256_and_si256(_mm256_loadu_si256(reinterpret_cast<const __m256i *>(start)),
                            _mm256_load_si256(reinterpret_cast<const __m256i *>(mask)));
}

// centroid_angle a row pair at a time (the same integer moments, so the same angle): each
// row's sum of u * pixel by maddubs, the rows' pixel sums by SAD. The corner is at least
// kHalfPatch + 1 pixels from the level's right edge, so the 32nd byte read is in the image.
__attribute__((target("avx2"))) float centroid_angle_avx2(const cv::Mat &level, cv::Point2f at, const DiscMasks &disc) {
    const uchar *start = level.ptr<uchar>(cvRound(at.y)) + cvRound(at.x) - kHalfPatch;
    const long step = long(level.step1());
    const __m256i weights = _mm256_load_si256(reinterpret_cast<const __m256i *>(disc.weights));
    const __m256i ones = _mm256_set1_epi16(1), zero = _mm256_setzero_si256();
    const __m256i middle = disc_row(start, disc.rows[0]);
    __m256i m10 = _mm256_madd_epi16(_mm256_maddubs_epi16(middle, weights), ones), m01 = zero;
    for (int v = 1; v <= kHalfPatch; ++v) {
        const __m256i below = disc_row(start + v * step, disc.rows[v]), above = disc_row(start - v * step, disc.rows[v]);
        // Each pair sum is at most 2 * 255 * 15, so two rows' still fit 16 bits.
        const __m256i moments = _mm256_add_epi16(_mm256_maddubs_epi16(below, weights), _mm256_maddubs_epi16(above, weights));
        m10 = _mm256_add_epi32(m10, _mm256_madd_epi16(moments, ones));
        const __m256i difference = _mm256_sub_epi64(_mm256_sad_epu8(below, zero), _mm256_sad_epu8(above, zero));
        m01 = _mm256_add_epi64(m01, _mm256_mul_epi32(difference, _mm256_set1_epi64x(v)));
    }
    alignas(32) int32_t m10_lanes[8];
    alignas(32) int64_t m01_lanes[4];
    _mm256_store_si256(reinterpret_cast<__m256i *>(m10_lanes), m10);
    _mm256_store_si256(reinterpret_cast<__m256i *>(m01_lanes), m01);
    int sum10 = 0;
    for (int32_t lane : m10_lanes) sum10 += lane;
    const int64_t sum01 = m01_lanes[0] + m01_lanes[1] + m01_lanes[2] + m01_lanes[3];
    return cv::fastAtan2(float(sum01), float(sum10));
}
#endif

// Sets each corner's angle.
void orient(const cv::Mat &level, std::vector<cv::KeyPoint> &corners) {
    static const std::vector<int> half_width = disc_rows();
#if defined(__x86_64__)
    static const bool avx2 = __builtin_cpu_supports("avx2");
    static const DiscMasks disc(half_width);
    if (avx2) {
        for (auto &k : corners) k.angle = centroid_angle_avx2(level, k.pt, disc);
        return;
    }
#endif
    for (auto &k : corners) k.angle = centroid_angle(level, k.pt, half_width);
}

// A level's grid of kSpreadCell-pixel cells.
struct CellGrid {
    int columns, rows;

    explicit CellGrid(cv::Size size)
        : columns((size.width + kSpreadCell - 1) / kSpreadCell), rows((size.height + kSpreadCell - 1) / kSpreadCell) {}

    size_t count() const { return size_t(columns * rows); }

    size_t cell(cv::Point2f p) const {
        const int column = std::min(columns - 1, int(p.x) / kSpreadCell), row = std::min(rows - 1, int(p.y) / kSpreadCell);
        return size_t(row * columns + column);
    }
};

// Stronger first; equal scores in a fixed order.
struct Stronger {
    const std::vector<cv::KeyPoint> &corners;
    bool operator()(uint32_t a, uint32_t b) const {
        return corners[a].response > corners[b].response || (corners[a].response == corners[b].response && a < b);
    }
};

// FAST corners of `level` at `threshold`, and at `weak_threshold` as well within the cells that
// have fewer than `share` at `threshold`; none within `border` pixels of the edge.
void spread_corners(const cv::Mat &level, int threshold, int weak_threshold, size_t share, int border,
                    bool opencv_only, std::vector<cv::KeyPoint> &corners) {
    // FAST over the part of the level where corners are kept, and one pixel more, whose scores
    // the non-maximum suppression of the outermost kept corners compares with (FAST reads 3
    // pixels around a corner): the same corners as over the whole level, from ~20 % fewer pixels.
    const int margin = std::max(0, border - 4);
    const cv::Rect kept_part(margin, margin, level.cols - 2 * margin, level.rows - 2 * margin);
    corners.clear();
    if (!kept_part.empty()) cv::FAST(level(kept_part), corners, threshold, true);
    for (auto &k : corners) k.pt += cv::Point2f(float(margin), float(margin));
    cv::KeyPointsFilter::runByImageBorder(corners, level.size(), border);
    if (weak_threshold <= 0 || weak_threshold >= threshold) return;
    const CellGrid grid(level.size());
    std::vector<size_t> found(grid.count(), 0);
    for (const auto &k : corners) ++found[grid.cell(k.pt)];
    std::vector<cv::KeyPoint> weak;
    std::vector<uint8_t> scratch;
    // FAST's circle reaches 3 pixels around a corner.
    const int inset = std::max(border, 3);
    const cv::Rect inner(inset, inset, level.cols - 2 * inset, level.rows - 2 * inset);
    for (int row = 0; row < grid.rows; ++row)
        for (int column = 0; column < grid.columns; ++column) {
            if (found[size_t(row * grid.columns + column)] >= share) continue;
            const cv::Rect cell = cv::Rect(column * kSpreadCell, row * kSpreadCell, kSpreadCell, kSpreadCell) & inner;
            if (cell.empty()) continue;
            weak.clear();
            cs::fast_in_cell(level, cell, weak_threshold, opencv_only, scratch, weak);
            for (const cv::KeyPoint &k : weak)
                if (k.response < float(threshold)) corners.push_back(k);
        }
}

// Keeps `quota` of `corners` (FAST-scored, in a level of `size`): `spread` of the quota in
// rounds over the cells, each round every cell's next strongest (strongest first within a
// round), then the strongest of the rest.
void keep_spread(std::vector<cv::KeyPoint> &corners, size_t quota, float spread, cv::Size size) {
    if (corners.size() <= quota) return;
    const CellGrid grid(size);
    const Stronger stronger{corners};
    // Corners by cell (a counting sort).
    std::vector<uint32_t> first(grid.count() + 1, 0), by_cell(corners.size());
    for (const auto &k : corners) ++first[grid.cell(k.pt) + 1];
    for (size_t c = 1; c < first.size(); ++c) first[c] += first[c - 1];
    std::vector<uint32_t> fill(first.begin(), first.end() - 1);
    for (uint32_t i = 0; i < corners.size(); ++i) by_cell[fill[grid.cell(corners[i].pt)]++] = i;
    std::vector<char> kept(corners.size(), 0);
    const size_t spread_quota = std::min(quota, size_t(std::lround(double(spread) * double(quota))));
    // The rounds rarely go deeper than an even share per cell: ranking that deep first saves
    // sorting whole cells (the rest is sorted only if the rounds get there).
    const uint32_t ranked = uint32_t((spread_quota + grid.count() - 1) / grid.count());
    for (size_t c = 0; c < grid.count(); ++c) {
        const auto begin = by_cell.begin() + first[c], end = by_cell.begin() + first[c + 1];
        std::partial_sort(begin, begin + std::min<long>(ranked, end - begin), end, stronger);
    }
    size_t count = 0;
    std::vector<uint32_t> round;
    for (uint32_t rank = 0; count < spread_quota; ++rank) {
        if (rank == ranked)
            for (size_t c = 0; c < grid.count(); ++c)
                if (first[c] + ranked < first[c + 1])
                    std::sort(by_cell.begin() + first[c] + ranked, by_cell.begin() + first[c + 1], stronger);
        round.clear();
        for (size_t c = 0; c < grid.count(); ++c)
            if (first[c] + rank < first[c + 1]) round.push_back(by_cell[first[c] + rank]);
        if (round.empty()) break;
        const size_t take = std::min(round.size(), spread_quota - count);
        std::partial_sort(round.begin(), round.begin() + long(take), round.end(), stronger);
        for (size_t i = 0; i < take; ++i) kept[round[i]] = 1;
        count += take;
    }
    std::vector<uint32_t> rest;
    for (uint32_t i = 0; i < corners.size(); ++i)
        if (!kept[i]) rest.push_back(i);
    const size_t take = std::min(rest.size(), quota - count);
    std::nth_element(rest.begin(), rest.begin() + long(take), rest.end(), stronger);
    for (size_t i = 0; i < take; ++i) kept[rest[i]] = 1;
    size_t next = 0;
    for (uint32_t i = 0; i < corners.size(); ++i)
        if (kept[i]) corners[next++] = corners[i];
    corners.resize(next);
}

// FAST corners of the whole level, none within `border` pixels of its edge: what cv::FAST
// finds there (FAST over the part where corners are kept, as spread_corners), by the shim's own
// FAST, whose cost does not grow with the corners it finds. cv::FAST scores each candidate
// apart: over ORB's eight levels of the walk-through's frames (~10,000 corners at the finest)
// 7.2 ms median, of cv::ORB's 9.6.
void level_corners(const cv::Mat &level, int threshold, int border, bool opencv_only, std::vector<uint8_t> &scratch,
                   std::vector<cv::KeyPoint> &corners) {
    const int margin = std::max(0, border - 4);
    // FAST's circle reaches 3 pixels around a corner.
    const cv::Rect cell(margin + 3, margin + 3, level.cols - 2 * margin - 6, level.rows - 2 * margin - 6);
    corners.clear();
    if (cell.width > 0 && cell.height > 0) cs::fast_in_cell(level, cell, threshold, opencv_only, scratch, corners);
    cv::KeyPointsFilter::runByImageBorder(corners, level.size(), border);
}

// OpenCV's Harris measure of a corner, over the 7 x 7 block around it, from 3 x 3 Sobel
// derivatives, scaled and computed in the order cv::ORB computes it (so the same floats).
float harris_response(const cv::Mat &level, cv::Point2f at) {
    constexpr int kBlock = 7, kRadius = kBlock / 2;
    constexpr float kHarrisK = 0.04f;
    const float scale = 1.f / ((1 << 2) * kBlock * 255.f);
    const float scale_sq_sq = scale * scale * scale * scale;
    const long step = long(level.step1());
    const uchar *corner = level.ptr<uchar>(cvRound(at.y) - kRadius) + cvRound(at.x) - kRadius;
    int a = 0, b = 0, c = 0;
    for (int i = 0; i < kBlock; ++i)
        for (int j = 0; j < kBlock; ++j) {
            const uchar *p = corner + i * step + j;
            const int ix = (p[1] - p[-1]) * 2 + (p[-step + 1] - p[-step - 1]) + (p[step + 1] - p[step - 1]);
            const int iy = (p[step] - p[-step]) * 2 + (p[step - 1] - p[-step - 1]) + (p[step + 1] - p[-step + 1]);
            a += ix * ix;
            b += iy * iy;
            c += ix * iy;
        }
    return ((float)a * b - (float)c * c - kHarrisK * ((float)a + b) * ((float)a + b)) * scale_sq_sq;
}

// Keeps `quota` of a level's FAST corners as cv::ORB does: by FAST score; or, ranked by Harris,
// the best twice the quota by FAST score, then the quota by the Harris measure (ties at the
// bar kept, as KeyPointsFilter::retainBest keeps them).
void keep_as_orb(const cv::Mat &level, std::vector<cv::KeyPoint> &corners, size_t quota, int ranking) {
    if (ranking == CS_RANKING_FAST) {
        cv::KeyPointsFilter::retainBest(corners, int(quota));
        return;
    }
    cv::KeyPointsFilter::retainBest(corners, int(2 * quota));
    for (auto &k : corners) k.response = harris_response(level, k.pt);
    cv::KeyPointsFilter::retainBest(corners, int(quota));
}

// Oriented keypoints on the levels ORB would build, with ORB's share of features per level, and
// their ORB descriptors, computed level by level on this pyramid (what ORB given the keypoints
// would find, without building the pyramid again); in image coordinates. With `o.spread`, each
// level's corners are chosen by keep_spread; without, as cv::ORB chooses them (keep_as_orb), so
// that the result is cv::ORB's own, keypoint for keypoint and byte for byte. The descriptors are
// OrbDescriber's where it reproduces this OpenCV (the same bytes, faster), else, or when
// `o.opencv_only` asks for it, cv::ORB::compute's; the pyramid is resized likewise by
// resize_linear_exact or, with `o.opencv_only`, cv::resize.
void own_features(const cv::Mat &image, const cs_feature_options &o, std::vector<cv::KeyPoint> &keypoints,
                  std::vector<cs::Descriptor> &descriptors) {
    const float factor = 1.f / o.scale_factor;
    std::vector<size_t> quota(static_cast<size_t>(o.levels));
    float share = float(o.max_features) * (1 - factor) / (1 - std::pow(factor, float(o.levels)));
    size_t assigned = 0;
    for (size_t l = 0; l + 1 < quota.size(); ++l, share *= factor) {
        quota[l] = size_t(cvRound(share));
        assigned += quota[l];
    }
    quota.back() = size_t(std::max<long>(long(o.max_features) - long(assigned), 0));
    const cs::OrbDescriber *exact = o.opencv_only ? nullptr : cs::OrbDescriber::exact();
    const auto describer = exact ? nullptr
                                 : cv::ORB::create(o.max_features, o.scale_factor, 1, o.edge_threshold, 0, 2,
                                                   cv::ORB::FAST_SCORE, kPatchSize, o.fast_threshold);
    keypoints.clear();
    descriptors.clear();
    std::vector<cv::KeyPoint> corners;
    std::vector<uint8_t> fast_scratch;
    cv::Mat previous = image, level, scratch;
    for (int l = 0; l < o.levels; ++l) {
        const float scale = std::pow(o.scale_factor, float(l - o.first_level));
        // As ORB builds its pyramid: enlarged levels from the image, the others each from the last.
        if (l == o.first_level) level = image;
        else {
            const cv::Size size(cvRound(float(image.cols) / scale), cvRound(float(image.rows) / scale));
            if (o.opencv_only) cv::resize(previous, level, size, 0, 0, cv::INTER_LINEAR_EXACT);
            else cs::resize_linear_exact(previous, level, size);
        }
        if (l >= o.first_level) previous = level;
        // Spread features stay edge_threshold image pixels from the border (ORB's descriptor step
        // drops keypoints nearer it); ORB's own detection keeps edge_threshold level pixels.
        const int border = o.spread > 0 ? int(std::ceil(float(o.edge_threshold) * std::max(1.f, 1.f / scale)))
                                        : o.edge_threshold;
        // Neither this level nor the smaller ones have room for a keypoint.
        if (level.cols <= 2 * border || level.rows <= 2 * border) break;
        const size_t cell_share = size_t(std::ceil(double(o.spread) * double(quota[size_t(l)]) /
                                                   double(CellGrid(level.size()).count())));
        if (o.spread > 0) {
            spread_corners(level, o.fast_threshold, o.min_fast_threshold, cell_share, border, o.opencv_only, corners);
            keep_spread(corners, quota[size_t(l)], o.spread, level.size());
        } else {
            level_corners(level, o.fast_threshold, border, o.opencv_only, fast_scratch, corners);
            keep_as_orb(level, corners, quota[size_t(l)], o.ranking);
        }
        orient(level, corners);
        for (auto &k : corners) {
            k.size = float(kPatchSize);
            k.octave = 0;
        }
        if (corners.empty()) continue;
        if (exact) {
            descriptors.resize(descriptors.size() + corners.size());
            exact->describe(level, corners, scratch, descriptors.data() + descriptors.size() - corners.size());
        } else {
            describer->compute(level, corners, scratch);
            cs::require(scratch.isContinuous() && scratch.rows == int(corners.size()) &&
                            scratch.cols == int(descriptor_bytes),
                        "cs_features_detect: unexpected descriptor layout");
            const auto *rows = reinterpret_cast<const cs::Descriptor *>(scratch.data);
            descriptors.insert(descriptors.end(), rows, rows + corners.size());
        }
        for (cv::KeyPoint k : corners) {
            k.octave = l;
            k.size = float(kPatchSize) * scale;
            k.pt *= scale;
            keypoints.push_back(k);
        }
    }
}

} // namespace

extern "C" {

cs_status cs_features_detect(const cs_image *gray, const cs_feature_options *options, cs_features **out,
                             cs_error *error) {
    return cs::guard(error, [&] {
        cs::require(gray != nullptr && options != nullptr && out != nullptr, "cs_features_detect: NULL argument");
        cs::require(gray->mat.type() == CV_8UC1, "cs_features_detect: the image must be gray");
        cs::require(options->max_features > 0 && options->levels > 0 && options->scale_factor > 1.0f &&
                        options->first_level >= 0 && options->first_level < options->levels &&
                        (options->ranking == CS_RANKING_HARRIS || options->ranking == CS_RANKING_FAST) &&
                        options->spread >= 0 && options->spread <= 1 &&
                        (options->spread == 0 || options->ranking == CS_RANKING_FAST),
                    "cs_features_detect: invalid options");
        *out = nullptr;
        // ORB keeps no keypoint within edge_threshold of a level's border, so an image too small
        // for its largest level to hold one has none (and OpenCV's pyramid fails on a level it
        // rounds to nothing, as a 1-pixel-high image's).
        const double largest = std::pow(double(options->scale_factor), double(options->first_level));
        if (cvRound(double(std::min(gray->mat.cols, gray->mat.rows)) * largest) <= 2 * options->edge_threshold) {
            *out = new cs_features();
            return;
        }
        auto orb = cv::ORB::create(options->max_features, options->scale_factor, options->levels,
                                   options->edge_threshold, options->first_level, 2,
                                   options->ranking == CS_RANKING_FAST ? cv::ORB::FAST_SCORE : cv::ORB::HARRIS_SCORE,
                                   kPatchSize, options->fast_threshold);
        std::vector<cv::KeyPoint> keypoints;
        auto result = std::make_unique<cs_features>();
        if (options->spread > 0) {
            own_features(gray->mat, *options, keypoints, result->descriptors);
        } else if (!options->opencv_only) {
            own_features(gray->mat, *options, keypoints, result->descriptors);
            if (options->min_fast_threshold > 0 && options->min_fast_threshold < options->fast_threshold &&
                int(keypoints.size()) < options->max_features / 2) {
                cs_feature_options lower = *options;
                lower.fast_threshold = options->min_fast_threshold;
                own_features(gray->mat, lower, keypoints, result->descriptors);
            }
        } else {
            cv::Mat descriptors;
            orb->detectAndCompute(gray->mat, cv::noArray(), keypoints, descriptors);
            if (options->min_fast_threshold > 0 && options->min_fast_threshold < options->fast_threshold &&
                int(keypoints.size()) < options->max_features / 2) {
                orb->setFastThreshold(options->min_fast_threshold);
                orb->detectAndCompute(gray->mat, cv::noArray(), keypoints, descriptors);
            }
            result->descriptors.resize(keypoints.size());
            if (!keypoints.empty()) {
                cs::require(descriptors.isContinuous() && descriptors.cols == int(descriptor_bytes),
                            "cs_features_detect: unexpected descriptor layout");
                std::memcpy(result->descriptors.data(), descriptors.data, keypoints.size() * descriptor_bytes);
            }
        }
        result->keypoints.reserve(keypoints.size());
        for (const auto &k : keypoints)
            result->keypoints.push_back({k.pt.x + 0.5f, k.pt.y + 0.5f, k.size, k.angle, k.response, k.octave});
        *out = result.release();
    });
}

cs_status cs_features_create(const cs_keypoint *keypoints, const uint8_t *descriptors, size_t count,
                             cs_features **out, cs_error *error) {
    return cs::guard(error, [&] {
        cs::require(out != nullptr && (count == 0 || (keypoints && descriptors)), "cs_features_create: NULL argument");
        *out = nullptr;
        auto result = std::make_unique<cs_features>();
        result->keypoints.assign(keypoints, keypoints + count);
        result->descriptors.resize(count);
        if (count) std::memcpy(result->descriptors.data(), descriptors, count * descriptor_bytes);
        *out = result.release();
    });
}

void cs_features_destroy(cs_features *features) { delete features; }

cs_status cs_features_exact_describer_available(int32_t *out, cs_error *error) {
    return cs::guard(error, [&] {
        cs::require(out != nullptr, "cs_features_exact_describer_available: out is NULL");
        *out = cs::OrbDescriber::exact() != nullptr;
    });
}

cs_status cs_features_get_count(const cs_features *features, size_t *out, cs_error *error) {
    return cs::guard(error, [&] {
        require_features(features);
        cs::require(out != nullptr, "cs_features_get_count: out is NULL");
        *out = features->keypoints.size();
    });
}

cs_status cs_features_copy_keypoints(const cs_features *features, cs_keypoint *out, size_t capacity,
                                     cs_error *error) {
    return cs::guard(error, [&] {
        require_features(features);
        cs::require_capacity(capacity, features->keypoints.size());
        std::copy(features->keypoints.begin(), features->keypoints.end(), out);
    });
}

cs_status cs_features_copy_descriptors(const cs_features *features, uint8_t *out, size_t capacity,
                                       cs_error *error) {
    return cs::guard(error, [&] {
        require_features(features);
        size_t bytes = features->keypoints.size() * descriptor_bytes;
        cs::require_capacity(capacity, bytes);
        if (bytes) std::memcpy(out, features->descriptors.data(), bytes);
    });
}

} // extern "C"
