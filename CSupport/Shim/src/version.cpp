#include "barrier.hpp"

#include <Eigen/Core>

extern "C" cs_status cs_get_versions(cs_versions *out, cs_error *error) {
    return cs::guard(error, [&] {
        cs::require(out != nullptr, "cs_get_versions: out is NULL");
        std::snprintf(out->opencv, sizeof out->opencv, "%s", CV_VERSION);
        std::snprintf(out->eigen, sizeof out->eigen, "%d.%d.%d", EIGEN_WORLD_VERSION, EIGEN_MAJOR_VERSION,
                      EIGEN_MINOR_VERSION);
    });
}

extern "C" cs_status cs_set_thread_count(int32_t count, cs_error *error) {
    return cs::guard(error, [&] {
        cs::require(count >= 0, "cs_set_thread_count: negative count");
        cv::setNumThreads(count == 0 ? -1 : count);
    });
}
