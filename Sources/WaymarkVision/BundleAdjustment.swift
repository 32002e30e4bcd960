import CSupport
import WaymarkCore

/// One camera's view of one world point.
public struct BundleObservation: Sendable {
    /// Index into the problem's poses and points.
    public var pose: Int
    public var point: Int
    public var pixel: Point2
    /// The pixel's measured depth, metres, when it has one.
    public var depth: Double?
    /// The observation's standard deviation, pixels (1.2^octave for an ORB feature).
    public var sigma: Double

    public init(pose: Int, point: Int, pixel: Point2, depth: Double? = nil, sigma: Double = 1) {
        self.pose = pose
        self.point = point
        self.pixel = pixel
        self.depth = depth
        self.sigma = sigma
    }
}

public struct BundleAdjustmentOptions: Equatable, Sendable {
    /// Beyond this many sigmas an observation's error counts linearly (Huber): √5.991, the
    /// 95 % bound of a two-dimensional Gaussian error, as ORB-SLAM uses.
    public var huber = 5.991.squareRoot()
    /// Depth enters as the pixel's column in a virtual camera this far to the right, metres
    /// (ORB-SLAM2's RGB-D model; 0.08 m is a Kinect's baseline).
    public var depthBaseline = 0.08
    public var maximumIterations = 20
    public var threads = 1

    public init() {}
}

public struct BundleAdjustmentReport: Sendable {
    public var initialCost: Double
    public var finalCost: Double
    public var iterations: Int
    public var converged: Bool
    /// Each observation's final error in sigmas (depth included), in observation order: above
    /// `huber` it is an outlier.
    public var residuals: [Double]
}

/// Camera poses and world points refined together so that every observation is explained
/// (Ceres, behind CSupport: a Huber loss, the points eliminated by a Schur complement).
public struct BundleAdjustmentProblem: Sendable {
    public var intrinsics: Intrinsics
    /// Camera-to-world, as everywhere in the engine.
    public var poses: [RigidTransform]
    /// Poses held where they are: the gauge (one with depth, two without) and the keyframes
    /// outside a local window.
    public var fixed: [Bool]
    public var points: [SIMD3<Double>]
    public var observations: [BundleObservation]

    public init(intrinsics: Intrinsics, poses: [RigidTransform], fixed: [Bool], points: [SIMD3<Double>],
                observations: [BundleObservation])
    {
        precondition(fixed.count == poses.count, "one fixed flag per pose")
        self.intrinsics = intrinsics
        self.poses = poses
        self.fixed = fixed
        self.points = points
        self.observations = observations
    }

    /// Refines `poses` and `points` in place. An observation with an index out of range, an
    /// invalid pixel, depth or sigma, or a point behind its camera is a usage error.
    public mutating func solve(options: BundleAdjustmentOptions = BundleAdjustmentOptions()) throws(WaymarkError)
        -> BundleAdjustmentReport
    {
        var worldToCamera = poses.flatMap { pose in
            let inverse = pose.inverse
            return inverse.rotation + inverse.translation
        }
        var coordinates = points.flatMap { [$0.x, $0.y, $0.z] }
        let flags = fixed.map { UInt8($0 ? 1 : 0) }
        let views = observations.map { o in
            cs_ba_observation(pose: Int32(clamping: o.pose), point: Int32(clamping: o.point), x: o.pixel.x, y: o.pixel.y,
                              depth: o.depth ?? 0, sigma: o.sigma)
        }
        let k = [intrinsics.fx, intrinsics.fy, intrinsics.cx, intrinsics.cy]
        var settings = cs_ba_options(huber: options.huber, depth_baseline: options.depthBaseline,
                                     max_iterations: Int32(options.maximumIterations), threads: Int32(options.threads))
        var residuals = [Double](repeating: 0, count: observations.count)
        var summary = cs_ba_summary()
        try check {
            cs_bundle_adjust(&worldToCamera, flags, Int32(poses.count), &coordinates, Int32(points.count), views, views.count,
                             k, &settings, &residuals, &summary, $0)
        }
        poses = poses.indices.map { i in
            let values = worldToCamera[(12 * i)..<(12 * i + 12)]
            return RigidTransform(rotation: Array(values.prefix(9)), translation: Array(values.suffix(3))).inverse
        }
        points = points.indices.map { SIMD3(coordinates[3 * $0], coordinates[3 * $0 + 1], coordinates[3 * $0 + 2]) }
        return BundleAdjustmentReport(initialCost: summary.initial_cost, finalCost: summary.final_cost,
                                      iterations: Int(summary.iterations), converged: summary.converged != 0,
                                      residuals: residuals)
    }
}
