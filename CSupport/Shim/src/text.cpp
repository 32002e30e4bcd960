// Text in any script: OpenCV's freetype module, opened on first use so that processes that
// never draw text do not pay for loading it (and FreeType and HarfBuzz with it).
#include "barrier.hpp"

#include <opencv2/freetype.hpp>
#include <opencv2/imgproc.hpp>

#include <dlfcn.h>
#include <sys/stat.h>

#include <string>

struct cs_text_renderer {
    cv::Ptr<cv::freetype::FreeType2> freetype;
};

namespace {

using Create = cv::Ptr<cv::freetype::FreeType2>();

Create *resolve_create() {
    static Create *create = [] {
        std::string soname = "libopencv_freetype.so." + std::to_string(CV_VERSION_MAJOR) +
                             (CV_VERSION_MINOR < 10 ? "0" : "") + std::to_string(CV_VERSION_MINOR);
        void *library = dlopen(soname.c_str(), RTLD_NOW | RTLD_LOCAL);
        if (!library) library = dlopen("libopencv_freetype.so", RTLD_NOW | RTLD_LOCAL);
        if (!library) throw cs::Failure(CS_INTERNAL, std::string("cannot load OpenCV's freetype module: ") + dlerror());
        void *address = dlsym(library, "_ZN2cv8freetype15createFreeType2Ev");
        if (!address) throw cs::Failure(CS_INTERNAL, "OpenCV's freetype module lacks createFreeType2");
        return reinterpret_cast<Create *>(address);
    }();
    return create;
}

void require_renderer(const cs_text_renderer *renderer) {
    cs::require(renderer != nullptr && renderer->freetype, "text renderer is NULL");
}

} // namespace

extern "C" {

cs_status cs_text_renderer_create(const char *font_path, int32_t face, cs_text_renderer **out, cs_error *error) {
    return cs::guard(error, [&] {
        cs::require(font_path != nullptr && out != nullptr && face >= 0, "cs_text_renderer_create: bad argument");
        *out = nullptr;
        struct stat info {};
        if (::stat(font_path, &info) != 0) throw cs::Failure(CS_NOT_FOUND, std::string("no such font file: ") + font_path);
        auto renderer = std::make_unique<cs_text_renderer>();
        renderer->freetype = resolve_create()();
        renderer->freetype->loadFontData(font_path, face);
        *out = renderer.release();
    });
}

void cs_text_renderer_destroy(cs_text_renderer *renderer) { delete renderer; }

cs_status cs_text_renderer_measure(cs_text_renderer *renderer, const char *text, int32_t height, int32_t *out_width,
                                   int32_t *out_height, cs_error *error) {
    return cs::guard(error, [&] {
        require_renderer(renderer);
        cs::require(text && out_width && out_height && height > 0, "cs_text_renderer_measure: bad argument");
        int baseline = 0;
        const cv::Size size = renderer->freetype->getTextSize(text, height, -1, &baseline);
        *out_width = size.width;
        *out_height = size.height + baseline;
    });
}

cs_status cs_text_renderer_draw(cs_text_renderer *renderer, cs_image *image, const char *text, int32_t x, int32_t y,
                                int32_t height, cs_color color, cs_error *error) {
    return cs::guard(error, [&] {
        require_renderer(renderer);
        cs::require(image && image->mat.type() == CV_8UC3 && text && height > 0, "cs_text_renderer_draw: bad argument");
        renderer->freetype->putText(image->mat, text, cv::Point(x, y), height, cv::Scalar(color.blue, color.green, color.red),
                                    -1, cv::LINE_AA, false);
    });
}

} // extern "C"
