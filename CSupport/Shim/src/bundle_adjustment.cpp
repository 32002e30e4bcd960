// Bundle adjustment with Ceres: poses (angle-axis and translation, world-to-camera) and world
// points refined together under a Huber loss, depth entering as a virtual right camera.
#include "barrier.hpp"

#include <Eigen/Geometry>
#include <ceres/ceres.h>
#include <ceres/rotation.h>

#include <array>
#include <cmath>
#include <vector>

namespace {

// The residual of one observation, in sigmas: the pixel's error, and with depth the error of
// its column in a camera `baseline` to the right (disparity fx * baseline / depth).
template <int Residuals> struct Reprojection {
    double fx, fy, cx, cy;
    double x, y, right_x;
    double disparity_scale; // fx * baseline
    double inverse_sigma;

    template <class T> bool operator()(const T *pose, const T *point, T *residual) const {
        T camera[3];
        ceres::AngleAxisRotatePoint(pose, point, camera);
        camera[0] += pose[3];
        camera[1] += pose[4];
        camera[2] += pose[5];
        if (!(camera[2] > T(0))) return false;
        const T inverse_z = T(1) / camera[2];
        const T u = T(fx) * camera[0] * inverse_z + T(cx);
        residual[0] = (u - T(x)) * T(inverse_sigma);
        residual[1] = (T(fy) * camera[1] * inverse_z + T(cy) - T(y)) * T(inverse_sigma);
        if constexpr (Residuals == 3) residual[2] = (u - T(disparity_scale) * inverse_z - T(right_x)) * T(inverse_sigma);
        return true;
    }
};

std::array<double, 6> angle_axis_pose(const double *matrix) {
    Eigen::Matrix3d rotation;
    rotation << matrix[0], matrix[1], matrix[2], matrix[3], matrix[4], matrix[5], matrix[6], matrix[7], matrix[8];
    const Eigen::AngleAxisd angle_axis(rotation);
    const Eigen::Vector3d vector = angle_axis.angle() * angle_axis.axis();
    return {vector.x(), vector.y(), vector.z(), matrix[9], matrix[10], matrix[11]};
}

void write_matrix_pose(const std::array<double, 6> &pose, double *matrix) {
    const Eigen::Vector3d vector(pose[0], pose[1], pose[2]);
    const double angle = vector.norm();
    const Eigen::Matrix3d rotation =
        angle > 0 ? Eigen::AngleAxisd(angle, vector / angle).toRotationMatrix() : Eigen::Matrix3d::Identity();
    for (int r = 0; r < 3; ++r)
        for (int c = 0; c < 3; ++c) matrix[3 * r + c] = rotation(r, c);
    for (int k = 0; k < 3; ++k) matrix[9 + k] = pose[3 + k];
}

} // namespace

cs_status cs_bundle_adjust(double *poses, const uint8_t *fixed, int32_t pose_count, double *points, int32_t point_count,
                           const cs_ba_observation *observations, size_t observation_count, const double intrinsics[4],
                           const cs_ba_options *options, double *residuals, cs_ba_summary *summary, cs_error *error) {
    return cs::guard(error, [&] {
        cs::require(poses && fixed && points && intrinsics && options && summary && pose_count >= 0 && point_count >= 0,
                    "cs_bundle_adjust: NULL argument or negative count");
        cs::require(observation_count == 0 || observations, "cs_bundle_adjust: NULL observations");
        cs::require(options->huber > 0 && options->depth_baseline > 0 && options->max_iterations > 0,
                    "cs_bundle_adjust: the Huber threshold, baseline and iterations must be positive");
        *summary = cs_ba_summary{};
        const double fx = intrinsics[0], fy = intrinsics[1], cx = intrinsics[2], cy = intrinsics[3];
        const double disparity_scale = fx * options->depth_baseline;
        std::vector<std::array<double, 6>> angle_axis(static_cast<size_t>(pose_count));
        for (int32_t k = 0; k < pose_count; ++k) angle_axis[size_t(k)] = angle_axis_pose(poses + 12 * k);

        ceres::Problem::Options problem_options;
        problem_options.loss_function_ownership = ceres::DO_NOT_TAKE_OWNERSHIP;
        ceres::Problem problem(problem_options);
        ceres::HuberLoss loss(options->huber);
        std::vector<ceres::ResidualBlockId> blocks;
        blocks.reserve(observation_count);
        for (size_t i = 0; i < observation_count; ++i) {
            const cs_ba_observation &o = observations[i];
            cs::require(o.pose >= 0 && o.pose < pose_count && o.point >= 0 && o.point < point_count,
                        "cs_bundle_adjust: an observation's pose or point index is out of range");
            cs::require(o.sigma > 0 && std::isfinite(o.x) && std::isfinite(o.y) && std::isfinite(o.depth) && o.depth >= 0,
                        "cs_bundle_adjust: an observation's pixel, depth or sigma is not valid");
            double *pose = angle_axis[size_t(o.pose)].data();
            double *point = points + 3 * size_t(o.point);
            double camera[3];
            ceres::AngleAxisRotatePoint(pose, point, camera);
            cs::require(camera[2] + pose[5] > 0, "cs_bundle_adjust: a point lies behind a camera that observes it");
            if (o.depth > 0) {
                auto *cost = new ceres::AutoDiffCostFunction<Reprojection<3>, 3, 6, 3>(new Reprojection<3>{
                    fx, fy, cx, cy, o.x, o.y, o.x - disparity_scale / o.depth, disparity_scale, 1 / o.sigma});
                blocks.push_back(problem.AddResidualBlock(cost, &loss, pose, point));
            } else {
                auto *cost = new ceres::AutoDiffCostFunction<Reprojection<2>, 2, 6, 3>(
                    new Reprojection<2>{fx, fy, cx, cy, o.x, o.y, 0, disparity_scale, 1 / o.sigma});
                blocks.push_back(problem.AddResidualBlock(cost, &loss, pose, point));
            }
        }
        for (int32_t k = 0; k < pose_count; ++k) {
            double *pose = angle_axis[size_t(k)].data();
            if (fixed[k] && problem.HasParameterBlock(pose)) problem.SetParameterBlockConstant(pose);
        }

        ceres::Solver::Options solver;
        // Dense Schur eliminates the points and solves the poses' small dense system: a local
        // window of keyframes; sparse Schur (SuiteSparse) past a few dozen poses.
        solver.linear_solver_type = pose_count <= 40 ? ceres::DENSE_SCHUR : ceres::SPARSE_SCHUR;
        solver.max_num_iterations = options->max_iterations;
        solver.num_threads = std::max(1, options->threads);
        solver.logging_type = ceres::SILENT;
        solver.minimizer_progress_to_stdout = false;
        ceres::Solver::Summary result;
        ceres::Solve(solver, &problem, &result);
        if (result.termination_type == ceres::FAILURE)
            throw cs::Failure(CS_INTERNAL, "bundle adjustment failed: " + result.message);

        for (int32_t k = 0; k < pose_count; ++k) write_matrix_pose(angle_axis[size_t(k)], poses + 12 * k);
        if (residuals) {
            for (size_t i = 0; i < blocks.size(); ++i) {
                double values[3] = {0, 0, 0};
                double cost = 0;
                problem.EvaluateResidualBlock(blocks[i], false, &cost, values, nullptr);
                residuals[i] = std::sqrt(values[0] * values[0] + values[1] * values[1] + values[2] * values[2]);
            }
        }
        summary->initial_cost = result.initial_cost;
        summary->final_cost = result.final_cost;
        summary->iterations = int32_t(result.iterations.size());
        summary->converged = result.termination_type == ceres::CONVERGENCE ? 1 : 0;
    });
}
