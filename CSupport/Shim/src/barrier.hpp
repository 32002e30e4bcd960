// The one exception barrier every CSupport entry point runs in.
#pragma once

#include "csupport.h"

#include <opencv2/core.hpp>

#include <cstdio>
#include <cstring>
#include <exception>
#include <new>
#include <string>

namespace cs {

// Thrown inside the shim to return a specific status with a message.
struct Failure : std::exception {
    cs_status status;
    std::string text;
    size_t required = 0;
    Failure(cs_status s, std::string t, size_t r = 0) : status(s), text(std::move(t)), required(r) {}
    const char *what() const noexcept override { return text.c_str(); }
};

inline void fill(cs_error *error, cs_status status, const char *message, size_t required = 0) noexcept {
    if (!error) return;
    error->status = status;
    error->required = required;
    std::snprintf(error->message, sizeof error->message, "%s", message);
}

template <class Body> cs_status guard(cs_error *error, Body &&body) noexcept {
    try {
        body();
        if (error) {
            error->status = CS_OK;
            error->required = 0;
            error->message[0] = '\0';
        }
        return CS_OK;
    } catch (const Failure &failure) {
        fill(error, failure.status, failure.text.c_str(), failure.required);
        return failure.status;
    } catch (const cv::Exception &exception) {
        std::string text = "OpenCV: " + exception.err + " in " + exception.func;
        fill(error, CS_INTERNAL, text.c_str());
        return CS_INTERNAL;
    } catch (const std::bad_alloc &) {
        fill(error, CS_INTERNAL, "out of memory");
        return CS_INTERNAL;
    } catch (const std::exception &exception) {
        fill(error, CS_INTERNAL, exception.what());
        return CS_INTERNAL;
    } catch (...) {
        fill(error, CS_INTERNAL, "unknown C++ exception");
        return CS_INTERNAL;
    }
}

inline void require(bool condition, const char *message) {
    if (!condition) throw Failure(CS_INVALID_ARGUMENT, message);
}

inline void require_capacity(size_t capacity, size_t needed) {
    if (capacity < needed) throw Failure(CS_CAPACITY, "output buffer too small", needed);
}

// Writes `path` through `temporary` (a sibling file the caller names uniquely, with the same
// extension) and a rename, so readers never see a half-written file.
template <class Write> void write_atomically(const std::string &path, const std::string &temporary, Write &&write) {
    if (!write(temporary)) {
        std::remove(temporary.c_str());
        throw Failure(CS_IO_FAILED, "cannot write " + path);
    }
    if (std::rename(temporary.c_str(), path.c_str()) != 0) {
        std::remove(temporary.c_str());
        throw Failure(CS_IO_FAILED, "cannot replace " + path + ": " + std::strerror(errno));
    }
}

} // namespace cs

struct cs_image {
    cv::Mat mat;
};
