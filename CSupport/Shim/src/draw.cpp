#include "barrier.hpp"

#include <opencv2/imgproc.hpp>

#include <vector>

extern "C" {

cs_status cs_draw_polygon(cs_image *image, const float *points, size_t count, cs_color color, int32_t thickness,
                          cs_error *error) {
    return cs::guard(error, [&] {
        cs::require(image && image->mat.type() == CV_8UC3, "cs_draw_polygon: needs a BGR image");
        cs::require(count == 0 || points, "cs_draw_polygon: NULL points");
        cs::require(thickness > 0, "cs_draw_polygon: thickness must be positive");
        if (count < 2) return;
        // Four fractional bits keep sub-pixel positions.
        std::vector<cv::Point> polygon(count);
        for (size_t i = 0; i < count; ++i)
            polygon[i] = {int(std::lround((points[2 * i] - 0.5f) * 16)), int(std::lround((points[2 * i + 1] - 0.5f) * 16))};
        cv::polylines(image->mat, polygon, true, cv::Scalar(color.blue, color.green, color.red), thickness,
                      cv::LINE_AA, 4);
    });
}

cs_status cs_draw_text(cs_image *image, const char *text, float x, float y, double scale, cs_color color,
                       cs_error *error) {
    return cs::guard(error, [&] {
        cs::require(image && image->mat.type() == CV_8UC3 && text, "cs_draw_text: bad argument");
        cs::require(scale > 0, "cs_draw_text: scale must be positive");
        cv::Point origin(int(std::lround(x)), int(std::lround(y)));
        int thickness = std::max(1, int(std::lround(scale * 2)));
        cv::putText(image->mat, text, origin, cv::FONT_HERSHEY_SIMPLEX, scale, cv::Scalar(0, 0, 0), thickness + 2,
                    cv::LINE_AA);
        cv::putText(image->mat, text, origin, cv::FONT_HERSHEY_SIMPLEX, scale,
                    cv::Scalar(color.blue, color.green, color.red), thickness, cv::LINE_AA);
    });
}

cs_status cs_draw_filled_rect(cs_image *image, int32_t x, int32_t y, int32_t width, int32_t height, cs_color color,
                              double alpha, cs_error *error) {
    return cs::guard(error, [&] {
        cs::require(image && image->mat.type() == CV_8UC3, "cs_draw_filled_rect: needs a BGR image");
        cs::require(alpha >= 0 && alpha <= 1, "cs_draw_filled_rect: alpha must be in 0...1");
        const cv::Rect box = cv::Rect(x, y, width, height) & cv::Rect(0, 0, image->mat.cols, image->mat.rows);
        if (box.area() == 0) return;
        cv::Mat region = image->mat(box);
        cv::Mat fill(region.size(), region.type(), cv::Scalar(color.blue, color.green, color.red));
        cv::addWeighted(fill, alpha, region, 1 - alpha, 0, region);
    });
}

} // extern "C"
