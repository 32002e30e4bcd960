import WaymarkCore

/// How well a set of inlier correspondences pins a camera pose down: the first-order
/// covariance σ²(JᵀWJ)⁻¹ of the camera centre and rotation, with W each point's weight
/// 1/sigma² (its feature's scale) and σ the inliers' RMS reprojection error in those units.
/// Few points, far points or points bunched in one part of the image give a large one,
/// however small the reprojection error.
struct PoseUncertainty {
    /// Standard deviation of the camera centre, metres (root of the covariance's trace).
    var centre: Double
    /// Standard deviation of the rotation, degrees.
    var rotationDegrees: Double

    init?(worldPoints: [SIMD3<Double>], imagePoints: [Point2], sigmas: [Double], worldToCamera: RigidTransform,
          intrinsics: Intrinsics, rmsError: Double)
    {
        // Perturbation: rotation ω applied in the camera frame, centre moved by δ (world):
        // X_c' = exp(ω)·R·(X − C − δ) ≈ X_c + ω × X_c − R·δ.
        var normal = [Double](repeating: 0, count: 36)
        /// Adds the Jacobian row of one image coordinate whose derivative by the camera point is `d`.
        func accumulate(_ d: SIMD3<Double>, at p: SIMD3<Double>) {
            // ∂/∂ω of d·(ω × p) = (p × d); ∂/∂δ of d·(−R δ) = −Rᵀd.
            let rotation = SIMD3(p.y * d.z - p.z * d.y, p.z * d.x - p.x * d.z, p.x * d.y - p.y * d.x)
            let centre = -worldToCamera.applyInverseRotation(d)
            let row = SIMD8(rotation.x, rotation.y, rotation.z, centre.x, centre.y, centre.z, 0, 0)
            for a in 0..<6 { for b in 0..<6 { normal[6 * a + b] += row[a] * row[b] } }
        }
        for i in worldPoints.indices {
            let p = worldToCamera.apply(worldPoints[i])
            guard p.z > 0 else { continue }
            let weight = 1 / sigmas[i]
            accumulate(SIMD3(intrinsics.fx / p.z, 0, -intrinsics.fx * p.x / (p.z * p.z)) * weight, at: p)
            accumulate(SIMD3(0, intrinsics.fy / p.z, -intrinsics.fy * p.y / (p.z * p.z)) * weight, at: p)
        }
        guard let inverse = Self.invert6(normal) else { return nil }
        let variance = rmsError * rmsError
        centre = ((inverse[21] + inverse[28] + inverse[35]) * variance).squareRoot()
        rotationDegrees = ((inverse[0] + inverse[7] + inverse[14]) * variance).squareRoot() * 180 / .pi
    }

    /// Gauss-Jordan with partial pivoting; nil when singular.
    private static func invert6(_ m: [Double]) -> [Double]? {
        var a = m
        var inverse = (0..<36).map { $0 / 6 == $0 % 6 ? 1.0 : 0 }
        for column in 0..<6 {
            let pivot = (column..<6).max { abs(a[6 * $0 + column]) < abs(a[6 * $1 + column]) }!
            guard abs(a[6 * pivot + column]) > 1e-12 else { return nil }
            for k in 0..<6 {
                a.swapAt(6 * column + k, 6 * pivot + k)
                inverse.swapAt(6 * column + k, 6 * pivot + k)
            }
            let scale = 1 / a[6 * column + column]
            for k in 0..<6 {
                a[6 * column + k] *= scale
                inverse[6 * column + k] *= scale
            }
            for row in 0..<6 where row != column {
                let factor = a[6 * row + column]
                guard factor != 0 else { continue }
                for k in 0..<6 {
                    a[6 * row + k] -= factor * a[6 * column + k]
                    inverse[6 * row + k] -= factor * inverse[6 * column + k]
                }
            }
        }
        return inverse
    }
}
