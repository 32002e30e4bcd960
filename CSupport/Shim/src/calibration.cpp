#include "barrier.hpp"

#include <opencv2/calib3d.hpp>
#include <opencv2/core/persistence.hpp>
#include <opencv2/imgproc.hpp>

#include <memory>
#include <string>

cs_status cs_calibration_read(const char *path, double intrinsics[4], double *distortion, size_t capacity,
                              size_t *distortion_count, int32_t *width, int32_t *height, cs_error *error) {
    return cs::guard(error, [&] {
        cs::require(path && intrinsics && distortion_count && width && height, "cs_calibration_read: NULL argument");
        const std::string name(path);
        cv::FileStorage storage;
        try {
            storage.open(name, cv::FileStorage::READ);
        } catch (const cv::Exception &) {
            throw cs::Failure(CS_DECODE_FAILED, name + " is not an OpenCV calibration file (YAML, XML or JSON)");
        }
        if (!storage.isOpened()) throw cs::Failure(CS_DECODE_FAILED, name + " is not an OpenCV calibration file (YAML, XML or JSON)");
        cv::Mat camera, coefficients;
        try {
            storage["camera_matrix"] >> camera;
            storage["distortion_coefficients"] >> coefficients;
        } catch (const cv::Exception &) {
            throw cs::Failure(CS_DECODE_FAILED, name + ": camera_matrix or distortion_coefficients is not a matrix");
        }
        if (camera.rows != 3 || camera.cols != 3)
            throw cs::Failure(CS_DECODE_FAILED, name + ": no 3x3 camera_matrix");
        const cv::FileNode w = storage["image_width"], h = storage["image_height"];
        if (!w.isInt() || !h.isInt() || int(w) <= 0 || int(h) <= 0)
            throw cs::Failure(CS_DECODE_FAILED, name + ": no image_width and image_height");
        camera.convertTo(camera, CV_64F);
        // OpenCV's principal point has pixel centres at integers; the shim's at +0.5.
        intrinsics[0] = camera.at<double>(0, 0);
        intrinsics[1] = camera.at<double>(1, 1);
        intrinsics[2] = camera.at<double>(0, 2) + 0.5;
        intrinsics[3] = camera.at<double>(1, 2) + 0.5;
        const size_t count = coefficients.empty() ? 0 : coefficients.total();
        if (!coefficients.empty() && (coefficients.rows != 1 && coefficients.cols != 1))
            throw cs::Failure(CS_DECODE_FAILED, name + ": distortion_coefficients is not a vector");
        if (count != 0 && count != 4 && count != 5 && count != 8 && count != 12 && count != 14)
            throw cs::Failure(CS_DECODE_FAILED, name + ": distortion_coefficients has " + std::to_string(count) +
                                                    " values (OpenCV's models have 4, 5, 8, 12 or 14)");
        cs::require_capacity(capacity, count);
        cv::Mat values;
        if (count) coefficients.reshape(1, 1).convertTo(values, CV_64F);
        for (size_t i = 0; i < count; ++i) distortion[i] = values.at<double>(0, int(i));
        *distortion_count = count;
        *width = int(w);
        *height = int(h);
    });
}

struct cs_undistorter {
    cv::Mat map1, map2;
    int width, height;
};

cs_status cs_undistorter_create(const double intrinsics[4], const double *distortion, size_t count, int32_t width,
                                int32_t height, cs_undistorter **out, cs_error *error) {
    return cs::guard(error, [&] {
        cs::require(intrinsics && out && (count == 0 || distortion), "cs_undistorter_create: NULL argument");
        cs::require(width > 0 && height > 0, "cs_undistorter_create: invalid size");
        *out = nullptr;
        const cv::Matx33d camera(intrinsics[0], 0, intrinsics[2] - 0.5, 0, intrinsics[1], intrinsics[3] - 0.5, 0, 0, 1);
        cv::Mat coefficients(1, int(count), CV_64F);
        for (size_t i = 0; i < count; ++i) coefficients.at<double>(0, int(i)) = distortion[i];
        auto undistorter = std::make_unique<cs_undistorter>();
        // The same camera matrix after undistortion: the intrinsics stay those of the calibration.
        cv::initUndistortRectifyMap(camera, coefficients, cv::noArray(), camera, cv::Size(width, height), CV_16SC2,
                                    undistorter->map1, undistorter->map2);
        undistorter->width = width;
        undistorter->height = height;
        *out = undistorter.release();
    });
}

void cs_undistorter_destroy(cs_undistorter *undistorter) { delete undistorter; }

cs_status cs_undistorter_apply(const cs_undistorter *undistorter, const cs_image *image, cs_image *out, cs_error *error) {
    return cs::guard(error, [&] {
        cs::require(undistorter && image && out, "cs_undistorter_apply: NULL argument");
        cs::require(image->mat.cols == undistorter->width && image->mat.rows == undistorter->height,
                    "cs_undistorter_apply: the image is not the calibration's size");
        cv::remap(image->mat, out->mat, undistorter->map1, undistorter->map2, cv::INTER_LINEAR, cv::BORDER_CONSTANT);
    });
}
