/// Real photographs from ../shared/datasets the light estimate is measured on: indoor and
/// outdoor, daylight, overcast and tungsten. The development split (Oxford's first images) is
/// the one it was tuned on; the validation split is only measured.
public enum LightPhotographs {
    public static let development = [
        "oxford_affine/boat/img1.png", "oxford_affine/bikes/img1.png", "oxford_affine/trees/img1.png",
        "oxford_affine/ubc/img1.png", "oxford_affine/wall/img1.png", "oxford_affine/graf/img1.png",
        "oxford_affine/bark/img1.png", "oxford_affine/leuven/img1.png",
    ]
    public static let validation = [
        "middlebury_stereo/conesQuarterSize/refImage.png", "middlebury_stereo/venus/refImage.png",
        "middlebury_stereo/barn1/refImage.png", "strecha_mvs_gt_cameras/fountain-P11/images_half/0000.jpg",
        "strecha_mvs_gt_cameras/Herz-Jesus-P8/images_half/0000.jpg", "open3d_testdata_rgbd/RGBD/color/00000.jpg",
        "tum_fr1_xyz_excerpt/rgb/1305031102.175304.png", "tum_fr1_xyz_excerpt/rgb/1305031102.843290.png",
    ]
    public static let all = development + validation

    /// A large poster held over a photograph's BGR pixels, a third of its view: saturated red, or
    /// `hidden`'s white, clipped, which the light estimate leaves out, so that the view is only
    /// hidden (telling what the poster's colour does from what hiding that third does).
    /// Blue, green, red.
    public static let posterRed: (UInt8, UInt8, UInt8) = (40, 30, 200)
    public static let hidden: (UInt8, UInt8, UInt8) = (255, 255, 255)

    public static func holdPoster(
        over pixels: inout [UInt8], width: Int, height: Int, colour: (UInt8, UInt8, UInt8) = posterRed
    ) {
        let (left, top) = (width / 5, height / 5)
        for y in top..<(top + height * 3 / 5 - height / 20) {
            for x in left..<(left + width * 3 / 5) {
                (pixels[3 * (y * width + x)], pixels[3 * (y * width + x) + 1], pixels[3 * (y * width + x) + 2]) = colour
            }
        }
    }
}
