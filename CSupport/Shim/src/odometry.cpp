#include "barrier.hpp"

#include <opencv2/rgbd/depth.hpp>

#include <cmath>
#include <cstring>
#include <limits>

struct cs_odometry {
    cv::Ptr<cv::rgbd::Odometry> odometry;
};

struct cs_odometry_frame {
    cv::Ptr<cv::rgbd::OdometryFrame> frame;
};

extern "C" {

cs_status cs_odometry_create(const double intrinsics[4], int32_t kind, cs_odometry **out, cs_error *error) {
    return cs::guard(error, [&] {
        cs::require(intrinsics != nullptr && out != nullptr, "cs_odometry_create: NULL argument");
        cs::require(kind >= 0 && kind <= 2, "cs_odometry_create: kind is 0 (RGB-D), 1 (ICP) or 2 (RGB-D + ICP)");
        *out = nullptr;
        // The shim's pixel centres sit at +0.5; OpenCV's at integers.
        cv::Mat k = (cv::Mat_<float>(3, 3) << intrinsics[0], 0, intrinsics[2] - 0.5, 0, intrinsics[1],
                     intrinsics[3] - 0.5, 0, 0, 1);
        cv::Ptr<cv::rgbd::Odometry> odometry;
        if (kind == 0) odometry = cv::rgbd::RgbdOdometry::create(k);
        else if (kind == 1) odometry = cv::rgbd::ICPOdometry::create(k);
        else odometry = cv::rgbd::RgbdICPOdometry::create(k);
        *out = new cs_odometry{odometry};
    });
}

void cs_odometry_destroy(cs_odometry *odometry) { delete odometry; }

cs_status cs_odometry_configure(cs_odometry *odometry, const int32_t *iterations, int32_t levels,
                                double max_translation, double max_rotation_degrees, cs_error *error) {
    return cs::guard(error, [&] {
        cs::require(odometry && iterations, "cs_odometry_configure: NULL argument");
        cs::require(levels > 0 && levels <= 8, "cs_odometry_configure: 1 to 8 pyramid levels");
        cs::require(max_translation > 0 && max_rotation_degrees > 0,
                    "cs_odometry_configure: the largest motion must be positive");
        cv::Mat counts(levels, 1, CV_32SC1);
        for (int32_t l = 0; l < levels; ++l) {
            cs::require(iterations[l] > 0, "cs_odometry_configure: each level needs an iteration");
            counts.at<int>(l) = iterations[l];
        }
        const auto limit = [&](auto &o) {
            o.setIterationCounts(counts);
            o.setMaxTranslation(max_translation);
            o.setMaxRotation(max_rotation_degrees);
        };
        // The photometric term's gradient threshold is per level too: OpenCV's default, 10.
        const cv::Mat gradients(levels, 1, CV_32FC1, cv::Scalar(10));
        cv::rgbd::Odometry *o = odometry->odometry.get();
        if (auto *rgbd = dynamic_cast<cv::rgbd::RgbdOdometry *>(o)) {
            limit(*rgbd);
            rgbd->setMinGradientMagnitudes(gradients);
        } else if (auto *both = dynamic_cast<cv::rgbd::RgbdICPOdometry *>(o)) {
            limit(*both);
            both->setMinGradientMagnitudes(gradients);
        } else if (auto *icp = dynamic_cast<cv::rgbd::ICPOdometry *>(o)) {
            limit(*icp);
        }
    });
}

cs_status cs_odometry_frame_create(const uint8_t *gray, const float *depth, int32_t width, int32_t height,
                                   cs_odometry_frame **out, cs_error *error) {
    return cs::guard(error, [&] {
        cs::require(gray && depth && out, "cs_odometry_frame_create: NULL argument");
        cs::require(width > 0 && height > 0, "cs_odometry_frame_create: width and height must be positive");
        *out = nullptr;
        cv::Mat image(height, width, CV_8UC1);
        std::memcpy(image.data, gray, size_t(width) * size_t(height));
        cv::Mat metres(height, width, CV_32FC1);
        for (int32_t y = 0; y < height; ++y) {
            const float *row = depth + size_t(y) * size_t(width);
            float *target = metres.ptr<float>(y);
            for (int32_t x = 0; x < width; ++x)
                target[x] = row[x] > 0 && std::isfinite(row[x]) ? row[x] : std::numeric_limits<float>::quiet_NaN();
        }
        *out = new cs_odometry_frame{cv::rgbd::OdometryFrame::create(image, metres, cv::Mat(), cv::Mat(), -1)};
    });
}

void cs_odometry_frame_destroy(cs_odometry_frame *frame) { delete frame; }

cs_status cs_odometry_compute(cs_odometry *odometry, cs_odometry_frame *from, cs_odometry_frame *to,
                              const double initial[16], double motion[16], int32_t *tracked, cs_error *error) {
    return cs::guard(error, [&] {
        cs::require(odometry && from && to && motion && tracked, "cs_odometry_compute: NULL argument");
        cs::require(from != to, "cs_odometry_compute: a frame's motion to itself");
        *tracked = 0;
        cv::Mat guess;
        if (initial) guess = cv::Mat(4, 4, CV_64FC1, const_cast<double *>(initial)).clone();
        cv::Mat rt;
        // The frames keep their pyramids (OpenCV's frame cache), so a frame used again costs only
        // the iterations.
        if (odometry->odometry->compute(from->frame, to->frame, rt, guess) && cv::checkRange(rt)) {
            for (int i = 0; i < 16; ++i) motion[i] = rt.at<double>(i / 4, i % 4);
            *tracked = 1;
        }
    });
}

} // extern "C"
