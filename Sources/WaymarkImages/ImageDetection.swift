import WaymarkCore

/// Where a reference image is in a frame.
public struct ImageDetection: Sendable {
    public enum State: String, Sendable {
        /// Found by searching the whole frame.
        case detected
        /// Followed from the previous frame.
        case tracked
        /// Was followed until the previous frame and is no longer found.
        case lost
    }

    public var name: String
    /// Index of the reference in the detector's active set.
    public var reference: Int
    public var state: State
    /// Reference pixels → frame pixels.
    public var homography: Homography
    /// Frame positions of the reference's corners (0,0), (W,0), (W,H), (0,H).
    public var corners: [Point2]
    public var inliers: Int
    /// 0...1: how strongly the frame supports this detection.
    public var confidence: Double
    /// Image-to-camera transform (metres) when intrinsics and the physical width are known.
    /// The image's frame has its origin at the image centre, x along its rows to the right,
    /// y down its columns, z into the image.
    public var pose: RigidTransform?
}
