#include "barrier.hpp"
#include "lazy_io.hpp"

#include <opencv2/videoio.hpp>

#include <algorithm>
#include <cmath>
#include <cstdlib>

#include <sys/stat.h>

struct cs_video_reader {
    cs::io::Capture capture = cs::io::make_capture();
    int64_t frames_read = 0;
    double fps = 0;
};

struct cs_video_writer {
    cs::io::Writer writer = cs::io::make_writer();
    std::string path;
    std::string temporary;
    cv::Size size;
};

namespace {

// cv::VideoWriter::fourcc, which lives in the lazily loaded library.
int fourcc_code(char a, char b, char c, char d) {
    return (a & 255) + ((b & 255) << 8) + ((c & 255) << 16) + ((d & 255) << 24);
}

} // namespace

extern "C" {

cs_status cs_video_reader_open(const char *path, cs_video_reader **out, cs_error *error) {
    return cs::guard(error, [&] {
        cs::require(path != nullptr && out != nullptr, "cs_video_reader_open: NULL argument");
        *out = nullptr;
        struct stat info {};
        if (::stat(path, &info) != 0) throw cs::Failure(CS_NOT_FOUND, std::string("no such file: ") + path);
        if (S_ISDIR(info.st_mode)) throw cs::Failure(CS_DECODE_FAILED, std::string("is a directory, not a file: ") + path);
        auto reader = new cs_video_reader{};
        if (!reader->capture->open(path, cv::CAP_FFMPEG) || !reader->capture->isOpened()) {
            delete reader;
            throw cs::Failure(CS_DECODE_FAILED, std::string("not a readable video: ") + path);
        }
        reader->fps = reader->capture->get(cv::CAP_PROP_FPS);
        *out = reader;
    });
}

void cs_video_reader_destroy(cs_video_reader *reader) { delete reader; }

cs_status cs_video_reader_get_info(const cs_video_reader *reader, cs_video_info *out, cs_error *error) {
    return cs::guard(error, [&] {
        cs::require(reader != nullptr && out != nullptr, "cs_video_reader_get_info: NULL argument");
        cv::VideoCapture &capture = *reader->capture;
        out->width = int32_t(capture.get(cv::CAP_PROP_FRAME_WIDTH));
        out->height = int32_t(capture.get(cv::CAP_PROP_FRAME_HEIGHT));
        out->frames_per_second = reader->fps > 0 && std::isfinite(reader->fps) ? reader->fps : 0;
        double frames = capture.get(cv::CAP_PROP_FRAME_COUNT);
        out->frame_count = frames > 0 ? int64_t(frames) : -1;
    });
}

cs_status cs_video_reader_read(cs_video_reader *reader, cs_image *frame, double *timestamp, int32_t *got,
                               cs_error *error) {
    return cs::guard(error, [&] {
        cs::require(reader && frame && timestamp && got, "cs_video_reader_read: NULL argument");
        *got = 0;
        if (!reader->capture->grab()) return;
        if (!reader->capture->retrieve(frame->mat) || frame->mat.empty())
            throw cs::Failure(CS_DECODE_FAILED, "a video frame could not be decoded");
        // OpenCV's CAP_PROP_POS_MSEC follows decode order, which jumps back and forth on streams
        // with reordered frames; the frame rate gives presentation times that always increase.
        if (reader->fps > 0 && std::isfinite(reader->fps)) {
            *timestamp = double(reader->frames_read) / reader->fps;
        } else {
            *timestamp = std::max(0.0, reader->capture->get(cv::CAP_PROP_POS_MSEC) / 1000.0);
        }
        reader->frames_read += 1;
        *got = 1;
    });
}

cs_status cs_video_writer_open(const char *path, const char *temporary, int32_t width, int32_t height,
                               double frames_per_second, cs_video_writer **out, cs_error *error) {
    return cs::guard(error, [&] {
        cs::require(path && temporary && out && width > 0 && height > 0 && frames_per_second > 0,
                    "cs_video_writer_open: bad argument");
        *out = nullptr;
        std::string p(path);
        auto dot = p.find_last_of('.');
        std::string extension = dot == std::string::npos ? "" : p.substr(dot);
        int fourcc = extension == ".avi" ? fourcc_code('M', 'J', 'P', 'G') : fourcc_code('m', 'p', '4', 'v');
        auto writer = new cs_video_writer{};
        writer->path = p;
        writer->temporary = temporary;
        writer->size = cv::Size(width, height);
        // The overload without a backend is the virtual one (see lazy_io.hpp); OpenCV tries
        // FFmpeg first for files.
        if (!writer->writer->open(writer->temporary, fourcc, frames_per_second, writer->size, true)) {
            delete writer;
            throw cs::Failure(CS_IO_FAILED, "cannot create video " + p);
        }
        *out = writer;
    });
}

void cs_video_writer_destroy(cs_video_writer *writer) {
    if (!writer) return;
    writer->writer->release();
    std::remove(writer->temporary.c_str());
    delete writer;
}

cs_status cs_video_writer_write(cs_video_writer *writer, const cs_image *frame, cs_error *error) {
    return cs::guard(error, [&] {
        cs::require(writer && frame && frame->mat.type() == CV_8UC3, "cs_video_writer_write: bad argument");
        cs::require(frame->mat.size() == writer->size, "cs_video_writer_write: frame size differs from the video's");
        writer->writer->write(frame->mat);
    });
}

cs_status cs_video_writer_finish(cs_video_writer *writer, cs_error *error) {
    return cs::guard(error, [&] {
        cs::require(writer != nullptr, "cs_video_writer_finish: NULL argument");
        writer->writer->release();
        if (std::rename(writer->temporary.c_str(), writer->path.c_str()) != 0)
            throw cs::Failure(CS_IO_FAILED, "cannot replace " + writer->path);
    });
}

} // extern "C"
