/// An infinite plane n·X + d = 0 with |n| = 1.
public struct Plane: Equatable, Sendable, Codable {
    public var normal: SIMD3<Double>
    public var offset: Double

    /// Normalises `normal`; precondition: it is not zero.
    public init(normal: SIMD3<Double>, offset: Double) {
        let length = (normal * normal).sum().squareRoot()
        precondition(length > 0 && length.isFinite, "a plane needs a non-zero normal")
        self.normal = normal / length
        self.offset = offset / length
    }

    /// Signed distance, positive on the side the normal points to.
    @inlinable
    public func signedDistance(to point: SIMD3<Double>) -> Double { (normal * point).sum() + offset }

    /// The same plane with the normal turned towards `point`.
    public func facing(_ point: SIMD3<Double>) -> Plane {
        signedDistance(to: point) >= 0 ? self : Plane(normal: -normal, offset: -offset)
    }

    /// Angle between the two normals in radians, ignoring their sign.
    public func angle(to other: Plane) -> Double {
        let cosine = abs((normal * other.normal).sum())
        return acos(min(1, cosine))
    }
}

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif
