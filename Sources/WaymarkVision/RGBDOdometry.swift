import CSupport
import WaymarkCore

/// Camera motion between two frames from colour and depth (OpenCV's rgbd odometry).
public final class RGBDOdometry {
    public enum Method: Int32, Sendable {
        /// Photometric and geometric: needs texture.
        case rgbd = 0
        /// Depth only (ICP): needs shape.
        case icp = 1
        /// Both.
        case rgbdICP = 2
    }

    public struct Options: Equatable, Sendable {
        public var method = Method.rgbdICP
        /// Iterations per pyramid level, finest first (OpenCV's default; fewer levels and
        /// iterations suffice from a close guess).
        public var iterations = [7, 7, 7, 10]
        /// A larger motion between the two frames is refused, metres and degrees (OpenCV's defaults).
        public var maximumTranslation = 0.15
        public var maximumRotationDegrees = 15.0

        public init(method: Method = .rgbdICP) { self.method = method }
    }

    /// A gray image and its depth prepared for the odometry; it keeps its image pyramids once
    /// they are built, so a frame compared many times (a keyframe) pays for them once.
    public final class Frame {
        fileprivate let handle: OpaquePointer
        public let width: Int
        public let height: Int

        /// `depth`: metres, row-major, the image's size; 0 or NaN where unknown.
        public init(gray: Image, depth: [Float]) {
            precondition(gray.channels == 1 && depth.count == gray.width * gray.height, "a gray image and its depth")
            width = gray.width
            height = gray.height
            let pixels = gray.pixels
            var out: OpaquePointer?
            checkInvariant { cs_odometry_frame_create(pixels, depth, Int32(gray.width), Int32(gray.height), &out, $0) }
            handle = out!
        }

        deinit { cs_odometry_frame_destroy(handle) }
    }

    private let handle: OpaquePointer
    /// For `track`: the last frame given.
    private var previous: Frame?

    public init(intrinsics: Intrinsics, options: Options = Options()) {
        precondition(!options.iterations.isEmpty && options.iterations.allSatisfy { $0 > 0 }, "each level needs an iteration")
        var out: OpaquePointer?
        let k = [intrinsics.fx, intrinsics.fy, intrinsics.cx, intrinsics.cy]
        checkInvariant { cs_odometry_create(k, options.method.rawValue, &out, $0) }
        handle = out!
        let iterations = options.iterations.map(Int32.init)
        checkInvariant {
            cs_odometry_configure(handle, iterations, Int32(iterations.count), options.maximumTranslation,
                                  options.maximumRotationDegrees, $0)
        }
    }

    public convenience init(intrinsics: Intrinsics, method: Method) {
        self.init(intrinsics: intrinsics, options: Options(method: method))
    }

    deinit { cs_odometry_destroy(handle) }

    /// The motion that maps points in `from`'s camera coordinates to `to`'s, starting from
    /// `initial` (the identity when nil); nil when it fails or exceeds the largest motion.
    public func motion(from: Frame, to: Frame, initial: RigidTransform? = nil) -> RigidTransform? {
        precondition(from !== to && from.width == to.width && from.height == to.height, "two frames of one size")
        var motion = [Double](repeating: 0, count: 16)
        var tracked: Int32 = 0
        let guess = (initial ?? .identity).matrix
        checkInvariant { cs_odometry_compute(handle, from.handle, to.handle, guess, &motion, &tracked, $0) }
        guard tracked != 0 else { return nil }
        return RigidTransform(rotation: [motion[0], motion[1], motion[2], motion[4], motion[5], motion[6], motion[8], motion[9], motion[10]],
                              translation: [motion[3], motion[7], motion[11]])
    }

    /// Feeds the next frame of a stream; returns the motion from the previous frame given (as
    /// `motion(from:to:)`), or nil for the first frame and when it fails.
    public func track(gray: Image, depth: [Float]) -> RigidTransform? {
        let frame = Frame(gray: gray, depth: depth)
        defer { previous = frame }
        return previous.flatMap { motion(from: $0, to: frame) }
    }
}
