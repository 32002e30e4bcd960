import CSupport
import WaymarkCore

public struct PlanarPose: Sendable {
    /// Object-to-camera transform.
    public var transform: RigidTransform
    public var rmsReprojectionError: Double
}

/// Pose of a planar target (object points with z = 0, metres) from its image points.
public func estimatePlanarPose(objectPoints: [SIMD3<Double>], imagePoints: [Point2], intrinsics: Intrinsics)
    throws(WaymarkError) -> PlanarPose
{
    precondition(objectPoints.count == imagePoints.count && objectPoints.count >= 4, "needs ≥ 4 correspondences")
    let object = objectPoints.flatMap { [$0.x, $0.y, $0.z] }
    let image = imagePoints.flatMap { [Float($0.x), Float($0.y)] }
    let k = [intrinsics.fx, intrinsics.fy, intrinsics.cx, intrinsics.cy]
    var r = [Double](repeating: 0, count: 9)
    var t = [Double](repeating: 0, count: 3)
    var rms = 0.0
    try check { cs_pose_estimate_planar(object, image, objectPoints.count, k, &r, &t, &rms, $0) }
    return PlanarPose(transform: RigidTransform(rotation: r, translation: t), rmsReprojectionError: rms)
}
