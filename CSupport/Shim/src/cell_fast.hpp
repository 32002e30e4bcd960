// cv::FAST over one small cell of a pyramid level: the same corners, faster.
#pragma once

#include <opencv2/core.hpp>

#include <cstdint>
#include <vector>

namespace cs {

// What cv::FAST(level(window), corners, threshold, true) finds, where `window` is `cell` widened
// by FAST's 3-pixel circle on every side: the corners of `cell`, each kept when its score beats
// its neighbours' within the cell. Appended to `out` in level coordinates, row by row.
// `cell` must lie 3 pixels inside `level` (8-bit, one channel).
//
// Image detection searches hundreds of 40-pixel cells a frame again at a low threshold; through
// cv::FAST each costs a call's set-up and a scalar tail on every row. Here the corner test and
// the score are one computation (how far nine contiguous circle pixels clear the centre, min and
// max over arcs of 32 pixels at once with AVX2). It is used only where the processor has AVX2 and
// it reproduced cv::FAST on noise at first use; else, or with `opencv_only`, cv::FAST runs.
// `scores` is scratch space.
void fast_in_cell(const cv::Mat &level, const cv::Rect &cell, int threshold, bool opencv_only,
                  std::vector<uint8_t> &scores, std::vector<cv::KeyPoint> &out);

} // namespace cs
