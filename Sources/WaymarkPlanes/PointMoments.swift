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
        let (values, vectors) = covariance.eigen()
        guard values.y > 1e-12 * max(values.z, 1e-300), values.z > 0 else { return nil }
        let normal = vectors.0
        let plane = Plane(normal: normal, offset: -(normal * centroid).sum())
        return (plane, max(0, values.x))
    }

    /// Mean squared distance of the points to `plane`.
    func meanSquaredDistance(to plane: Plane) -> Double {
        let n = plane.normal
        let c = covariance
        let spread = n.x * (c.xx * n.x + c.xy * n.y + c.xz * n.z) + n.y * (c.xy * n.x + c.yy * n.y + c.yz * n.z)
            + n.z * (c.xz * n.x + c.yz * n.y + c.zz * n.z)
        let shift = plane.signedDistance(to: centroid)
        return max(0, spread) + shift * shift
    }
}

/// A symmetric 3×3 matrix.
struct SymmetricMatrix3: Sendable {
    var xx, xy, xz, yy, yz, zz: Double

    /// Eigenvalues ascending and their unit eigenvectors, by cyclic Jacobi rotations.
    func eigen() -> (values: SIMD3<Double>, vectors: (SIMD3<Double>, SIMD3<Double>, SIMD3<Double>)) {
        // Row-major a[r * 3 + c]; fixed-size storage keeps this allocation-free.
        var a: InlineArray<9, Double> = [xx, xy, xz, xy, yy, yz, xz, yz, zz]
        var v: InlineArray<9, Double> = [1, 0, 0, 0, 1, 0, 0, 0, 1]
        let scale = max(abs(xx) + abs(yy) + abs(zz), 1e-300)
        for _ in 0..<12 {
            let off = a[1] * a[1] + a[2] * a[2] + a[5] * a[5]
            if off <= 1e-30 * scale * scale { break }
            for pair in 0..<3 {
                let (p, q) = pair == 0 ? (0, 1) : pair == 1 ? (0, 2) : (1, 2)
                if a[p * 3 + q] == 0 { continue }
                let theta = (a[q * 4] - a[p * 4]) / (2 * a[p * 3 + q])
                let t = (theta >= 0 ? 1 : -1) / (abs(theta) + (theta * theta + 1).squareRoot())
                let c = 1 / (t * t + 1).squareRoot()
                let s = t * c
                for k in 0..<3 {
                    let (kp, kq) = (a[k * 3 + p], a[k * 3 + q])
                    a[k * 3 + p] = c * kp - s * kq
                    a[k * 3 + q] = s * kp + c * kq
                }
                for k in 0..<3 {
                    let (pk, qk) = (a[p * 3 + k], a[q * 3 + k])
                    a[p * 3 + k] = c * pk - s * qk
                    a[q * 3 + k] = s * pk + c * qk
                }
                for k in 0..<3 {
                    let (kp, kq) = (v[k * 3 + p], v[k * 3 + q])
                    v[k * 3 + p] = c * kp - s * kq
                    v[k * 3 + q] = s * kp + c * kq
                }
            }
        }
        var order = (0, 1, 2)
        if a[order.1 * 4] < a[order.0 * 4] { order = (order.1, order.0, order.2) }
        if a[order.2 * 4] < a[order.1 * 4] { order = (order.0, order.2, order.1) }
        if a[order.1 * 4] < a[order.0 * 4] { order = (order.1, order.0, order.2) }
        func column(_ j: Int) -> SIMD3<Double> { SIMD3(v[j], v[3 + j], v[6 + j]) }
        return (SIMD3(a[order.0 * 4], a[order.1 * 4], a[order.2 * 4]),
                (column(order.0), column(order.1), column(order.2)))
    }
}
