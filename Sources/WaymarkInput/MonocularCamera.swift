import Foundation
import WaymarkCore
import WaymarkVision

/// The camera of a video or an image folder, by the options: intrinsics as given; from a
/// calibration, whose lens distortion is then removed from every frame; or from a field of
/// view, with a note that poses measured with them are approximate.
struct MonocularCamera {
    let intrinsics: Intrinsics?
    let notes: [String]
    private let undistorter: Undistorter?

    init(options: FrameSourceOptions, width: Int, height: Int) throws(WaymarkError) {
        let given = [options.intrinsics != nil, options.calibration != nil, options.fieldOfView != nil].count { $0 }
        guard given <= 1 else {
            throw WaymarkError(.usage, "give the camera one way: intrinsics, a calibration file or a field of view")
        }
        if let calibration = options.calibration {
            let fitted = try calibration.scaled(toWidth: width, height: height)
            intrinsics = fitted.intrinsics
            undistorter = fitted.hasDistortion ? Undistorter(fitted) : nil
            notes = []
        } else if let degrees = options.fieldOfView {
            guard degrees > 0, degrees < 180 else {
                throw WaymarkError(.usage, "a field of view is an angle between 0° and 180°; got \(degrees)°")
            }
            intrinsics = Intrinsics(horizontalFieldOfView: degrees, width: width, height: height)
            undistorter = nil
            notes = ["intrinsics from a \(String(format: "%g", degrees))° field of view, not a calibration: camera poses and sizes are approximate"]
        } else {
            intrinsics = options.intrinsics
            undistorter = nil
            notes = []
        }
    }

    /// The frame as the intrinsics describe it: without the lens's distortion.
    func prepare(_ image: Image) -> Image { undistorter?.undistort(image) ?? image }
}
