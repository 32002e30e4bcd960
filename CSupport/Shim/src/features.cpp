#include "barrier.hpp"
#include "descriptors.hpp"

#include <opencv2/features2d.hpp>

#include <memory>
#include <vector>

namespace {

constexpr size_t descriptor_bytes = sizeof(cs::Descriptor);

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
        cs::require(options->max_features > 0 && options->levels > 0 && options->scale_factor > 1.0f &&
                        options->first_level >= 0 && options->first_level < options->levels &&
                        (options->ranking == CS_RANKING_HARRIS || options->ranking == CS_RANKING_FAST),
                    "cs_features_detect: invalid options");
        *out = nullptr;
        auto orb = cv::ORB::create(options->max_features, options->scale_factor, options->levels,
                                   options->edge_threshold, options->first_level, 2,
                                   options->ranking == CS_RANKING_FAST ? cv::ORB::FAST_SCORE : cv::ORB::HARRIS_SCORE, 31,
                                   options->fast_threshold);
        std::vector<cv::KeyPoint> keypoints;
        cv::Mat descriptors;
        orb->detectAndCompute(gray->mat, cv::noArray(), keypoints, descriptors);
        if (options->min_fast_threshold > 0 && options->min_fast_threshold < options->fast_threshold &&
            int(keypoints.size()) < options->max_features / 2) {
            orb->setFastThreshold(options->min_fast_threshold);
            orb->detectAndCompute(gray->mat, cv::noArray(), keypoints, descriptors);
        }
        auto result = std::make_unique<cs_features>();
        result->keypoints.reserve(keypoints.size());
        for (const auto &k : keypoints)
            result->keypoints.push_back({k.pt.x + 0.5f, k.pt.y + 0.5f, k.size, k.angle, k.response, k.octave});
        result->descriptors.resize(keypoints.size());
        if (!keypoints.empty()) {
            cs::require(descriptors.isContinuous() && descriptors.cols == int(descriptor_bytes),
                        "cs_features_detect: unexpected descriptor layout");
            std::memcpy(result->descriptors.data(), descriptors.data, keypoints.size() * descriptor_bytes);
        }
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
