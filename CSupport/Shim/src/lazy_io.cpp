#include "lazy_io.hpp"

#include "barrier.hpp"

#include <opencv2/core/utils/logger.hpp>

#include <dlfcn.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <mutex>

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

namespace {

// Points standard error at `file` while it lives, then back.
class RedirectedStderr {
  public:
    explicit RedirectedStderr(int file) : saved_(::dup(STDERR_FILENO)) {
        std::fflush(stderr);
        if (saved_ >= 0) ::dup2(file, STDERR_FILENO);
    }
    ~RedirectedStderr() {
        std::fflush(stderr);
        if (saved_ < 0) return;
        ::dup2(saved_, STDERR_FILENO);
        ::close(saved_);
    }
    RedirectedStderr(const RedirectedStderr &) = delete;
    RedirectedStderr &operator=(const RedirectedStderr &) = delete;

  private:
    int saved_;
};

} // namespace

cv::Mat decode_image(const cv::Mat &bytes, int flags, std::string &messages) {
    static Imdecode *imdecode = resolve<Imdecode>("imgcodecs", "_ZN2cv8imdecodeERKNS_11_InputArrayEi");
    // libpng, libjpeg and libtiff print their warnings and errors on standard error themselves
    // (an iCCP profile warning for a good PNG, a CRC error ahead of the caller's own message
    // for a bad one). Their text goes to a memory file while one image decodes and comes back
    // in `messages`; standard error is the process's, so decodes take turns.
    static std::mutex turn;
    static const int capture = ::memfd_create("waymark-codec-messages", MFD_CLOEXEC);
    messages.clear();
    if (capture < 0) return imdecode(cv::_InputArray(bytes), flags);
    std::lock_guard<std::mutex> lock(turn);
    if (::ftruncate(capture, 0) != 0 || ::lseek(capture, 0, SEEK_SET) != 0) return imdecode(cv::_InputArray(bytes), flags);
    cv::Mat mat;
    {
        RedirectedStderr redirected(capture);
        mat = imdecode(cv::_InputArray(bytes), flags);
    }
    char text[1024];
    const ssize_t length = ::pread(capture, text, sizeof text, 0);
    if (length > 0) messages.assign(text, size_t(length));
    return mat;
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
