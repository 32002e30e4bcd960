import WaymarkCore

/// Running first and second moments of a set of 3-D points: enough to fit the least-squares
/// plane of the set, and to measure how far the set lies from any plane, without the points.
/// Sets combine by addition.
struct PointMoments: Sendable {
    var count = 0.0
    var sum = SIMD3<Double>.zero
    /// xx, xy, xz, yy, yz, zz.
    var products = (0.0, 0.0, 0.0, 0.0, 0.0, 0.0)

    @inline(__always)
    mutating func add(_ x: Double, _ y: Double, _ z: Double) {
        count += 1
        sum += SIMD3(x, y, z)
        products.0 += x * x
        products.1 += x * y
        products.2 += x * z
        products.3 += y * y
        products.4 += y * z
        products.5 += z * z
    }

    /// These moments without the points of `part` (a subset of them).
    func removing(_ part: PointMoments) -> PointMoments {
        var c = self
        c.count -= part.count
        c.sum -= part.sum
        c.products.0 -= part.products.0
        c.products.1 -= part.products.1
        c.products.2 -= part.products.2
        c.products.3 -= part.products.3
        c.products.4 -= part.products.4
        c.products.5 -= part.products.5
        return c
    }

    static func + (a: PointMoments, b: PointMoments) -> PointMoments {
        var c = a
        c += b
        return c
    }

    static func += (a: inout PointMoments, b: PointMoments) {
        a.count += b.count
        a.sum += b.sum
        a.products.0 += b.products.0
        a.products.1 += b.products.1
        a.products.2 += b.products.2
        a.products.3 += b.products.3
        a.products.4 += b.products.4
        a.products.5 += b.products.5
    }

    var centroid: SIMD3<Double> { sum / count }

    /// The moments of the same points after `transform` (rotation, then translation).
    func transformed(by transform: RigidTransform) -> PointMoments {
        guard count > 0 else { return self }
        let r = transform.rotation
        let rows = (SIMD3(r[0], r[1], r[2]), SIMD3(r[3], r[4], r[5]), SIMD3(r[6], r[7], r[8]))
        func rotate(_ v: SIMD3<Double>) -> SIMD3<Double> {
            SIMD3((rows.0 * v).sum(), (rows.1 * v).sum(), (rows.2 * v).sum())
        }
        let c = covariance
        // Columns of C, then R·C·Rᵀ entry by entry.
        let columns = (SIMD3(c.xx, c.xy, c.xz), SIMD3(c.xy, c.yy, c.yz), SIMD3(c.xz, c.yz, c.zz))
        let rc = (rotate(columns.0), rotate(columns.1), rotate(columns.2))  // R·C, by columns
        func entry(_ i: Int, _ j: Int) -> Double {
            let row = [rows.0, rows.1, rows.2][j]
            return rc.0[i] * row.x + rc.1[i] * row.y + rc.2[i] * row.z
        }
        let mean = rotate(centroid) + transform.translationVector
        var out = PointMoments()
        out.count = count
        out.sum = mean * count
        out.products = (
            count * (entry(0, 0) + mean.x * mean.x), count * (entry(0, 1) + mean.x * mean.y),
            count * (entry(0, 2) + mean.x * mean.z), count * (entry(1, 1) + mean.y * mean.y),
            count * (entry(1, 2) + mean.y * mean.z), count * (entry(2, 2) + mean.z * mean.z)
        )
        return out
    }

    /// Covariance xx, xy, xz, yy, yz, zz.
    var covariance: SymmetricMatrix3 {
        let m = centroid
        let n = count
        return SymmetricMatrix3(
            xx: products.0 / n - m.x * m.x, xy: products.1 / n - m.x * m.y, xz: products.2 / n - m.x * m.z,
            yy: products.3 / n - m.y * m.y, yz: products.4 / n - m.y * m.z, zz: products.5 / n - m.z * m.z)
    }

    /// The least-squares plane and the mean squared distance of the points to it; nil for
    /// fewer than three points or points on a line.
    func fitPlane() -> (plane: Plane, meanSquaredDistance: Double)? {
        guard count >= 3 else { return nil }
        let (values, normal) = covariance.smallestEigen()
        guard values.y > 1e-12 * max(values.z, 1e-300), values.z > 0 else { return nil }
        let plane = Plane(normal: normal, offset: -(normal * centroid).sum())
        return (plane, max(0, values.x))
    }

    /// Mean squared distance of the points from the origin.
    var meanSquaredNorm: Double { (products.0 + products.3 + products.5) / count }

    /// Mean squared distance of the points to `plane`.
    func meanSquaredDistance(to plane: Plane) -> Double {
        let shift = plane.signedDistance(to: centroid)
        return max(0, covariance.quadraticForm(plane.normal)) + shift * shift
    }
}

/// A symmetric 3×3 matrix.
struct SymmetricMatrix3: Sendable {
    var xx, xy, xz, yy, yz, zz: Double

    /// Eigenvalues ascending, and the unit eigenvector of the smallest (for a covariance: the
    /// normal of the best-fitting plane). Closed form (Smith, 1961): the eigenvalues from the
    /// trigonometric solution of the characteristic cubic, the vector as the longest cross
    /// product of two rows of A − λI.
    func smallestEigen() -> (values: SIMD3<Double>, vector: SIMD3<Double>) {
        let offDiagonal = xy * xy + xz * xz + yz * yz
        let q = (xx + yy + zz) / 3
        let (a, b, c) = (xx - q, yy - q, zz - q)
        let p2 = a * a + b * b + c * c + 2 * offDiagonal
        guard p2 > 0 else { return (SIMD3(repeating: q), SIMD3(0, 0, 1)) }
        let p = (p2 / 6).squareRoot()
        // det((A − qI) / p) / 2, clamped against rounding.
        let determinant = a * (b * c - yz * yz) - xy * (xy * c - yz * xz) + xz * (xy * yz - b * xz)
        let r = max(-1, min(1, determinant / (2 * p * p * p)))
        let phi = acos(r) / 3
        let largest = q + 2 * p * cos(phi)
        let smallest = q + 2 * p * cos(phi + 2 * Double.pi / 3)
        let middle = 3 * q - largest - smallest
        let r0 = SIMD3(xx - smallest, xy, xz)
        let r1 = SIMD3(xy, yy - smallest, yz)
        let r2 = SIMD3(xz, yz, zz - smallest)
        let candidates = (cross(r0, r1), cross(r0, r2), cross(r1, r2))
        let lengths = ((candidates.0 * candidates.0).sum(), (candidates.1 * candidates.1).sum(),
                       (candidates.2 * candidates.2).sum())
        var vector = candidates.0
        var length = lengths.0
        if lengths.1 > length { (vector, length) = (candidates.1, lengths.1) }
        if lengths.2 > length { (vector, length) = (candidates.2, lengths.2) }
        guard length > 0 else { return (SIMD3(smallest, middle, largest), SIMD3(0, 0, 1)) }
        return (SIMD3(smallest, middle, largest), vector / length.squareRoot())
    }

    /// nᵀ A n.
    @inline(__always)
    func quadraticForm(_ n: SIMD3<Double>) -> Double {
        n.x * (xx * n.x + xy * n.y + xz * n.z) + n.y * (xy * n.x + yy * n.y + yz * n.z)
            + n.z * (xz * n.x + yz * n.y + zz * n.z)
    }
}

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif
