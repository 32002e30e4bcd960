#include "barrier.hpp"

#include <opencv2/calib3d.hpp>
#include <opencv2/imgproc.hpp>
#include <opencv2/video/tracking.hpp>

#include <algorithm>
#include <cmath>
#include <vector>

namespace {

// The shim's points have pixel centres at +0.5; OpenCV's at integers.
std::vector<cv::Point2f> to_opencv_points(const float *xy, size_t count) {
    std::vector<cv::Point2f> points(count);
    for (size_t i = 0; i < count; ++i) points[i] = {xy[2 * i] - 0.5f, xy[2 * i + 1] - 0.5f};
    return points;
}

// Whether some affine map through three of the `count` correspondences has `needed` of them
// within `threshold`, by trying every three. RANSAC (OpenCV's estimateAffine2D) draws its maps
// from such threes and reports the inliers of the best one it drew, so where none has enough
// it cannot find them either; with few matches (most of a wrong reference's candidates) this
// answers in a few microseconds, where RANSAC, having drawn no good three, runs its iterations
// out. The threshold is widened by a thousandth so that float rounding in OpenCV's inlier test
// never finds one this check missed.
bool affine_consensus_possible(const std::vector<cv::Point2f> &src, const std::vector<cv::Point2f> &dst,
                               double threshold, size_t needed) {
    const size_t count = src.size();
    if (needed <= 3) return count >= needed;
    const double limit = threshold * threshold * 1.002;
    for (size_t i = 0; i < count; ++i)
        for (size_t j = i + 1; j < count; ++j)
            for (size_t k = j + 1; k < count; ++k) {
                const double dx1 = src[j].x - src[i].x, dy1 = src[j].y - src[i].y;
                const double dx2 = src[k].x - src[i].x, dy2 = src[k].y - src[i].y;
                const double det = dx1 * dy2 - dx2 * dy1;
                if (det == 0) continue;
                const double du1 = dst[j].x - dst[i].x, du2 = dst[k].x - dst[i].x;
                const double dv1 = dst[j].y - dst[i].y, dv2 = dst[k].y - dst[i].y;
                const double a = (du1 * dy2 - du2 * dy1) / det, b = (du2 * dx1 - du1 * dx2) / det;
                const double d = (dv1 * dy2 - dv2 * dy1) / det, e = (dv2 * dx1 - dv1 * dx2) / det;
                const double c = dst[i].x - a * src[i].x - b * src[i].y;
                const double f = dst[i].y - d * src[i].x - e * src[i].y;
                size_t inliers = 0;
                for (size_t n = 0; n < count && inliers + (count - n) >= needed; ++n) {
                    const double u = a * src[n].x + b * src[n].y + c - dst[n].x;
                    const double v = d * src[n].x + e * src[n].y + f - dst[n].y;
                    if (u * u + v * v <= limit) ++inliers;
                }
                if (inliers >= needed) return true;
            }
    return false;
}

// Correspondences up to which affine_consensus_possible (count³/6 maps, each tested on all
// `count`) costs less than the RANSAC it may spare.
constexpr size_t kExhaustiveAffineCount = 18;

// 2D-3D correspondences and the camera matrix, moved to OpenCV's pixel convention.
struct PnPInput {
    std::vector<cv::Point3d> object;
    std::vector<cv::Point2d> image;
    cv::Matx33d camera;

    PnPInput(const double *object_points, const float *image_points, size_t count, const double intrinsics[4])
        : object(count), image(count),
          camera(intrinsics[0], 0, intrinsics[2] - 0.5, 0, intrinsics[1], intrinsics[3] - 0.5, 0, 0, 1) {
        for (size_t i = 0; i < count; ++i) {
            object[i] = {object_points[3 * i], object_points[3 * i + 1], object_points[3 * i + 2]};
            image[i] = {image_points[2 * i] - 0.5, image_points[2 * i + 1] - 0.5};
        }
    }
};

} // namespace

extern "C" {

cs_status cs_homography_estimate(const float *source, const float *destination, size_t count,
                                 const cs_homography_options *options, double homography[9], uint8_t *inliers,
                                 int32_t *found, cs_error *error) {
    return cs::guard(error, [&] {
        cs::require(options != nullptr && homography != nullptr && found != nullptr,
                    "cs_homography_estimate: NULL argument");
        cs::require(count == 0 || (source && destination), "cs_homography_estimate: NULL points");
        cs::require(options->threshold > 0 && options->confidence > 0 && options->confidence < 1 &&
                        options->max_iterations > 0 && options->min_inliers >= 0,
                    "cs_homography_estimate: invalid options");
        *found = 0;
        if (inliers) std::fill(inliers, inliers + count, uint8_t(0));
        const size_t needed = size_t(options->min_inliers);
        if (count < 4 || count < needed) return;
        // Homographies are invariant to the +0.5 convention only up to conjugation, so the
        // points are used as given: H maps shim pixels to shim pixels.
        std::vector<cv::Point2f> src(count), dst(count);
        for (size_t i = 0; i < count; ++i) {
            src[i] = {source[2 * i], source[2 * i + 1]};
            dst[i] = {destination[2 * i], destination[2 * i + 1]};
        }
        cv::Mat mask;
        cv::Mat h;
        if (options->method == CS_ROBUST_MAGSAC) {
            cv::UsacParams params;
            params.confidence = options->confidence;
            params.maxIterations = options->max_iterations;
            params.threshold = options->threshold;
            params.randomGeneratorState = int(options->seed & 0x7fffffff);
            params.sampler = cv::SAMPLING_UNIFORM;
            params.score = cv::SCORE_METHOD_MAGSAC;
            params.loMethod = cv::LOCAL_OPTIM_SIGMA;
            params.loIterations = 10;
            params.loSampleSize = 14;
            params.isParallel = false;
            h = cv::findHomography(src, dst, mask, params);
        } else if (options->method == CS_ROBUST_AFFINE) {
            if (count <= kExhaustiveAffineCount &&
                !affine_consensus_possible(src, dst, options->threshold, needed))
                return;
            cv::Mat affine = cv::estimateAffine2D(src, dst, mask, cv::RANSAC, options->threshold,
                                                  size_t(options->max_iterations), options->confidence, 10);
            if (!affine.empty()) {
                h = cv::Mat::eye(3, 3, CV_64F);
                affine.copyTo(h.rowRange(0, 2));
            }
        } else {
            // OpenCV's RANSAC seeds its own generator with a constant: deterministic as is.
            h = cv::findHomography(src, dst, cv::RANSAC, options->threshold, mask, options->max_iterations,
                                   options->confidence);
        }
        if (h.empty() || h.rows != 3 || h.cols != 3) return;
        h.convertTo(h, CV_64F);
        for (int i = 0; i < 9; ++i) homography[i] = h.at<double>(i / 3, i % 3);
        if (!std::all_of(homography, homography + 9, [](double v) { return std::isfinite(v); })) return;
        if ((mask.empty() ? 0 : size_t(cv::countNonZero(mask))) < needed) return;
        if (inliers && !mask.empty())
            for (size_t i = 0; i < count; ++i) inliers[i] = mask.at<uint8_t>(int(i)) ? 1 : 0;
        *found = 1;
    });
}

cs_status cs_optical_flow_track(const cs_image *previous, const cs_image *next, const float *previous_points,
                                float *next_points, size_t count, const cs_flow_options *options, uint8_t *tracked,
                                float *errors, cs_error *error) {
    return cs::guard(error, [&] {
        cs::require(previous && next && options && tracked, "cs_optical_flow_track: NULL argument");
        cs::require(previous->mat.type() == CV_8UC1 && next->mat.type() == CV_8UC1,
                    "cs_optical_flow_track: images must be gray");
        cs::require(options->window >= 3 && options->levels >= 0 && options->max_iterations > 0,
                    "cs_optical_flow_track: invalid options");
        if (count == 0) return;
        cs::require(previous_points && next_points, "cs_optical_flow_track: NULL points");
        auto from = to_opencv_points(previous_points, count);
        auto to = to_opencv_points(next_points, count);
        std::vector<uint8_t> status;
        std::vector<float> residuals;
        cv::calcOpticalFlowPyrLK(previous->mat, next->mat, from, to, status, residuals,
                                 cv::Size(options->window, options->window), options->levels,
                                 cv::TermCriteria(cv::TermCriteria::COUNT | cv::TermCriteria::EPS,
                                                  options->max_iterations, options->epsilon),
                                 cv::OPTFLOW_USE_INITIAL_FLOW, options->min_eigen_threshold);
        for (size_t i = 0; i < count; ++i) {
            next_points[2 * i] = to[i].x + 0.5f;
            next_points[2 * i + 1] = to[i].y + 0.5f;
            tracked[i] = status[i] ? 1 : 0;
            if (errors) errors[i] = residuals[i];
        }
    });
}

cs_status cs_corners_detect(const cs_image *gray, double quality, double min_distance, float *out, size_t capacity,
                            size_t *count, cs_error *error) {
    return cs::guard(error, [&] {
        cs::require(gray && count && (capacity == 0 || out), "cs_corners_detect: NULL argument");
        cs::require(gray->mat.type() == CV_8UC1, "cs_corners_detect: the image must be gray");
        cs::require(quality > 0 && quality < 1 && min_distance >= 0, "cs_corners_detect: invalid options");
        *count = 0;
        if (capacity == 0) return;
        std::vector<cv::Point2f> corners;
        cv::goodFeaturesToTrack(gray->mat, corners, int(capacity), quality, min_distance);
        if (!corners.empty())
            cv::cornerSubPix(gray->mat, corners, cv::Size(4, 4), cv::Size(-1, -1),
                             cv::TermCriteria(cv::TermCriteria::COUNT | cv::TermCriteria::EPS, 20, 0.03));
        for (size_t i = 0; i < corners.size(); ++i) {
            out[2 * i] = corners[i].x + 0.5f;
            out[2 * i + 1] = corners[i].y + 0.5f;
        }
        *count = corners.size();
    });
}

cs_status cs_pose_estimate_planar(const double *object_points, const float *image_points, size_t count,
                                  const double intrinsics[4], double rotation[9], double translation[3],
                                  double *rms_error, cs_error *error) {
    return cs::guard(error, [&] {
        cs::require(object_points && image_points && intrinsics && rotation && translation && rms_error,
                    "cs_pose_estimate_planar: NULL argument");
        cs::require(count >= 4, "cs_pose_estimate_planar: needs at least 4 points");
        const PnPInput input(object_points, image_points, count, intrinsics);
        const auto &object = input.object;
        const auto &image = input.image;
        const cv::Matx33d &k = input.camera;
        cv::Mat rvec, tvec;
        if (!cv::solvePnP(object, image, k, cv::noArray(), rvec, tvec, false, cv::SOLVEPNP_IPPE))
            throw cs::Failure(CS_INTERNAL, "planar pose estimation did not converge");
        cv::Matx33d r;
        cv::Rodrigues(rvec, r);
        for (int i = 0; i < 9; ++i) rotation[i] = r(i / 3, i % 3);
        for (int i = 0; i < 3; ++i) translation[i] = tvec.at<double>(i);
        std::vector<cv::Point2d> projected;
        cv::projectPoints(object, rvec, tvec, k, cv::noArray(), projected);
        double sum = 0;
        for (size_t i = 0; i < count; ++i) {
            double dx = projected[i].x - image[i].x, dy = projected[i].y - image[i].y;
            sum += dx * dx + dy * dy;
        }
        *rms_error = std::sqrt(sum / double(count));
    });
}

cs_status cs_pose_estimate_ransac(const double *object_points, const float *image_points, size_t count,
                                  const double intrinsics[4], const cs_pnp_options *options, double rotation[9],
                                  double translation[3], uint8_t *inliers, size_t *inlier_count,
                                  double *rms_error, int32_t *found, cs_error *error) {
    return cs::guard(error, [&] {
        cs::require(intrinsics && options && rotation && translation && inlier_count && rms_error && found,
                    "cs_pose_estimate_ransac: NULL argument");
        cs::require(count == 0 || (object_points && image_points), "cs_pose_estimate_ransac: NULL points");
        *found = 0;
        *inlier_count = 0;
        *rms_error = 0;
        if (inliers) std::fill(inliers, inliers + count, uint8_t(0));
        if (count < 6) return;
        const PnPInput input(object_points, image_points, count, intrinsics);
        const auto &object = input.object;
        const auto &image = input.image;
        const cv::Matx33d &k = input.camera;
        cv::Mat rvec, tvec;
        std::vector<int> sample_inliers;
        if (!cv::solvePnPRansac(object, image, k, cv::noArray(), rvec, tvec, false, options->max_iterations,
                                float(options->threshold), options->confidence, sample_inliers, cv::SOLVEPNP_AP3P) ||
            sample_inliers.size() < 6)
            return;
        std::vector<cv::Point3d> refine_object;
        std::vector<cv::Point2d> refine_image;
        for (int i : sample_inliers) {
            refine_object.push_back(object[size_t(i)]);
            refine_image.push_back(image[size_t(i)]);
        }
        cv::solvePnPRefineLM(refine_object, refine_image, k, cv::noArray(), rvec, tvec);
        if (!cv::checkRange(rvec) || !cv::checkRange(tvec)) return;
        std::vector<cv::Point2d> projected;
        cv::projectPoints(object, rvec, tvec, k, cv::noArray(), projected);
        cv::Matx33d r;
        cv::Rodrigues(rvec, r);
        const double threshold2 = options->threshold * options->threshold;
        double sum = 0;
        size_t n = 0;
        for (size_t i = 0; i < count; ++i) {
            const cv::Point3d &p = object[i];
            double z = r(2, 0) * p.x + r(2, 1) * p.y + r(2, 2) * p.z + tvec.at<double>(2);
            double dx = projected[i].x - image[i].x, dy = projected[i].y - image[i].y;
            double e2 = dx * dx + dy * dy;
            if (z <= 0 || e2 > threshold2) continue;
            if (inliers) inliers[i] = 1;
            sum += e2;
            ++n;
        }
        for (int i = 0; i < 9; ++i) rotation[i] = r(i / 3, i % 3);
        for (int i = 0; i < 3; ++i) translation[i] = tvec.at<double>(i);
        *inlier_count = n;
        *rms_error = n > 0 ? std::sqrt(sum / double(n)) : 0;
        *found = n >= 6 ? 1 : 0;
    });
}

} // extern "C"

namespace {

std::vector<cv::Point2d> to_points(const double *xy, size_t count) {
    std::vector<cv::Point2d> points(count);
    for (size_t i = 0; i < count; ++i) points[i] = {xy[2 * i], xy[2 * i + 1]};
    return points;
}

void copy_matrix(const cv::Mat &m, double *out) {
    cv::Mat d;
    m.convertTo(d, CV_64F);
    for (int i = 0; i < d.rows * d.cols; ++i) out[i] = d.at<double>(i / d.cols, i % d.cols);
}

}  // namespace

cs_status cs_essential_estimate(const double *first, const double *second, size_t count, double threshold,
                                double confidence, double essential[9], uint8_t *inliers, int32_t *found,
                                cs_error *error) {
    return cs::guard(error, [&] {
        cs::require(essential && found, "cs_essential_estimate: NULL argument");
        cs::require(count == 0 || (first && second), "cs_essential_estimate: NULL points");
        cs::require(threshold > 0 && confidence > 0 && confidence < 1, "cs_essential_estimate: invalid options");
        *found = 0;
        if (inliers) std::fill(inliers, inliers + count, uint8_t(0));
        if (count < 5) return;
        cv::Mat mask;
        // Normalized points: the identity camera (focal 1, principal point 0).
        cv::Mat e = cv::findEssentialMat(to_points(first, count), to_points(second, count), 1.0, cv::Point2d(0, 0),
                                         cv::RANSAC, confidence, threshold, mask);
        // Several solutions come stacked (3k x 3); RANSAC has already picked the best one first.
        if (e.empty() || e.cols != 3 || e.rows < 3) return;
        copy_matrix(e.rowRange(0, 3), essential);
        if (!std::all_of(essential, essential + 9, [](double v) { return std::isfinite(v); })) return;
        if (inliers && !mask.empty())
            for (size_t i = 0; i < count; ++i) inliers[i] = mask.at<uint8_t>(int(i)) ? 1 : 0;
        *found = 1;
    });
}

cs_status cs_essential_decompose(const double essential[9], double rotations[18], double translation[3],
                                 cs_error *error) {
    return cs::guard(error, [&] {
        cs::require(essential && rotations && translation, "cs_essential_decompose: NULL argument");
        cv::Mat r1, r2, t;
        cv::decomposeEssentialMat(cv::Mat(3, 3, CV_64F, const_cast<double *>(essential)).clone(), r1, r2, t);
        copy_matrix(r1, rotations);
        copy_matrix(r2, rotations + 9);
        copy_matrix(t, translation);
    });
}

cs_status cs_homography_decompose(const double homography[9], double rotations[36], double translations[12],
                                  double normals[12], int32_t *count, cs_error *error) {
    return cs::guard(error, [&] {
        cs::require(homography && rotations && translations && normals && count, "cs_homography_decompose: NULL argument");
        std::vector<cv::Mat> rs, ts, ns;
        const int solutions = cv::decomposeHomographyMat(cv::Mat(3, 3, CV_64F, const_cast<double *>(homography)).clone(),
                                                         cv::Matx33d::eye(), rs, ts, ns);
        *count = std::min(solutions, 4);
        for (int i = 0; i < *count; ++i) {
            copy_matrix(rs[size_t(i)], rotations + 9 * i);
            copy_matrix(ts[size_t(i)], translations + 3 * i);
            copy_matrix(ns[size_t(i)], normals + 3 * i);
        }
    });
}
