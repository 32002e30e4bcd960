#include "lazy_io.hpp"

#include "barrier.hpp"

#include <opencv2/core/utils/logger.hpp>

#include <dlfcn.h>

#include <cstdlib>

#include <new>

namespace cs::io {

namespace {

// The soname Debian gives OpenCV 4.6's libraries: libopencv_<module>.so.406.
std::string soname(const char *module) {
    std::string minor = std::to_string(CV_VERSION_MINOR);
    if (minor.size() < 2) minor = "0" + minor;
    return std::string("libopencv_") + module + ".so." + std::to_string(CV_VERSION_MAJOR) + minor;
}

// OpenCV's and FFmpeg's own logging would print warnings and errors about trouble (a damaged
// frame, a backend that cannot take a file name) that the caller reports in its own words; FFmpeg
// is tried first for files, before GStreamer. A user's own settings win.
void configure_before_loading() {
    static const bool once = [] {
        ::setenv("OPENCV_FFMPEG_LOGLEVEL", "-8", 0);
        ::setenv("OPENCV_VIDEOIO_PRIORITY_LIST", "FFMPEG,GSTREAMER", 0);
        if (!std::getenv("OPENCV_LOG_LEVEL")) cv::utils::logging::setLogLevel(cv::utils::logging::LOG_LEVEL_SILENT);
        return true;
    }();
    (void)once;
}

void *symbol(const char *module, const char *name) {
    configure_before_loading();
    void *library = dlopen(soname(module).c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!library) library = dlopen((std::string("libopencv_") + module + ".so").c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!library) throw Failure(CS_INTERNAL, "cannot load OpenCV's " + std::string(module) + " library: " + dlerror());
    void *address = dlsym(library, name);
    if (!address) throw Failure(CS_INTERNAL, std::string("OpenCV's ") + module + " library lacks " + name);
    return address;
}

template <class Function> Function *resolve(const char *module, const char *name) {
    return reinterpret_cast<Function *>(symbol(module, name));
}

using Imdecode = cv::Mat(const cv::_InputArray &, int);
using Imwrite = bool(const std::string &, const cv::_InputArray &, const std::vector<int> &);
using Constructor = void(void *self);

} // namespace

cv::Mat decode_image(const cv::Mat &bytes, int flags) {
    static Imdecode *imdecode = resolve<Imdecode>("imgcodecs", "_ZN2cv8imdecodeERKNS_11_InputArrayEi");
    return imdecode(cv::_InputArray(bytes), flags);
}

bool write_image(const std::string &path, const cv::Mat &image, const std::vector<int> &params) {
    static Imwrite *imwrite = resolve<Imwrite>(
        "imgcodecs",
        "_ZN2cv7imwriteERKNSt7__cxx1112basic_stringIcSt11char_traitsIcESaIcEEERKNS_11_InputArrayERKSt6vectorIiSaIiEE");
    return imwrite(path, cv::_InputArray(image), params);
}

void DestroyCapture::operator()(cv::VideoCapture *capture) const {
    capture->~VideoCapture(); // virtual: runs videoio's destructor
    ::operator delete(static_cast<void *>(capture));
}

void DestroyWriter::operator()(cv::VideoWriter *writer) const {
    writer->~VideoWriter();
    ::operator delete(static_cast<void *>(writer));
}

Capture make_capture() {
    static Constructor *construct = resolve<Constructor>("videoio", "_ZN2cv12VideoCaptureC1Ev");
    void *storage = ::operator new(sizeof(cv::VideoCapture));
    construct(storage);
    return Capture(static_cast<cv::VideoCapture *>(storage));
}

Writer make_writer() {
    static Constructor *construct = resolve<Constructor>("videoio", "_ZN2cv11VideoWriterC1Ev");
    void *storage = ::operator new(sizeof(cv::VideoWriter));
    construct(storage);
    return Writer(static_cast<cv::VideoWriter *>(storage));
}

} // namespace cs::io
