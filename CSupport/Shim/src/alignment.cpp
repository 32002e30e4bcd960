#include "barrier.hpp"

#include <Eigen/Geometry>

extern "C" {

cs_status cs_align_points(const double *source, const double *target, size_t count, int32_t with_scale,
                          double rotation[9], double translation[3], double *scale, cs_error *error) {
    return cs::guard(error, [&] {
        cs::require(source && target && rotation && translation && scale, "cs_align_points: NULL argument");
        cs::require(count >= 3, "cs_align_points: needs at least three point pairs");
        Eigen::Map<const Eigen::Matrix<double, 3, Eigen::Dynamic>> from(source, 3, Eigen::Index(count));
        Eigen::Map<const Eigen::Matrix<double, 3, Eigen::Dynamic>> to(target, 3, Eigen::Index(count));
        Eigen::Matrix4d transform = Eigen::umeyama(from, to, with_scale != 0);
        Eigen::Matrix3d scaled = transform.topLeftCorner<3, 3>();
        double s = std::cbrt(scaled.determinant());
        cs::require(std::isfinite(s) && s > 0, "cs_align_points: degenerate points (collinear or coincident)");
        Eigen::Matrix3d r = scaled / s;
        for (int row = 0; row < 3; ++row) {
            for (int column = 0; column < 3; ++column) rotation[row * 3 + column] = r(row, column);
            translation[row] = transform(row, 3);
        }
        *scale = s;
    });
}

} // extern "C"
