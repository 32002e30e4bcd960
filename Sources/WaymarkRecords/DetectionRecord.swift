import Waymark

/// A reference image found in a frame.
public struct DetectionRecord: Codable, Sendable {
    public var name: String
    /// `detected`, `tracked` or `lost`; only in `process`.
    public var state: String?
    /// The frame positions of the reference's corners (0,0), (W,0), (W,H), (0,H).
    public var corners: [[Double]]
    /// Reference pixels to frame pixels, row-major 3×3.
    public var homography: [Double]
    public var inliers: Int
    public var confidence: Double
    /// Image-to-camera 4×4, metres; with intrinsics and the reference's physical width.
    public var pose: [Double]?

    public init(_ detection: ImageDetection, includeState: Bool) {
        name = detection.name
        state = includeState ? detection.state.rawValue : nil
        corners = detection.corners.map { [$0.x, $0.y] }
        homography = detection.homography.elements
        inliers = detection.inliers
        confidence = (detection.confidence * 1000).rounded() / 1000
        pose = detection.pose?.record
    }
}
