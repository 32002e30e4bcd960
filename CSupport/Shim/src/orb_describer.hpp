// OpenCV's ORB descriptors, the same bytes, for keypoints on a pyramid level the shim built.
#pragma once

#include "descriptors.hpp"

#include <opencv2/core.hpp>

#include <array>
#include <cstdint>
#include <vector>

namespace cs {

// cv::ORB::compute copies the level into a bordered buffer, blurs all of it (7 × 7 Gaussian,
// sigma 2) with OpenCV's general separable filter and rotates its 256 point pairs per keypoint in
// scalar code: about 4 ms a frame for image detection's features. This describer blurs with a
// dedicated 7-tap filter in the same float arithmetic (AVX2 and fused multiply-add, as OpenCV's
// filter runs on such processors) and rotates the pairs eight at a time in the same float
// arithmetic, so its descriptors are OpenCV's bit for bit. It holds no copy of OpenCV's sampling
// pattern: the pattern is read off OpenCV's ORB once per process, by describing probe images
// whose blurred values are known, and the result is checked against OpenCV's own descriptors of
// random keypoints on noise before it is used.
class OrbDescriber {
public:
    // The describer, or nullptr when this OpenCV's ORB could not be reproduced exactly on this
    // processor (then use cv::ORB::compute).
    static const OrbDescriber *exact();

    // Keypoints farther than this from every edge of the level can be described (pixels).
    int margin() const { return margin_; }

    // Descriptors of `keypoints` (level pixel coordinates, angle in degrees, 31-pixel patch),
    // each at least margin() from the level's edges. `blurred` is scratch space.
    void describe(const cv::Mat &level, const std::vector<cv::KeyPoint> &keypoints, cv::Mat &blurred,
                  Descriptor *out) const;

    // The level blurred as cv::ORB blurs it (7 × 7 Gaussian, sigma 2, reflected at the edges).
    void blur(const cv::Mat &level, cv::Mat &out) const;

private:
    OrbDescriber() = default;
    static OrbDescriber read_from_opencv(bool &ok);
    bool reproduces_opencv() const;
    void describe_blurred(const cv::Mat &blurred, const std::vector<cv::KeyPoint> &keypoints, Descriptor *out) const;

    // The 512 points of the 256 tests (test i compares points i and 256 + i), as floats for
    // rotation.
    alignas(32) std::array<float, 512> pattern_x_{};
    alignas(32) std::array<float, 512> pattern_y_{};
    // The blur's 7 taps, as OpenCV's GaussianBlur computes them.
    std::array<float, 7> kernel_{};
    int margin_ = 0;
};

} // namespace cs
