#include "barrier.hpp"

#include <opencv2/features2d.hpp>

#include <climits>
#include <vector>

struct cs_features {
    std::vector<cs_keypoint> keypoints; // shim pixel convention (pixel centres at +0.5)
    cv::Mat descriptors;                // count x 32 bytes, continuous
};

namespace {

constexpr int descriptor_bytes = 32;

void require_features(const cs_features *features) {
    cs::require(features != nullptr, "features are NULL");
}

} // namespace

extern "C" {

cs_status cs_features_detect(const cs_image *gray, const cs_feature_options *options, cs_features **out,
                             cs_error *error) {
    return cs::guard(error, [&] {
        cs::require(gray != nullptr && options != nullptr && out != nullptr, "cs_features_detect: NULL argument");
        cs::require(gray->mat.type() == CV_8UC1, "cs_features_detect: the image must be gray");
        cs::require(options->max_features > 0 && options->levels > 0 && options->scale_factor > 1.0f,
                    "cs_features_detect: invalid options");
        *out = nullptr;
        auto orb = cv::ORB::create(options->max_features, options->scale_factor, options->levels,
                                   options->edge_threshold, 0, 2, cv::ORB::HARRIS_SCORE, 31,
                                   options->fast_threshold);
        std::vector<cv::KeyPoint> keypoints;
        cv::Mat descriptors;
        orb->detectAndCompute(gray->mat, cv::noArray(), keypoints, descriptors);
        if (options->min_fast_threshold > 0 && options->min_fast_threshold < options->fast_threshold &&
            int(keypoints.size()) < options->max_features / 2) {
            orb->setFastThreshold(options->min_fast_threshold);
            orb->detectAndCompute(gray->mat, cv::noArray(), keypoints, descriptors);
        }
        auto result = new cs_features{};
        result->keypoints.reserve(keypoints.size());
        for (const auto &k : keypoints)
            result->keypoints.push_back({k.pt.x + 0.5f, k.pt.y + 0.5f, k.size, k.angle, k.response, k.octave});
        result->descriptors = descriptors.empty() ? cv::Mat(0, descriptor_bytes, CV_8U) : descriptors;
        *out = result;
    });
}

cs_status cs_features_create(const cs_keypoint *keypoints, const uint8_t *descriptors, size_t count,
                             cs_features **out, cs_error *error) {
    return cs::guard(error, [&] {
        cs::require(out != nullptr && (count == 0 || (keypoints && descriptors)), "cs_features_create: NULL argument");
        *out = nullptr;
        auto result = new cs_features{};
        result->keypoints.assign(keypoints, keypoints + count);
        result->descriptors = cv::Mat(int(count), descriptor_bytes, CV_8U);
        if (count) std::memcpy(result->descriptors.data, descriptors, count * descriptor_bytes);
        *out = result;
    });
}

void cs_features_destroy(cs_features *features) { delete features; }

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
        if (bytes) std::memcpy(out, features->descriptors.data, bytes);
    });
}

} // extern "C"

// ---- Matching ----

struct cs_matcher {
    std::vector<uint64_t> words;  // 4 words per training descriptor, all sets back to back
    std::vector<int32_t> set_of;  // per training descriptor
    std::vector<int32_t> index_in_set;
};

namespace {

constexpr size_t words_per_descriptor = descriptor_bytes / sizeof(uint64_t);

__attribute__((target("popcnt"))) inline int hamming_popcnt(const uint64_t *a, const uint64_t *b) {
    return __builtin_popcountll(a[0] ^ b[0]) + __builtin_popcountll(a[1] ^ b[1]) +
           __builtin_popcountll(a[2] ^ b[2]) + __builtin_popcountll(a[3] ^ b[3]);
}

struct Nearest {
    int32_t best = -1;
    int32_t distance = INT32_MAX;
    int32_t second = INT32_MAX;
};

// Brute force over contiguous descriptors; split out so the popcnt instruction is only
// used where the processor has it.
__attribute__((target("popcnt"))) Nearest nearest_popcnt(const std::vector<uint64_t> &words, const uint64_t *q) {
    Nearest n;
    size_t count = words.size() / words_per_descriptor;
    const uint64_t *t = words.data();
    for (size_t i = 0; i < count; ++i, t += words_per_descriptor) {
        int d = hamming_popcnt(q, t);
        if (d < n.second) {
            if (d < n.distance) {
                n.second = n.distance;
                n.distance = d;
                n.best = int32_t(i);
            } else {
                n.second = d;
            }
        }
    }
    return n;
}

Nearest nearest_portable(const std::vector<uint64_t> &words, const uint64_t *q) {
    Nearest n;
    size_t count = words.size() / words_per_descriptor;
    const uint64_t *t = words.data();
    for (size_t i = 0; i < count; ++i, t += words_per_descriptor) {
        int d = 0;
        for (size_t w = 0; w < words_per_descriptor; ++w) d += __builtin_popcountll(q[w] ^ t[w]);
        if (d < n.second) {
            if (d < n.distance) {
                n.second = n.distance;
                n.distance = d;
                n.best = int32_t(i);
            } else {
                n.second = d;
            }
        }
    }
    return n;
}

} // namespace

extern "C" {

cs_status cs_matcher_create(const cs_features *const *sets, size_t count, cs_matcher **out, cs_error *error) {
    return cs::guard(error, [&] {
        cs::require(out != nullptr && (count == 0 || sets != nullptr), "cs_matcher_create: NULL argument");
        *out = nullptr;
        auto matcher = new cs_matcher{};
        for (size_t s = 0; s < count; ++s) {
            const cs_features *set = sets[s];
            if (!set) {
                delete matcher;
                throw cs::Failure(CS_INVALID_ARGUMENT, "cs_matcher_create: a set is NULL");
            }
            size_t n = set->keypoints.size();
            size_t base = matcher->words.size();
            matcher->words.resize(base + n * words_per_descriptor);
            if (n) std::memcpy(matcher->words.data() + base, set->descriptors.data, n * descriptor_bytes);
            for (size_t i = 0; i < n; ++i) {
                matcher->set_of.push_back(int32_t(s));
                matcher->index_in_set.push_back(int32_t(i));
            }
        }
        *out = matcher;
    });
}

void cs_matcher_destroy(cs_matcher *matcher) { delete matcher; }

cs_status cs_matcher_match(const cs_matcher *matcher, const cs_features *query, float ratio, int32_t max_distance,
                           cs_match *out, size_t capacity, size_t *count, cs_error *error) {
    return cs::guard(error, [&] {
        cs::require(matcher != nullptr && count != nullptr, "cs_matcher_match: NULL argument");
        require_features(query);
        cs::require(ratio > 0 && ratio <= 1, "cs_matcher_match: ratio must be in (0, 1]");
        size_t queries = query->keypoints.size();
        cs::require_capacity(capacity, queries);
        static const bool has_popcnt = __builtin_cpu_supports("popcnt");
        uint64_t q[words_per_descriptor];
        size_t kept = 0;
        for (size_t i = 0; i < queries; ++i) {
            std::memcpy(q, query->descriptors.ptr(int(i)), descriptor_bytes);
            Nearest n = has_popcnt ? nearest_popcnt(matcher->words, q) : nearest_portable(matcher->words, q);
            if (n.best < 0 || n.distance > max_distance) continue;
            if (n.second != INT32_MAX && float(n.distance) >= ratio * float(n.second)) continue;
            out[kept++] = {int32_t(i), matcher->set_of[size_t(n.best)], matcher->index_in_set[size_t(n.best)],
                           n.distance, n.second};
        }
        *count = kept;
    });
}

} // extern "C"
