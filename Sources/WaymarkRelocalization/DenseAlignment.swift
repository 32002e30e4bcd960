import WaymarkCore
import WaymarkVision

/// Each frame's pose aligned densely (photometric and ICP terms over every pixel with depth) to
/// an anchor frame of known pose: a keyframe, so that the error does not add up frame after
/// frame as chained odometry's does. Features place a frame to a few millimetres; this takes it
/// the rest of the way from their guess. Frames 640 pixels wide or more are aligned at half size.
final class DenseAlignment {
    private let odometry: RGBDOdometry
    private let halves: Bool
    /// Reused half-size copies.
    private let halfGray = Image(width: 1, height: 1, channels: 1)
    private var halfDepth: [Float] = []
    /// The frame poses are measured from, and its camera-to-world pose.
    private var anchor: (frame: RGBDOdometry.Frame, pose: RigidTransform)?

    init(intrinsics k: Intrinsics, width: Int, height: Int, options: RGBDOdometry.Options) {
        halves = width >= 640 && width % 2 == 0 && height % 2 == 0
        let scaled = halves ? Intrinsics(fx: k.fx / 2, fy: k.fy / 2, cx: k.cx / 2, cy: k.cy / 2) : k
        odometry = RGBDOdometry(intrinsics: scaled, options: options)
    }

    /// A frame ready to be aligned (and to become the anchor).
    func prepare(gray: Image, depth: [Float]) -> RGBDOdometry.Frame {
        guard halves else { return RGBDOdometry.Frame(gray: gray, depth: depth) }
        DepthImage.halve(depth, width: gray.width, height: gray.height, into: &halfDepth)
        gray.resize(width: gray.width / 2, height: gray.height / 2, into: halfGray)
        return RGBDOdometry.Frame(gray: halfGray, depth: halfDepth)
    }

    func anchor(at frame: RGBDOdometry.Frame, pose: RigidTransform) { anchor = (frame, pose) }

    func forget() { anchor = nil }

    /// `frame`'s camera-to-world pose aligned to the anchor from `guess`; nil without an anchor
    /// or when the alignment fails.
    func align(_ frame: RGBDOdometry.Frame, guess: RigidTransform) -> RigidTransform? {
        guard let anchor, anchor.frame !== frame, anchor.frame.width == frame.width, anchor.frame.height == frame.height else {
            return nil
        }
        // The guess as the motion from the anchor's camera to the frame's.
        guard let motion = odometry.motion(from: anchor.frame, to: frame, initial: guess.inverse * anchor.pose) else {
            return nil
        }
        return (anchor.pose * motion.inverse).orthonormalized
    }
}
