import CSupport
import WaymarkCore

/// Frame-to-frame camera motion from colour and depth (OpenCV's rgbd odometry).
public final class RGBDOdometry {
    public enum Method: Int32, Sendable {
        /// Photometric and geometric: needs texture.
        case rgbd = 0
        /// Depth only (ICP): needs shape.
        case icp = 1
        /// Both.
        case rgbdICP = 2
    }

    private let handle: OpaquePointer

    public init(intrinsics: Intrinsics, method: Method = .rgbdICP) {
        var out: OpaquePointer?
        let k = [intrinsics.fx, intrinsics.fy, intrinsics.cx, intrinsics.cy]
        checkInvariant { cs_odometry_create(k, method.rawValue, &out, $0) }
        handle = out!
    }

    deinit { cs_odometry_destroy(handle) }

    /// Feeds the next frame; returns the motion that maps points in the previous frame's
    /// camera coordinates to this frame's, or nil for the first frame and when it fails.
    public func track(gray: Image, depth: [Float]) -> RigidTransform? {
        precondition(gray.channels == 1 && depth.count == gray.width * gray.height, "a gray image and its depth")
        let pixels = gray.pixels
        var motion = [Double](repeating: 0, count: 16)
        var tracked: Int32 = 0
        checkInvariant {
            cs_odometry_track(handle, pixels, depth, Int32(gray.width), Int32(gray.height), &motion, &tracked, $0)
        }
        guard tracked != 0 else { return nil }
        return RigidTransform(rotation: [motion[0], motion[1], motion[2], motion[4], motion[5], motion[6], motion[8], motion[9], motion[10]],
                              translation: [motion[3], motion[7], motion[11]])
    }
}
