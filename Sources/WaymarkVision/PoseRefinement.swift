import Foundation
import WaymarkCore

/// A world point seen at a pixel of the camera whose pose is refined.
public struct PoseObservation: Sendable {
    public var world: SIMD3<Double>
    public var pixel: Point2
    /// The depth measured at the pixel, metres, when there is one.
    public var depth: Double?
    /// Standard deviation of the pixel, pixels (1.2^octave for an ORB feature).
    public var sigma: Double

    public init(world: SIMD3<Double>, pixel: Point2, depth: Double? = nil, sigma: Double = 1) {
        self.world = world
        self.pixel = pixel
        self.depth = depth
        self.sigma = sigma
    }
}

public struct PoseRefinementOptions: Equatable, Sendable {
    /// An observation beyond these squared errors in sigmas is an outlier: the 95 % bounds of
    /// a Gaussian error in two dimensions (pixel) and three (pixel and depth).
    public var outlierBound2 = 5.991
    public var outlierBound3 = 7.815
    /// Depth enters as the column in a virtual camera this far to the right, metres, as in
    /// `BundleAdjustmentOptions.depthBaseline`.
    public var depthBaseline = 0.08
    /// Rounds of Gauss-Newton, outliers set aside after each (ORB-SLAM's motion-only bundle
    /// adjustment: 4 of 10 iterations).
    public var rounds = 4
    public var iterationsPerRound = 10

    public init() {}
}

public struct PoseRefinement: Sendable {
    public var worldToCamera: RigidTransform
    public var inliers: [Bool]
    public var inlierCount: Int
}

/// Motion-only bundle adjustment: the camera pose that best explains observations of fixed
/// world points, from a first guess, with a Huber loss; the points the final pose leaves
/// beyond the outlier bounds are outliers. Hand-written rather than Ceres: a 6×6 system per
/// iteration, solved in microseconds for each frame, where a solver's setup would cost more
/// than the solve.
public func refinePose(_ worldToCamera: RigidTransform, observations: [PoseObservation], intrinsics k: Intrinsics,
                       options: PoseRefinementOptions = PoseRefinementOptions()) -> PoseRefinement
{
    // A guess chained through many frames has drifted from orthonormal, and the constant-velocity
    // model (which inverts by transposing) would compound it; the refined pose starts clean.
    var rotation = Matrix3(worldToCamera.orthonormalized.rotation)
    var translation = worldToCamera.translationVector
    var inliers = [Bool](repeating: true, count: observations.count)
    let bf = k.fx * options.depthBaseline
    for round in 0..<options.rounds {
        // The last round without the robust loss, as ORB-SLAM does: the outliers are out by then.
        let robust = round < options.rounds - 1
        for _ in 0..<options.iterationsPerRound {
            var h = [Double](repeating: 0, count: 36)
            var g = [Double](repeating: 0, count: 6)
            for (i, o) in observations.enumerated() where inliers[i] {
                let p = rotation.apply(o.world) + translation
                guard p.z > 1e-6 else { continue }
                let iz = 1 / p.z
                let u = k.fx * p.x * iz + k.cx, v = k.fy * p.y * iz + k.cy
                // d(projection)/d(camera point), rows u, v and the virtual right column.
                let du = SIMD3(k.fx * iz, 0, -k.fx * p.x * iz * iz)
                let dv = SIMD3(0, k.fy * iz, -k.fy * p.y * iz * iz)
                let eu = o.pixel.x - u, ev = o.pixel.y - v
                let er = o.depth.map { (o.pixel.x - bf / $0) - (u - bf * iz) } ?? 0
                let information = 1 / (o.sigma * o.sigma)
                let chi2 = (eu * eu + ev * ev + er * er) * information
                let bound = o.depth == nil ? options.outlierBound2 : options.outlierBound3
                let w = (robust && chi2 > bound ? (bound / chi2).squareRoot() : 1) * information
                accumulate(du, eu, at: p, weight: w, &h, &g)
                accumulate(dv, ev, at: p, weight: w, &h, &g)
                if o.depth != nil { accumulate(du + SIMD3(0, 0, bf * iz * iz), er, at: p, weight: w, &h, &g) }
            }
            guard let step = solveSymmetricPositiveDefinite(h, g, size: 6) else { break }
            let turn = Matrix3(rotationVector: SIMD3(step[0], step[1], step[2]))
            rotation = turn * rotation
            translation = turn.apply(translation) + SIMD3(step[3], step[4], step[5])
            if step.reduce(0, { $0 + $1 * $1 }) < 1e-14 { break }
        }
        for (i, o) in observations.enumerated() {
            inliers[i] = squaredError(o, rotation: rotation, translation: translation, k, bf: bf)
                <= (o.depth == nil ? options.outlierBound2 : options.outlierBound3)
        }
    }
    return PoseRefinement(worldToCamera: RigidTransform(rotation: rotation.elements, translation: [translation.x, translation.y, translation.z]),
                          inliers: inliers, inlierCount: inliers.count { $0 })
}

/// Adds one residual row to the normal equations: `dp` its derivative by the camera point,
/// `e` its error, under the left perturbation (ω, v) whose effect on the point is −[p]× ω + v.
@inline(__always)
private func accumulate(_ dp: SIMD3<Double>, _ e: Double, at p: SIMD3<Double>, weight w: Double, _ h: inout [Double],
                        _ g: inout [Double])
{
    let j = SIMD8<Double>(dp.z * p.y - dp.y * p.z, dp.x * p.z - dp.z * p.x, dp.y * p.x - dp.x * p.y, dp.x, dp.y, dp.z, 0, 0)
    for a in 0..<6 {
        g[a] += w * j[a] * e
        for b in a..<6 { h[a * 6 + b] += w * j[a] * j[b] }
    }
}

/// An observation's squared error in sigmas at a pose; infinite behind the camera.
private func squaredError(_ o: PoseObservation, rotation: Matrix3, translation: SIMD3<Double>, _ k: Intrinsics, bf: Double)
    -> Double
{
    let p = rotation.apply(o.world) + translation
    guard p.z > 1e-6 else { return .infinity }
    let u = k.fx * p.x / p.z + k.cx, v = k.fy * p.y / p.z + k.cy
    var e = (o.pixel.x - u) * (o.pixel.x - u) + (o.pixel.y - v) * (o.pixel.y - v)
    if let depth = o.depth {
        let right = (o.pixel.x - bf / depth) - (u - bf / p.z)
        e += right * right
    }
    return e / (o.sigma * o.sigma)
}

/// A 3×3 matrix by rows, for the hot loops that `RigidTransform`'s arrays would allocate in.
struct Matrix3 {
    var r0, r1, r2: SIMD3<Double>

    init(_ rowMajor: [Double]) {
        r0 = SIMD3(rowMajor[0], rowMajor[1], rowMajor[2])
        r1 = SIMD3(rowMajor[3], rowMajor[4], rowMajor[5])
        r2 = SIMD3(rowMajor[6], rowMajor[7], rowMajor[8])
    }

    /// Rodrigues' formula.
    init(rotationVector w: SIMD3<Double>) { self.init(RigidTransform.rotation(rotationVector: w)) }

    var elements: [Double] { [r0.x, r0.y, r0.z, r1.x, r1.y, r1.z, r2.x, r2.y, r2.z] }

    func apply(_ p: SIMD3<Double>) -> SIMD3<Double> { SIMD3((r0 * p).sum(), (r1 * p).sum(), (r2 * p).sum()) }

    static func * (a: Matrix3, b: Matrix3) -> Matrix3 {
        let columns = (SIMD3(b.r0.x, b.r1.x, b.r2.x), SIMD3(b.r0.y, b.r1.y, b.r2.y), SIMD3(b.r0.z, b.r1.z, b.r2.z))
        func row(_ r: SIMD3<Double>) -> [Double] { [(r * columns.0).sum(), (r * columns.1).sum(), (r * columns.2).sum()] }
        return Matrix3(row(a.r0) + row(a.r1) + row(a.r2))
    }
}
