#include "barrier.hpp"

#include <opencv2/rgbd/depth.hpp>

#include <cmath>

struct cs_odometry {
    cv::Ptr<cv::rgbd::Odometry> odometry;
    cv::Ptr<cv::rgbd::OdometryFrame> previous;
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
        *out = new cs_odometry{odometry, nullptr};
    });
}

void cs_odometry_destroy(cs_odometry *odometry) { delete odometry; }

cs_status cs_odometry_track(cs_odometry *odometry, const uint8_t *gray, const float *depth, int32_t width,
                            int32_t height, double motion[16], int32_t *tracked, cs_error *error) {
    return cs::guard(error, [&] {
        cs::require(odometry && gray && depth && motion && tracked, "cs_odometry_track: NULL argument");
        cs::require(width > 0 && height > 0, "cs_odometry_track: width and height must be positive");
        *tracked = 0;
        cv::Mat image(height, width, CV_8UC1, const_cast<uint8_t *>(gray));
        cv::Mat metres(height, width, CV_32FC1);
        for (int32_t y = 0; y < height; ++y) {
            for (int32_t x = 0; x < width; ++x) {
                float d = depth[size_t(y) * size_t(width) + size_t(x)];
                metres.at<float>(y, x) = d > 0 && std::isfinite(d) ? d : std::numeric_limits<float>::quiet_NaN();
            }
        }
        cv::Ptr<cv::rgbd::OdometryFrame> frame =
            cv::rgbd::OdometryFrame::create(image.clone(), metres, cv::Mat(), cv::Mat(), -1);
        if (odometry->previous) {
            cv::Mat rt;
            if (odometry->odometry->compute(odometry->previous, frame, rt)) {
                for (int i = 0; i < 16; ++i) motion[i] = rt.at<double>(i / 4, i % 4);
                *tracked = 1;
            }
        }
        odometry->previous = frame;
    });
}

} // extern "C"
