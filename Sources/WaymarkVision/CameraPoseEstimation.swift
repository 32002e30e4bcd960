import CSupport
import WaymarkCore

public struct CameraPoseOptions: Equatable, Sendable {
    /// Reprojection error, pixels, within which a correspondence is an inlier.
    public var threshold = 4.0
    public var maximumIterations = 300
    public var confidence = 0.999

    public init() {}
}

public struct CameraPoseEstimate: Sendable {
    /// World-to-camera transform.
    public var worldToCamera: RigidTransform
    /// One flag per correspondence.
    public var inliers: [Bool]
    public var inlierCount: Int
    /// RMS reprojection error of the inliers, pixels.
    public var rmsReprojectionError: Double
}

/// The camera pose that best explains 2D-3D correspondences (PnP in RANSAC, refined on the
/// inliers), or nil when no pose explains at least six of them.
public func estimateCameraPose(worldPoints: [SIMD3<Double>], imagePoints: [Point2], intrinsics: Intrinsics,
                               options: CameraPoseOptions = CameraPoseOptions()) -> CameraPoseEstimate?
{
    precondition(worldPoints.count == imagePoints.count, "one image point per world point")
    precondition(options.threshold > 0 && options.maximumIterations > 0, "PnP needs a threshold and iterations")
    let object = worldPoints.flatMap { [$0.x, $0.y, $0.z] }
    let image = imagePoints.flatMap { [Float($0.x), Float($0.y)] }
    let k = [intrinsics.fx, intrinsics.fy, intrinsics.cx, intrinsics.cy]
    var o = cs_pnp_options(threshold: options.threshold, max_iterations: Int32(options.maximumIterations),
                           confidence: options.confidence)
    var r = [Double](repeating: 0, count: 9)
    var t = [Double](repeating: 0, count: 3)
    var flags = [UInt8](repeating: 0, count: worldPoints.count)
    var inlierCount = 0
    var rms = 0.0
    var found: Int32 = 0
    checkInvariant {
        cs_pose_estimate_ransac(object, image, worldPoints.count, k, &o, &r, &t, &flags, &inlierCount, &rms, &found, $0)
    }
    guard found != 0 else { return nil }
    return CameraPoseEstimate(worldToCamera: RigidTransform(rotation: r, translation: t), inliers: flags.map { $0 != 0 },
                              inlierCount: inlierCount, rmsReprojectionError: rms)
}
