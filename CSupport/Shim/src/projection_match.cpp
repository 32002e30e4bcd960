// Matching by projection: once a homography places a reference in the frame, each of the
// reference's features is compared only with the frame features near where it lands.
#include "barrier.hpp"
#include "descriptors.hpp"

#include <algorithm>
#include <climits>
#include <cmath>
#include <vector>

namespace {

// Frame keypoints bucketed into square cells of a grid (counting sort: no per-cell vectors).
struct KeypointGrid {
    float cell = 1;
    int columns = 0, rows = 0;
    std::vector<uint32_t> start; // cell -> first entry in `order`, one past the end for the last
    std::vector<uint32_t> order; // keypoint indices, grouped by cell
    std::vector<uint32_t> next;  // scratch: the next free entry of each cell while sorting

    void build(const std::vector<cs_keypoint> &keypoints, float cell_size) {
        cell = cell_size;
        float max_x = 0, max_y = 0;
        for (const auto &k : keypoints) {
            max_x = std::max(max_x, k.x);
            max_y = std::max(max_y, k.y);
        }
        columns = int(max_x / cell) + 1;
        rows = int(max_y / cell) + 1;
        start.assign(size_t(columns) * rows + 1, 0);
        for (const auto &k : keypoints) ++start[cell_of(k.x, k.y) + 1];
        for (size_t c = 1; c < start.size(); ++c) start[c] += start[c - 1];
        order.resize(keypoints.size());
        next.assign(start.begin(), start.end() - 1);
        for (uint32_t i = 0; i < keypoints.size(); ++i) order[next[cell_of(keypoints[i].x, keypoints[i].y)]++] = i;
    }

    size_t cell_of(float x, float y) const {
        int cx = std::clamp(int(x / cell), 0, columns - 1);
        int cy = std::clamp(int(y / cell), 0, rows - 1);
        return size_t(cy) * columns + cx;
    }
};

struct Candidate {
    int32_t train = -1;
    int32_t distance = INT32_MAX;
    int32_t second = INT32_MAX;
};

} // namespace

extern "C" {

CS_POPCOUNT
cs_status cs_features_match_by_projection(const cs_features *train, const cs_features *query,
                                          const double *homography, float radius, float max_size_ratio, float ratio,
                                          int32_t max_distance, cs_match *out, size_t capacity, size_t *count,
                                          cs_error *error) {
    return cs::guard(error, [&] {
        cs::require(train && query && homography && out && count,
                    "cs_features_match_by_projection: NULL argument");
        cs::require(radius > 0 && max_size_ratio >= 1 && ratio > 0 && ratio <= 1,
                    "cs_features_match_by_projection: invalid options");
        cs::require_capacity(capacity, query->keypoints.size());
        cs::require_popcount();
        *count = 0;
        if (query->keypoints.empty()) return;
        // Per-thread scratch, so that a search per candidate reference allocates nothing.
        thread_local KeypointGrid grid;
        thread_local std::vector<Candidate> best_for_query;
        grid.build(query->keypoints, radius);
        best_for_query.assign(query->keypoints.size(), Candidate{});
        const double *h = homography;
        for (int32_t t = 0; t < int32_t(train->keypoints.size()); ++t) {
            const cs_keypoint &k = train->keypoints[t];
            double w = h[6] * k.x + h[7] * k.y + h[8];
            if (w <= 1e-9) continue;
            double u = (h[0] * k.x + h[1] * k.y + h[2]) / w;
            double v = (h[3] * k.x + h[4] * k.y + h[5]) / w;
            if (u < -radius || v < -radius || u > grid.columns * grid.cell + radius ||
                v > grid.rows * grid.cell + radius)
                continue;
            // The homography's local scale at the keypoint predicts its size in the frame.
            double jacobian =
                ((h[0] - u * h[6]) * (h[4] - v * h[7]) - (h[1] - u * h[7]) * (h[3] - v * h[6])) / (w * w);
            float expected_size = k.size * float(std::sqrt(std::abs(jacobian)));
            int cx0 = std::max(0, int((u - radius) / grid.cell));
            int cx1 = std::min(grid.columns - 1, int((u + radius) / grid.cell));
            int cy0 = std::max(0, int((v - radius) / grid.cell));
            int cy1 = std::min(grid.rows - 1, int((v + radius) / grid.cell));
            int32_t nearest = -1, distance = INT32_MAX, second = INT32_MAX;
            const cs::Descriptor &d = train->descriptors[t];
            for (int cy = cy0; cy <= cy1; ++cy) {
                for (int cx = cx0; cx <= cx1; ++cx) {
                    size_t c = size_t(cy) * grid.columns + cx;
                    for (uint32_t e = grid.start[c]; e < grid.start[c + 1]; ++e) {
                        uint32_t q = grid.order[e];
                        const cs_keypoint &f = query->keypoints[q];
                        float dx = f.x - float(u), dy = f.y - float(v);
                        if (dx * dx + dy * dy > radius * radius) continue;
                        if (f.size > expected_size * max_size_ratio || f.size * max_size_ratio < expected_size) continue;
                        int32_t dist = cs::hamming(d, query->descriptors[q]);
                        if (dist < distance) {
                            second = distance;
                            distance = dist;
                            nearest = int32_t(q);
                        } else if (dist < second) {
                            second = dist;
                        }
                    }
                }
            }
            if (nearest < 0 || distance > max_distance || !(float(distance) < ratio * float(second))) continue;
            Candidate &slot = best_for_query[nearest];
            if (distance < slot.distance) slot = {t, distance, std::min(second, slot.distance)};
        }
        size_t n = 0;
        for (int32_t q = 0; q < int32_t(best_for_query.size()); ++q) {
            const Candidate &c = best_for_query[q];
            if (c.train >= 0) out[n++] = {q, 0, c.train, c.distance, c.second};
        }
        *count = n;
    });
}

} // extern "C"
