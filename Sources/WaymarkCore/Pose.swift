import Foundation

/// A rigid transform: X' = R X + t. Rotation row-major, translation in metres.
public struct RigidTransform: Equatable, Sendable {
    public var rotation: [Double]
    public var translation: [Double]

    public init(rotation: [Double], translation: [Double]) {
        precondition(rotation.count == 9 && translation.count == 3, "rotation is 3×3 and translation 3")
        self.rotation = rotation
        self.translation = translation
    }

    /// Row-major 4×4 matrix.
    public var matrix: [Double] {
        let r = rotation
        let t = translation
        return [r[0], r[1], r[2], t[0], r[3], r[4], r[5], t[1], r[6], r[7], r[8], t[2], 0, 0, 0, 1]
    }
}

extension RigidTransform {
    /// R·p + t.
    public func apply(_ p: SIMD3<Double>) -> SIMD3<Double> {
        let r = rotation
        return SIMD3(r[0] * p.x + r[1] * p.y + r[2] * p.z + translation[0],
                     r[3] * p.x + r[4] * p.y + r[5] * p.z + translation[1],
                     r[6] * p.x + r[7] * p.y + r[8] * p.z + translation[2])
    }

    /// a · b: apply b, then a.
    public static func * (a: RigidTransform, b: RigidTransform) -> RigidTransform {
        let (p, q) = (a.rotation, b.rotation)
        var r = [Double](repeating: 0, count: 9)
        for i in 0..<3 { for j in 0..<3 { r[i * 3 + j] = p[i * 3] * q[j] + p[i * 3 + 1] * q[3 + j] + p[i * 3 + 2] * q[6 + j] } }
        let t = a.apply(b.translationVector)
        return RigidTransform(rotation: r, translation: [t.x, t.y, t.z])
    }

    public var inverse: RigidTransform {
        let r = rotation
        let transposed = [r[0], r[3], r[6], r[1], r[4], r[7], r[2], r[5], r[8]]
        let t = RigidTransform(rotation: transposed, translation: [0, 0, 0])
            .apply(-translationVector)
        return RigidTransform(rotation: transposed, translation: [t.x, t.y, t.z])
    }

    /// R·v: a direction carried by the transform (no translation).
    public func applyRotation(_ v: SIMD3<Double>) -> SIMD3<Double> {
        let r = rotation
        return SIMD3(r[0] * v.x + r[1] * v.y + r[2] * v.z, r[3] * v.x + r[4] * v.y + r[5] * v.z,
                     r[6] * v.x + r[7] * v.y + r[8] * v.z)
    }

    /// Rᵀ·v: for a camera-to-world pose, a world direction in camera coordinates.
    public func applyInverseRotation(_ v: SIMD3<Double>) -> SIMD3<Double> {
        let r = rotation
        return SIMD3(r[0] * v.x + r[3] * v.y + r[6] * v.z, r[1] * v.x + r[4] * v.y + r[7] * v.z,
                     r[2] * v.x + r[5] * v.y + r[8] * v.z)
    }
}

extension RigidTransform {
    /// Distance between the translations, metres, and the angle of the relative rotation,
    /// degrees: how far apart two poses are.
    public func difference(to other: RigidTransform) -> (translation: Double, rotationDegrees: Double) {
        let d = zip(translation, other.translation).map { $0 - $1 }
        let trace = (0..<3).reduce(0.0) { sum, i in
            sum + (0..<3).reduce(0.0) { $0 + rotation[3 * $1 + i] * other.rotation[3 * $1 + i] }
        }
        let angle = acos(min(1, max(-1, (trace - 1) / 2))) * 180 / .pi
        return ((d[0] * d[0] + d[1] * d[1] + d[2] * d[2]).squareRoot(), angle)
    }
}

extension RigidTransform {
    /// The same transform with its rotation made orthonormal again (Gram-Schmidt on the rows),
    /// for a matrix already nearly one: products of many transforms drift from orthonormal,
    /// and `inverse` (a transpose) compounds the drift where it feeds back.
    public var orthonormalized: RigidTransform {
        let r = rotation
        func unit(_ v: SIMD3<Double>) -> SIMD3<Double> { v / (v * v).sum().squareRoot() }
        let x = unit(SIMD3(r[0], r[1], r[2]))
        let row1 = SIMD3(r[3], r[4], r[5])
        let y = unit(row1 - x * (x * row1).sum())
        let z = SIMD3(x.y * y.z - x.z * y.y, x.z * y.x - x.x * y.z, x.x * y.y - x.y * y.x)
        return RigidTransform(rotation: [x.x, x.y, x.z, y.x, y.y, y.z, z.x, z.y, z.z], translation: translation)
    }
}

extension RigidTransform {
    public var translationVector: SIMD3<Double> { SIMD3(translation[0], translation[1], translation[2]) }

    /// R⁻¹·(p − t): for a camera-to-world pose, a world point in camera coordinates.
    public func applyInverse(_ p: SIMD3<Double>) -> SIMD3<Double> { applyInverseRotation(p - translationVector) }
}

extension RigidTransform {
    /// The same rotation with the translation times `factor`: the pose in a world whose unit
    /// is `factor` times smaller (a monocular map made metric).
    public func scalingTranslation(by factor: Double) -> RigidTransform {
        RigidTransform(rotation: rotation, translation: translation.map { $0 * factor })
    }

    /// The share `s` of this transform: its rotation by `s` of the angle about the same axis,
    /// and `s` of its translation. For spreading a correction along a path (0 the identity, 1
    /// the whole); for the small corrections it serves, near the screw motion's share.
    public func share(_ s: Double) -> RigidTransform {
        let r = rotation
        let cosine = max(-1, min(1, (r[0] + r[4] + r[8] - 1) / 2))
        let angle = acos(cosine)
        let axis = SIMD3(r[7] - r[5], r[2] - r[6], r[3] - r[1])
        let length = (axis * axis).sum().squareRoot()
        let turned = angle < 1e-12 || length < 1e-15 ? RigidTransform.identity.rotation
            : Self.rotation(rotationVector: axis / length * (s * angle))
        return RigidTransform(rotation: turned, translation: translation.map { $0 * s })
    }

    /// The row-major rotation matrix of a rotation vector (its axis, times its angle in
    /// radians): Rodrigues' formula, to first order below 1e-12 rad.
    public static func rotation(rotationVector w: SIMD3<Double>) -> [Double] {
        let angle = (w * w).sum().squareRoot()
        guard angle > 1e-12 else { return [1, -w.z, w.y, w.z, 1, -w.x, -w.y, w.x, 1] }
        let a = w / angle
        let (c, s) = (cos(angle), sin(angle))
        let t = 1 - c
        return [c + t * a.x * a.x, t * a.x * a.y - s * a.z, t * a.x * a.z + s * a.y,
                t * a.x * a.y + s * a.z, c + t * a.y * a.y, t * a.y * a.z - s * a.x,
                t * a.x * a.z - s * a.y, t * a.y * a.z + s * a.x, c + t * a.z * a.z]
    }
}

extension RigidTransform {
    public static let identity = RigidTransform(rotation: [1, 0, 0, 0, 1, 0, 0, 0, 1], translation: [0, 0, 0])

    /// Finite, with a rotation whose rows are orthonormal and right-handed to `tolerance`: what
    /// a transform read from a file must be before anything is placed with it.
    public func isRigid(tolerance: Double = 1e-6) -> Bool {
        guard (rotation + translation).allSatisfy(\.isFinite) else { return false }
        let r = rotation
        for i in 0..<3 {
            for j in 0..<3 {
                let dot = r[3 * i] * r[3 * j] + r[3 * i + 1] * r[3 * j + 1] + r[3 * i + 2] * r[3 * j + 2]
                if abs(dot - (i == j ? 1 : 0)) > tolerance { return false }
            }
        }
        let determinant = r[0] * (r[4] * r[8] - r[5] * r[7]) - r[1] * (r[3] * r[8] - r[5] * r[6]) + r[2] * (r[3] * r[7] - r[4] * r[6])
        return abs(determinant - 1) <= tolerance
    }
}
