// OpenCV's image and video IO, loaded on first use.
//
// libopencv_imgcodecs and libopencv_videoio pull in GDAL, FFmpeg, GStreamer and ~200 other
// libraries; linking them makes every process start ~0.13 s later, even `waymark --version`.
// So they are not linked: the first image or video call dlopens them and takes the four
// entry points it needs with dlsym (cv::imdecode, cv::imwrite and the two default
// constructors). Everything else on VideoCapture and VideoWriter is virtual and is reached
// through the vtable the constructor installs, so no other symbol of those libraries is
// referenced. The libraries are the ones this shim was compiled against (same version), so
// the C++ signatures match.
#pragma once

#include <opencv2/core.hpp>
#include <opencv2/videoio.hpp>

#include <memory>
#include <string>
#include <vector>

namespace cs::io {

// cv::imdecode; what the codec libraries print meanwhile comes back in `messages`, not on stderr.
cv::Mat decode_image(const cv::Mat &bytes, int flags, std::string &messages);
bool write_image(const std::string &path, const cv::Mat &image, const std::vector<int> &params = {});

struct DestroyCapture {
    void operator()(cv::VideoCapture *capture) const;
};
struct DestroyWriter {
    void operator()(cv::VideoWriter *writer) const;
};
using Capture = std::unique_ptr<cv::VideoCapture, DestroyCapture>;
using Writer = std::unique_ptr<cv::VideoWriter, DestroyWriter>;

Capture make_capture();
Writer make_writer();

} // namespace cs::io
