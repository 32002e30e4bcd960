import CSupport
import WaymarkCore

/// The least-squares similarity or rigid transform that maps `source` points onto `target`
/// points (Umeyama's method, through Eigen): target ≈ scale · R · source + t.
public func alignPoints(_ source: [SIMD3<Double>], onto target: [SIMD3<Double>], withScale: Bool)
    throws(WaymarkError) -> (transform: RigidTransform, scale: Double)
{
    precondition(source.count == target.count, "alignment needs point pairs")
    let from = source.flatMap { [$0.x, $0.y, $0.z] }
    let to = target.flatMap { [$0.x, $0.y, $0.z] }
    var rotation = [Double](repeating: 0, count: 9)
    var translation = [Double](repeating: 0, count: 3)
    var scale = 1.0
    try check { cs_align_points(from, to, source.count, withScale ? 1 : 0, &rotation, &translation, &scale, $0) }
    return (RigidTransform(rotation: rotation, translation: translation), scale)
}

/// Absolute trajectory error of the translation part, as evo's `evo_ape … -a` reports it:
/// the estimate is aligned to the reference (rigid, or with scale for monocular), then each
/// pair's position difference is an error.
public struct AbsoluteTrajectoryError: Sendable {
    public enum Alignment: Sendable { case none, rigid, similarity }

    public var errors: [Double]
    public var rmse: Double
    public var mean: Double
    public var median: Double
    /// Population standard deviation.
    public var standardDeviation: Double
    public var minimum: Double
    public var maximum: Double
    /// The transform applied to the estimate, and its scale.
    public var alignment: (transform: RigidTransform, scale: Double)

    /// Pairs by time (within `maximumTimeDifference`), or by index when both have the same
    /// number of samples and `byIndex` is set (KITTI).
    public init(
        estimate: Trajectory, reference: Trajectory, alignment: Alignment = .rigid, byIndex: Bool = false,
        maximumTimeDifference: Double = 0.01
    ) throws(WaymarkError) {
        let pairs = byIndex
            ? Array(zip(estimate.samples.indices, reference.samples.indices))
            : estimate.associated(with: reference, maximumDifference: maximumTimeDifference)
        guard pairs.count >= 3 else {
            throw WaymarkError(.badData, "only \(pairs.count) poses of the two trajectories pair up; at least 3 are needed")
        }
        let estimated = estimate.positions
        let truth = reference.positions
        let source = pairs.map { estimated[$0.0] }
        let target = pairs.map { truth[$0.1] }
        self.alignment = alignment == .none
            ? (RigidTransform.identity, 1)
            : try alignPoints(source, onto: target, withScale: alignment == .similarity)
        let (transform, scale) = self.alignment
        errors = zip(source, target).map { p, q in
            let r = transform.rotation
            let moved = SIMD3(r[0] * p.x + r[1] * p.y + r[2] * p.z, r[3] * p.x + r[4] * p.y + r[5] * p.z,
                              r[6] * p.x + r[7] * p.y + r[8] * p.z) * scale
                + transform.translationVector
            let d = moved - q
            return (d * d).sum().squareRoot()
        }
        let n = Double(errors.count)
        let sorted = errors.sorted()
        let average = errors.reduce(0, +) / n
        mean = average
        rmse = (errors.reduce(0) { $0 + $1 * $1 } / n).squareRoot()
        median = sorted.count % 2 == 1 ? sorted[sorted.count / 2] : (sorted[sorted.count / 2 - 1] + sorted[sorted.count / 2]) / 2
        standardDeviation = (errors.reduce(0) { $0 + ($1 - average) * ($1 - average) } / n).squareRoot()
        minimum = sorted.first!
        maximum = sorted.last!
    }
}
