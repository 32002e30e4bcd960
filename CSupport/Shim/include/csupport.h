/*
 * CSupport: Waymark's plain-C ABI over OpenCV 4.6 and Eigen 3.4.
 *
 * Rules (see docs/ARCHITECTURE.md):
 *  - every symbol is prefixed cs_; handles are opaque, made by the _create, _read and _open functions
 *    and freed by the matching _destroy, which accepts NULL;
 *  - every function returns a cs_status and fills the caller-owned cs_error on failure;
 *    no C++ exception ever crosses this boundary;
 *  - buffers passed in are copied if they are kept; output buffers are caller-owned
 *    with an explicit capacity;
 *  - this header compiles as C and never includes OpenCV or Eigen.
 */
#ifndef WAYMARK_CSUPPORT_H
#define WAYMARK_CSUPPORT_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum cs_status {
    CS_OK = 0,
    CS_INVALID_ARGUMENT = 1, /* a caller passed something out of contract */
    CS_DECODE_FAILED = 2,    /* the bytes could not be decoded as an image or video */
    CS_IO_FAILED = 3,        /* a file could not be opened, read or written */
    CS_CAPACITY = 4,         /* an output buffer was too small; `required` says how big */
    CS_INTERNAL = 5,         /* OpenCV or the C++ runtime failed */
    CS_NOT_FOUND = 6         /* an input file does not exist */
} cs_status;

typedef struct cs_error {
    int32_t status;
    size_t required;
    char message[512];
} cs_error;

typedef struct cs_versions {
    char opencv[32];
    char eigen[32];
} cs_versions;

cs_status cs_get_versions(cs_versions *out, cs_error *error);

/* How many threads OpenCV's own parallel loops use (features, odometry, PnP); 0 restores its
   default, one per core. Process-wide. */
cs_status cs_set_thread_count(int32_t count, cs_error *error);

/* ---- Images: 8-bit, 1 (gray) or 3 (BGR) channels, owned by the handle. ---- */

typedef struct cs_image cs_image;

typedef struct cs_image_info {
    int32_t width;
    int32_t height;
    int32_t channels;
} cs_image_info;

/* Decodes an image file's `count` bytes (PNG, JPEG, ...); `name` is for messages. channels: 1
   decodes as gray, 3 as BGR. */
cs_status cs_image_decode(const uint8_t *bytes, size_t count, const char *name, int32_t channels, cs_image **out,
                          cs_error *error);
/* Copies `height` rows of `width * channels` bytes, `stride` bytes apart. */
cs_status cs_image_create(int32_t width, int32_t height, int32_t channels, const uint8_t *pixels,
                          size_t stride, cs_image **out, cs_error *error);
void cs_image_destroy(cs_image *image);
cs_status cs_image_get_info(const cs_image *image, cs_image_info *out, cs_error *error);
/* Copies the pixels out, rows packed (stride = width * channels). */
cs_status cs_image_copy_pixels(const cs_image *image, uint8_t *out, size_t capacity, cs_error *error);
/* Writes by extension (.png, .jpg, ...) into `temporary` (a sibling of `path` with its extension),
   then renames it onto `path`: the file is replaced atomically. */
cs_status cs_image_write(const cs_image *image, const char *path, const char *temporary, cs_error *error);
/* Swaps a 3-channel image's first and third channels in place: RGB rows (a camera's, a robot
   log's) become the BGR the rest of the shim reads. */
cs_status cs_image_swap_red_blue(cs_image *image, cs_error *error);
/* Converts to one channel; `out` is reused (reallocated only when its size changes). */
cs_status cs_image_convert_to_gray(const cs_image *image, cs_image *out, cs_error *error);
/* Resizes with area averaging (shrinking) or bilinear interpolation (growing). */
cs_status cs_image_resize(const cs_image *image, int32_t width, int32_t height, cs_image *out,
                          cs_error *error);
/* out(x) = image(H^-1 x) for a row-major 3x3 H; pixels outside read as 0. */
cs_status cs_image_warp_perspective(const cs_image *image, const double homography[9], int32_t width,
                                    int32_t height, cs_image *out, cs_error *error);
/* Gray only: out = gain * image + bias, with gain and bias chosen so that the pixels that are
   not 0 get the given mean and standard deviation (compensates a change of lighting). */
cs_status cs_image_match_brightness(const cs_image *image, double mean, double standard_deviation, cs_image *out,
                                    cs_error *error);
/* Draws `image` onto `canvas` (same channel count) mapped by H (image pixels -> canvas
   pixels), bilinear and anti-aliased at the edges; canvas pixels outside stay as they are. */
cs_status cs_image_composite_warped(cs_image *canvas, const cs_image *image, const double homography[9],
                                    cs_error *error);
/* Gaussian blur with the given sigma in pixels (for tests and quality checks). */
cs_status cs_image_gaussian_blur(const cs_image *image, double sigma, cs_image *out, cs_error *error);

typedef struct cs_image_statistics {
    double mean;
    double standard_deviation;
} cs_image_statistics;

/* Statistics of a gray image (or of the gray conversion of a colour one). */
cs_status cs_image_get_statistics(const cs_image *image, cs_image_statistics *out, cs_error *error);

/* ---- Per-frame signals for coaching: light, sharpness, detail, view motion. ---- */

typedef struct cs_frame_meter cs_frame_meter;

typedef struct cs_frame_signals {
    double sharpness;       /* variance of the Laplacian of the half-size gray frame */
    double gradient_xx;     /* the half-size frame's mean structure tensor: means of gx*gx, gy*gy, */
    double gradient_yy;     /* gx*gy over its 3x3 Sobel gradients */
    double gradient_xy;
    int32_t corner_count;   /* FAST corners (threshold 20) in the half-size frame */
    double corner_spread;   /* fraction of a 4x4 grid over the frame holding at least 3 of them */
    int32_t has_motion;     /* 1 when the previous frame was measured (motion_* are set) */
    double motion_x;        /* shift of the view since the previous frame, full-frame pixels */
    double motion_y;
    double motion_response; /* phase-correlation peak, 0-1: low when the shift is unreliable */
} cs_frame_signals;

/* The light of a frame, on every fourth pixel of every fourth row, in linear light (sRGB decoded, 0-1). */
#define CS_CHROMA_BINS 100
#define CS_CHROMA_STEP 0.05f
/* A code value this high in any channel is taken as clipped: the light there is not known. */
#define CS_CLIPPED_CODE 250
typedef struct cs_light_signals {
    double mean_luminance; /* mean luminance (Rec. 709 weights) */
    int32_t pixels;       /* sampled */
    int32_t has_chroma;   /* 1 for a colour frame: the chroma histogram is filled */
} cs_light_signals;

/* A rectangle in full-frame pixels. */
typedef struct cs_rect {
    double x, y, width, height;
} cs_rect;

cs_status cs_frame_meter_create(cs_frame_meter **out, cs_error *error);
void cs_frame_meter_destroy(cs_frame_meter *meter);
/* Measures a gray or BGR frame; the meter keeps a small copy for the next frame's motion. */
cs_status cs_frame_meter_measure(cs_frame_meter *meter, const cs_image *image, cs_frame_signals *out, cs_error *error);
/* Measures the light of a gray or BGR frame. For a colour frame, chroma (CS_CHROMA_BINS^2
   counts) receives how many of its usable samples (no channel clipped, not dark) fall in each
   bin of chromaticity: bin (u, v), at v * bins + u, counts those with log(R/G) in
   [(u - bins/2) * step, (u - bins/2 + 1) * step) and log(B/G) likewise by v. */
cs_status cs_frame_meter_measure_light(cs_frame_meter *meter, const cs_image *image, int32_t *chroma,
                                       cs_light_signals *out, cs_error *error);
/* The mode of the last measured colour frame's usable samples in (log(R/G), log(B/G)), by mean
   shift with a Gaussian kernel of `sigma` from (u, v), over the samples within 4 sigma of it:
   into mode_u, mode_v, and the kernel's total weight there (0, and the start returned, when no
   sample is near). */
cs_status cs_frame_meter_chroma_mode(cs_frame_meter *meter, double u, double v, double sigma, double *mode_u,
                                     double *mode_v, double *weight, cs_error *error);
/* The mean luminance (linear light, as above, on the same samples) of each labelled region of a
   gray or BGR frame: labels (labels_width x labels_height, 0 = none, k = region k, at most
   `regions`) cover the frame, scaled when their size differs from the frame's; clipped pixels
   are left out. sums[k - 1] receives region k's luminance sum, counts[k - 1] its samples. */
cs_status cs_region_luminance(const cs_image *image, const uint16_t *labels, int32_t labels_width, int32_t labels_height,
                              int32_t regions, double *sums, int32_t *counts, cs_error *error);
/* The last measured frame's sharpness inside each of `count` regions (full-frame pixels),
   clipped to the frame (0 when nothing is left), into out[count]. */
cs_status cs_frame_meter_region_sharpness(const cs_frame_meter *meter, const cs_rect *regions, size_t count, double *out,
                                          cs_error *error);

/* ---- Rigid alignment (Eigen's Umeyama): target ≈ scale · R · source + t, least squares. ---- */

/* source and target: count points each, x y z packed; with_scale 0 fixes scale at 1.
 * rotation row-major. Degenerate (collinear) points are CS_INVALID_ARGUMENT. */
cs_status cs_align_points(const double *source, const double *target, size_t count, int32_t with_scale,
                          double rotation[9], double translation[3], double *scale, cs_error *error);

/* ---- RGB-D visual odometry (OpenCV's rgbd contrib module). ---- */

typedef struct cs_odometry cs_odometry;

/* intrinsics fx, fy, cx, cy (pixel centres at +0.5); kind 0 = RGB-D (photometric + depth),
 * 1 = ICP (depth only), 2 = both. */
cs_status cs_odometry_create(const double intrinsics[4], int32_t kind, cs_odometry **out, cs_error *error);
void cs_odometry_destroy(cs_odometry *odometry);
/* Iterations per pyramid level (finest first; `levels` of them) and the largest motion between
 * two frames it accepts (metres, degrees); OpenCV's defaults are 7, 7, 7, 10 and 0.15 m, 15 degrees. */
cs_status cs_odometry_configure(cs_odometry *odometry, const int32_t *iterations, int32_t levels,
                                double max_translation, double max_rotation_degrees, cs_error *error);

/* One frame prepared for the odometry (8-bit gray, depth in metres, 0 or NaN = missing; both
 * copied). It keeps its pyramids once computed, so a frame compared many times (a keyframe) pays
 * for them once. */
typedef struct cs_odometry_frame cs_odometry_frame;
cs_status cs_odometry_frame_create(const uint8_t *gray, const float *depth, int32_t width, int32_t height,
                                   cs_odometry_frame **out, cs_error *error);
void cs_odometry_frame_destroy(cs_odometry_frame *frame);
/* The motion between two frames of the same size: when found, *tracked is 1 and motion
 * (row-major 4x4) maps points in `from`'s camera coordinates to `to`'s. `initial` (or NULL for
 * the identity) is the guess it starts from. */
cs_status cs_odometry_compute(cs_odometry *odometry, cs_odometry_frame *from, cs_odometry_frame *to,
                              const double initial[16], double motion[16], int32_t *tracked, cs_error *error);

/* ---- Rasters: one-channel images read without conversion (depth maps, label and mask images). ---- */

typedef struct cs_raster cs_raster;

typedef enum cs_raster_kind { CS_RASTER_U8 = 1, CS_RASTER_U16 = 2, CS_RASTER_F32 = 3 } cs_raster_kind;

typedef struct cs_raster_info {
    int32_t width;
    int32_t height;
    int32_t kind; /* cs_raster_kind */
} cs_raster_info;

/* Decodes a file's `count` bytes: 8-bit, 16-bit or 32-bit float, one channel (PNG, TIFF, PFM, ...);
   anything else is CS_DECODE_FAILED. `name` is for messages. */
cs_status cs_raster_decode(const uint8_t *bytes, size_t count, const char *name, cs_raster **out, cs_error *error);
void cs_raster_destroy(cs_raster *raster);
cs_status cs_raster_get_info(const cs_raster *raster, cs_raster_info *out, cs_error *error);
/* The raw values as floats, row-major, width * height of them. */
cs_status cs_raster_copy_values(const cs_raster *raster, float *out, size_t capacity, cs_error *error);
/* Writes a 16-bit one-channel image (PNG by extension), replacing any file there atomically
   (through `temporary`, as cs_image_write). */
cs_status cs_raster_write_u16(const char *path, const char *temporary, int32_t width, int32_t height,
                              const uint16_t *values, cs_error *error);

/* ---- Features: keypoints with 256-bit binary descriptors. ---- */

typedef struct cs_keypoint {
    float x, y;       /* pixels, (0,0) = top-left corner of the top-left pixel */
    float size;       /* diameter of the meaningful neighbourhood, pixels */
    float angle;      /* degrees */
    float response;
    int32_t octave;
} cs_keypoint;

typedef struct cs_features cs_features;

typedef struct cs_feature_options {
    int32_t max_features;
    float scale_factor;    /* between pyramid levels, > 1 */
    int32_t levels;
    int32_t fast_threshold;
    /* When fewer than half of max_features are found, detection runs again with this lower
       threshold (dark or low-contrast frames). 0 or >= fast_threshold: never. */
    int32_t min_fast_threshold;
    int32_t edge_threshold; /* border in pixels where no features are found */
    /* The pyramid level the image itself is put on; the finer ones are enlarged copies. */
    int32_t first_level;
    /* Which corners each level keeps when it has more than its share: cs_feature_ranking. */
    int32_t ranking;
    /* Share (0...1) of each level's corners chosen cell by cell over the level (every cell's
       strongest, then every cell's second...), so that a faint region keeps corners against a
       busy one; the rest by FAST score. A cell with fewer corners at fast_threshold than its
       share of those is searched again down to min_fast_threshold. 0: OpenCV's ORB as it is.
       Needs CS_RANKING_FAST. */
    float spread;
    /* 1: with spread, builds the pyramid with cv::resize, finds corners with cv::FAST and
       describes the keypoints with cv::ORB::compute; without, runs cv::ORB itself; even where
       the shim's own equivalents give the same keypoints and bytes faster (see
       cs_features_exact_describer_available), to check that they agree. */
    int32_t opencv_only;
} cs_feature_options;

typedef enum cs_feature_ranking {
    CS_RANKING_HARRIS = 0, /* by Harris response (OpenCV's default) */
    CS_RANKING_FAST = 1    /* by FAST score */
} cs_feature_ranking;

/* Oriented FAST + rotated BRIEF on a gray image. An empty result is not an error. */
cs_status cs_features_detect(const cs_image *gray, const cs_feature_options *options, cs_features **out,
                             cs_error *error);
/* Builds a set from caller data: `count` keypoints and count*32 descriptor bytes. */
cs_status cs_features_create(const cs_keypoint *keypoints, const uint8_t *descriptors, size_t count,
                             cs_features **out, cs_error *error);
void cs_features_destroy(cs_features *features);
/* 1 when spread features are described by Waymark's own ORB describer: read off this OpenCV's
   ORB at first use and checked to give its bytes; 0 when it could not be, and cv::ORB::compute
   describes them. */
cs_status cs_features_exact_describer_available(int32_t *out, cs_error *error);
cs_status cs_features_get_count(const cs_features *features, size_t *out, cs_error *error);
cs_status cs_features_copy_keypoints(const cs_features *features, cs_keypoint *out, size_t capacity,
                                     cs_error *error);
cs_status cs_features_copy_descriptors(const cs_features *features, uint8_t *out, size_t capacity,
                                       cs_error *error);

/* ---- Matching against an index of several training sets (the active references). ---- */

typedef struct cs_match {
    int32_t query;    /* index into the query set */
    int32_t set;      /* which training set */
    int32_t train;    /* index into that training set */
    int32_t distance; /* Hamming distance of the best match */
    int32_t second_distance; /* best distance among other training features (INT32_MAX if none) */
} cs_match;

typedef struct cs_matcher cs_matcher;

typedef struct cs_matcher_options {
    /* Children per node of the tree that buckets the training descriptors (2..32), or 0 for
       an exact brute-force search. */
    int32_t branching;
    int32_t depth;
    /* Leaf buckets searched per query, nearest first (1..16). */
    int32_t probes;
    uint64_t seed;
} cs_matcher_options;

/* Copies the descriptors of `count` sets. */
cs_status cs_matcher_create(const cs_features *const *sets, size_t count, const cs_matcher_options *options,
                            cs_matcher **out, cs_error *error);
void cs_matcher_destroy(cs_matcher *matcher);
/* For each query feature: its nearest training feature over the enabled sets
   (`enabled_sets[s] != 0`; NULL enables all), kept when distance < ratio * second_distance
   and distance <= max_distance. With same_detail_radius > 0 the second is the nearest feature
   that is not the same detail as the nearest: one of another set, or farther from it than
   same_detail_radius times the larger of their keypoint sizes. A restricted search copies
   the enabled sets' descriptors once and reuses the copy while the same sets are asked for,
   so a matcher is used by one thread at a time. */
cs_status cs_matcher_match(cs_matcher *matcher, const cs_features *query, const uint8_t *enabled_sets,
                           float ratio, int32_t max_distance, float same_detail_radius, cs_match *out,
                           size_t capacity, size_t *count, cs_error *error);

/* Matching by projection: each `train` feature is mapped into the query's pixels by
   `homography` (row-major, train pixels -> query pixels) and compared with the query features
   within `radius` pixels whose size is within a factor `max_size_ratio` of its predicted size;
   its nearest is kept when distance <= max_distance and distance < ratio * the second nearest
   there. Each query feature keeps only the nearest train feature that chose it. `out` holds
   up to one match per query feature (`set` is 0). */
cs_status cs_features_match_by_projection(const cs_features *train, const cs_features *query,
                                          const double *homography, float radius, float max_size_ratio, float ratio,
                                          int32_t max_distance, cs_match *out, size_t capacity, size_t *count,
                                          cs_error *error);

/* ---- Vocabulary: visual words for bag-of-words retrieval. ---- */

typedef struct cs_vocabulary cs_vocabulary;

/* Trains a tree with `branching` children per node and `depth` levels on the descriptors of
   the sets (at most `max_training` of them, taken evenly). Seeded and deterministic. */
cs_status cs_vocabulary_create(const cs_features *const *sets, size_t count, int32_t branching, int32_t depth,
                               size_t max_training, uint64_t seed, cs_vocabulary **out, cs_error *error);
void cs_vocabulary_destroy(cs_vocabulary *vocabulary);
cs_status cs_vocabulary_get_word_count(const cs_vocabulary *vocabulary, size_t *out, cs_error *error);
/* The word of each feature, into `words` (capacity >= the feature count). */
cs_status cs_vocabulary_quantize(const cs_vocabulary *vocabulary, const cs_features *features, uint32_t *words,
                                 size_t capacity, cs_error *error);

/* ---- Geometry. Points are packed (x, y) floats. Matrices are row-major doubles. ---- */

typedef enum cs_robust_method {
    CS_ROBUST_RANSAC = 0,
    CS_ROBUST_MAGSAC = 1,
    /* An affine map (a homography whose last row is 0 0 1) by RANSAC from three-point samples:
       stable where few matches cover a small part of the image. */
    CS_ROBUST_AFFINE = 2
} cs_robust_method;

typedef struct cs_homography_options {
    int32_t method;           /* cs_robust_method */
    double threshold;         /* reprojection threshold, destination pixels */
    int32_t max_iterations;
    double confidence;
    uint64_t seed;
    int32_t min_inliers;      /* an estimate with fewer inliers is not returned (0: any) */
} cs_homography_options;

/* Finds H with dst ~ H src. `inliers` (n bytes, may be NULL) receives 1 for inliers.
   `found` is 0 when no homography was found, or none with `min_inliers` (not an error). */
cs_status cs_homography_estimate(const float *source, const float *destination, size_t count,
                                 const cs_homography_options *options, double homography[9],
                                 uint8_t *inliers, int32_t *found, cs_error *error);

typedef struct cs_flow_options {
    int32_t window;     /* square window side, pixels */
    int32_t levels;     /* pyramid levels above the base */
    int32_t max_iterations;
    double epsilon;
    double min_eigen_threshold;
} cs_flow_options;

/* Pyramidal Lucas-Kanade from `previous` to `next` (both gray). `next_points` holds the
   initial guesses on entry and the results on return; `tracked` gets 1 per found point,
   `errors` (may be NULL) the mean absolute intensity difference per point. */
cs_status cs_optical_flow_track(const cs_image *previous, const cs_image *next, const float *previous_points,
                                float *next_points, size_t count, const cs_flow_options *options,
                                uint8_t *tracked, float *errors, cs_error *error);

/* Strong corners (Shi-Tomasi) of a gray image, at most `capacity`, at least `min_distance`
   apart; sub-pixel refined. */
cs_status cs_corners_detect(const cs_image *gray, double quality, double min_distance, float *out,
                            size_t capacity, size_t *count, cs_error *error);

/* Pose of a planar target from 2D-3D correspondences (object points on z = 0), IPPE.
   intrinsics = fx, fy, cx, cy. Outputs the object-to-camera rotation (row-major 3x3) and
   translation, and the RMS reprojection error in pixels. */
cs_status cs_pose_estimate_planar(const double *object_points, const float *image_points, size_t count,
                                  const double intrinsics[4], double rotation[9], double translation[3],
                                  double *rms_error, cs_error *error);

typedef struct cs_pnp_options {
    double threshold;       /* reprojection threshold, pixels */
    int32_t max_iterations;
    double confidence;
} cs_pnp_options;

/* Camera pose from 2D-3D correspondences: RANSAC over AP3P samples (OpenCV's fixed-seed
   RANSAC, so repeatable), then Levenberg-Marquardt on the inliers and the inliers taken again
   under the refined pose. Outputs the world-to-camera rotation (row-major 3x3) and
   translation, `inliers` (n bytes, may be NULL), the inlier count and their RMS reprojection
   error in pixels. `found` is 0 when no pose was found (not an error). */
cs_status cs_pose_estimate_ransac(const double *object_points, const float *image_points, size_t count,
                                  const double intrinsics[4], const cs_pnp_options *options, double rotation[9],
                                  double translation[3], uint8_t *inliers, size_t *inlier_count,
                                  double *rms_error, int32_t *found, cs_error *error);

/* ---- Camera calibration ---- */

/* A calibration as OpenCV's calibration sample writes it (YAML, XML or JSON): camera_matrix,
   distortion_coefficients (0, 4, 5, 8, 12 or 14 values), image_width and image_height.
   `intrinsics` = fx, fy, cx, cy in the shim's pixels (centres at +0.5). A file that is not one
   is CS_DECODE_FAILED with the reason. */
cs_status cs_calibration_read(const char *path, double intrinsics[4], double *distortion, size_t capacity,
                              size_t *distortion_count, int32_t *width, int32_t *height, cs_error *error);

/* Removes a lens's distortion from images of one size: each output pixel is where the same
   camera without distortion (the same intrinsics) would see it; bilinear, black outside. */
typedef struct cs_undistorter cs_undistorter;
cs_status cs_undistorter_create(const double intrinsics[4], const double *distortion, size_t count, int32_t width,
                                int32_t height, cs_undistorter **out, cs_error *error);
void cs_undistorter_destroy(cs_undistorter *undistorter);
/* `out` must be another image than `image`. */
cs_status cs_undistorter_apply(const cs_undistorter *undistorter, const cs_image *image, cs_image *out, cs_error *error);

/* ---- Two views ---- */

/* Points here are normalized image coordinates: (x/z, y/z) of each viewing ray, camera
   coordinates (x right, y down, z forward). A relative pose maps the first camera's
   coordinates to the second's: X2 = R X1 + t, R row-major. */

/* The essential matrix (x2' E x1 = 0) of `count` matches, by OpenCV's five-point RANSAC;
   `threshold` in normalized units (pixels over focal length). `inliers` (count bytes, may be
   NULL) gets 1 per inlier. `found` is 0 when no matrix was found (not an error). */
cs_status cs_essential_estimate(const double *first, const double *second, size_t count, double threshold,
                                double confidence, double essential[9], uint8_t *inliers, int32_t *found,
                                cs_error *error);

/* The relative poses an essential matrix can come from: (R1, t), (R1, -t), (R2, t), (R2, -t),
   |t| = 1. `rotations` gets R1 then R2. */
cs_status cs_essential_decompose(const double essential[9], double rotations[18], double translation[3],
                                 cs_error *error);

/* The relative poses a plane-induced homography of normalized points (x2 ~ H x1) can come
   from: up to four (R, t/d, n), n the plane's normal in the first camera and d its distance. */
cs_status cs_homography_decompose(const double homography[9], double rotations[36], double translations[12],
                                  double normals[12], int32_t *count, cs_error *error);

/* ---- Video ---- */

typedef struct cs_video_reader cs_video_reader;

typedef struct cs_video_info {
    int32_t width;
    int32_t height;
    double frames_per_second; /* 0 when the container does not say */
    int64_t frame_count;      /* -1 when unknown */
} cs_video_info;

cs_status cs_video_reader_open(const char *path, cs_video_reader **out, cs_error *error);
void cs_video_reader_destroy(cs_video_reader *reader);
cs_status cs_video_reader_get_info(const cs_video_reader *reader, cs_video_info *out, cs_error *error);
/* Decodes the next frame into `frame` (BGR, reused). `got` is 0 at the end of the stream.
   `timestamp` is the frame's presentation time in seconds. */
cs_status cs_video_reader_read(cs_video_reader *reader, cs_image *frame, double *timestamp, int32_t *got,
                               cs_error *error);

typedef struct cs_video_writer cs_video_writer;

/* Writes BGR frames into `temporary` (a sibling of `path` with its extension), renamed onto `path`
   when finished; the container follows the extension (.mp4 gets mp4v, .avi MJPG). */
cs_status cs_video_writer_open(const char *path, const char *temporary, int32_t width, int32_t height,
                               double frames_per_second, cs_video_writer **out, cs_error *error);
void cs_video_writer_destroy(cs_video_writer *writer);
cs_status cs_video_writer_write(cs_video_writer *writer, const cs_image *frame, cs_error *error);
/* Closes the file and moves it into place. Destroying an unfinished writer discards the file. */
cs_status cs_video_writer_finish(cs_video_writer *writer, cs_error *error);

/* ---- Drawing on BGR images ---- */

typedef struct cs_color {
    uint8_t blue, green, red;
} cs_color;

cs_status cs_draw_polygon(cs_image *image, const float *points, size_t count, cs_color color,
                          int32_t thickness, cs_error *error);
cs_status cs_draw_text(cs_image *image, const char *text, float x, float y, double scale, cs_color color,
                       cs_error *error);
/* Fills a rectangle, blended: out = alpha * color + (1 - alpha) * image. */
cs_status cs_draw_filled_rect(cs_image *image, int32_t x, int32_t y, int32_t width, int32_t height, cs_color color,
                              double alpha, cs_error *error);

/* Text in any script through OpenCV's freetype module (loaded on first use, as the video
   modules are) and a TrueType or OpenType font file; `face` picks a face of a collection
   (.ttc). CS_NOT_FOUND when the file does not exist. */
typedef struct cs_text_renderer cs_text_renderer;
cs_status cs_text_renderer_create(const char *font_path, int32_t face, cs_text_renderer **out, cs_error *error);
void cs_text_renderer_destroy(cs_text_renderer *renderer);
/* Width and height in pixels of UTF-8 `text` drawn `height` pixels tall. */
cs_status cs_text_renderer_measure(cs_text_renderer *renderer, const char *text, int32_t height, int32_t *out_width,
                                   int32_t *out_height, cs_error *error);
/* Draws UTF-8 `text`, `height` pixels tall, its box's top-left corner at (x, y). */
cs_status cs_text_renderer_draw(cs_text_renderer *renderer, cs_image *image, const char *text, int32_t x, int32_t y,
                                int32_t height, cs_color color, cs_error *error);

/* ---- Bundle adjustment (Ceres): camera poses and world points refined together. ---- */

typedef struct cs_ba_observation {
    int32_t pose;  /* index into the poses */
    int32_t point; /* index into the points */
    double x, y;   /* the observed pixel, in the intrinsics' convention */
    double depth;  /* the pixel's measured depth, metres; 0 when it has none */
    double sigma;  /* the observation's standard deviation, pixels (e.g. the feature's scale) */
} cs_ba_observation;

typedef struct cs_ba_options {
    /* The Huber loss's threshold on an observation's residual in sigmas: beyond it an error
       counts linearly, so outliers pull less. */
    double huber;
    /* Depth becomes a third residual, the pixel's column in a virtual second camera this far to
       the right (ORB-SLAM2's RGB-D model): fx * baseline / depth pixels of disparity. */
    double depth_baseline;
    int32_t max_iterations;
    int32_t threads;
} cs_ba_options;

typedef struct cs_ba_summary {
    double initial_cost;
    double final_cost;
    int32_t iterations;
    int32_t converged; /* 1 when the solver met its tolerance */
} cs_ba_summary;

/* Minimises the robust reprojection error (and depth disagreement) over `pose_count` poses,
   world-to-camera, 12 doubles each (row-major rotation, then translation), and `point_count`
   world points (3 doubles each), both updated in place. Poses whose `fixed` flag is 1 are held
   (the gauge: one with depth, two without). One pinhole camera, `intrinsics` fx, fy, cx, cy.
   `residuals` (optional, one per observation) receives each observation's final error in
   sigmas. An observation behind its camera or with out-of-range indices is an invalid
   argument. */
cs_status cs_bundle_adjust(double *poses, const uint8_t *fixed, int32_t pose_count, double *points, int32_t point_count,
                           const cs_ba_observation *observations, size_t observation_count, const double intrinsics[4],
                           const cs_ba_options *options, double *residuals, cs_ba_summary *summary, cs_error *error);


#ifdef __cplusplus
}
#endif

#endif
