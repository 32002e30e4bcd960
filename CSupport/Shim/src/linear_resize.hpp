// cv::resize with INTER_LINEAR_EXACT for 8-bit gray images: the same bytes, faster.
#pragma once

#include <opencv2/core.hpp>

namespace cs {

// What cv::resize(from, to, size, 0, 0, cv::INTER_LINEAR_EXACT) writes, for a single-channel
// 8-bit image. OpenCV computes each call's interpolation tables in software floating point and
// interpolates rows through its generic SIMD layer, about 1.5 ms for the pyramid of a 640×480
// frame; here the tables are kept per pair of sizes, rows are interpolated with AVX2 byte
// shuffles, and a pair of sizes is used only after its tables reproduced cv::resize on noise
// (else, and on processors without AVX2, cv::resize itself runs).
void resize_linear_exact(const cv::Mat &from, cv::Mat &to, cv::Size size);

} // namespace cs
