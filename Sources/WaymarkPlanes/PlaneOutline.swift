import WaymarkCore

/// Turns a fitted plane and points on its boundary into a `DetectedPlane`: convex hull in the
/// plane, smallest enclosing rectangle, and the plane's own 2-D frame along that rectangle.
public enum PlaneOutline {
    /// Nil when the inliers do not define a plane.
    /// Nil when the inliers do not define a plane. The normal is turned towards `viewpoint`.
    static func make(
        inliers: PointMoments, boundaryPoints: [SIMD3<Double>], down: SIMD3<Double>, alignmentToleranceDegrees: Double,
        viewpoint: SIMD3<Double> = .zero, snapsToGravity: Bool = false
    ) -> DetectedPlane? {
        guard var plane = inliers.fitPlane()?.plane.facing(viewpoint) else { return nil }
        let alignment = SurfaceAlignment(normal: plane.normal, down: down, toleranceDegrees: alignmentToleranceDegrees)
        if snapsToGravity, let snapped = snapped(plane.normal, alignment, down: down) {
            plane = Plane(normal: snapped, offset: -(snapped * inliers.centroid).sum())
        }
        let n = plane.normal
        let seed: SIMD3<Double> = abs(n.x) < 0.9 ? SIMD3(1, 0, 0) : SIMD3(0, 1, 0)
        let u0 = normalize(cross(seed, n))
        let v0 = cross(n, u0)
        let origin = -plane.offset * n
        let projected = boundaryPoints.map { p -> SIMD2<Double> in
            let r = p - origin
            return SIMD2((r * u0).sum(), (r * v0).sum())
        }
        let hull = convexHull(projected)
        let (direction, centre2D, size) = smallestRectangle(around: hull)
        let along = direction
        let across = SIMD2(-direction.y, direction.x)
        let axisU = normalize(along.x * u0 + along.y * v0)
        let axisV = cross(n, axisU)
        let center = origin + centre2D.x * u0 + centre2D.y * v0
        let boundary = hull.map { p -> SIMD2<Double> in
            let r = p - centre2D
            return SIMD2((r * along).sum(), (r * across).sum())
        }
        return DetectedPlane(
            plane: plane, inlierCount: Int(inliers.count), center: center, axisU: axisU, axisV: axisV, extent: size,
            boundary: boundary,
            alignment: alignment, inliers: inliers)
    }

    /// A horizontal plane's normal made parallel to gravity and a vertical one's perpendicular
    /// to it (nil for other planes), as ARKit's plane anchors are: through the inliers' centroid,
    /// the plane keeps its place and loses the tilt its points' noise gave it.
    private static func snapped(_ normal: SIMD3<Double>, _ alignment: SurfaceAlignment, down: SIMD3<Double>) -> SIMD3<Double>? {
        switch alignment {
        case .horizontalUp: -down
        case .horizontalDown: down
        case .vertical: normalize(normal - (normal * down).sum() * down)
        case .other: nil
        }
    }

    /// Andrew's monotone chain; counter-clockwise, no repeated first point.
    static func convexHull(_ points: [SIMD2<Double>]) -> [SIMD2<Double>] {
        let sorted = points.sorted { $0.x != $1.x ? $0.x < $1.x : $0.y < $1.y }
        guard sorted.count > 2 else { return sorted }
        func turn(_ o: SIMD2<Double>, _ a: SIMD2<Double>, _ b: SIMD2<Double>) -> Double {
            (a.x - o.x) * (b.y - o.y) - (a.y - o.y) * (b.x - o.x)
        }
        var hull: [SIMD2<Double>] = []
        hull.reserveCapacity(sorted.count + 1)
        for p in sorted {
            while hull.count >= 2, turn(hull[hull.count - 2], hull[hull.count - 1], p) <= 0 { hull.removeLast() }
            hull.append(p)
        }
        let lowerCount = hull.count + 1
        for p in sorted.reversed().dropFirst() {
            while hull.count >= lowerCount, turn(hull[hull.count - 2], hull[hull.count - 1], p) <= 0 { hull.removeLast() }
            hull.append(p)
        }
        hull.removeLast()
        return hull
    }

    /// The smallest-area rectangle around a convex polygon (one side lies on a hull edge):
    /// its longer side's direction, its centre and its size (longer side first).
    static func smallestRectangle(around hull: [SIMD2<Double>]) -> (SIMD2<Double>, SIMD2<Double>, SIMD2<Double>) {
        guard hull.count >= 2 else { return (SIMD2(1, 0), hull.first ?? .zero, .zero) }
        var best: (area: Double, direction: SIMD2<Double>, centre: SIMD2<Double>, size: SIMD2<Double>)?
        for i in hull.indices {
            let edge = hull[(i + 1) % hull.count] - hull[i]
            let length = (edge * edge).sum().squareRoot()
            guard length > 0 else { continue }
            let e = edge / length
            let f = SIMD2(-e.y, e.x)
            var low = SIMD2(Double.infinity, Double.infinity)
            var high = -low
            for p in hull {
                let q = SIMD2((p * e).sum(), (p * f).sum())
                low = pointwiseMin(low, q)
                high = pointwiseMax(high, q)
            }
            let size = high - low
            let area = size.x * size.y
            if area < best?.area ?? .infinity {
                let mid = (low + high) / 2
                let centre = mid.x * e + mid.y * f
                best = size.x >= size.y ? (area, e, centre, size) : (area, f, centre, SIMD2(size.y, size.x))
            }
        }
        guard let best else { return (SIMD2(1, 0), hull[0], .zero) }
        return (best.direction, best.centre, best.size)
    }

    /// Shoelace area of a simple polygon.
    public static func area(of polygon: [SIMD2<Double>]) -> Double {
        guard polygon.count >= 3 else { return 0 }
        var twice = 0.0
        for i in polygon.indices {
            let a = polygon[i]
            let b = polygon[(i + 1) % polygon.count]
            twice += a.x * b.y - a.y * b.x
        }
        return abs(twice) / 2
    }
}

func cross(_ a: SIMD3<Double>, _ b: SIMD3<Double>) -> SIMD3<Double> {
    SIMD3(a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x)
}

func normalize(_ v: SIMD3<Double>) -> SIMD3<Double> { v / (v * v).sum().squareRoot() }

extension PlaneOutline {
    /// Shortest distance between two polygons; 0 when one has a vertex inside the other.
    static func gap(between a: [SIMD2<Double>], and b: [SIMD2<Double>]) -> Double {
        guard !a.isEmpty, !b.isEmpty else { return .infinity }
        if b.contains(where: { contains(a, $0) }) || a.contains(where: { contains(b, $0) }) { return 0 }
        var best = Double.infinity
        for p in a { best = min(best, distance(from: p, to: b)) }
        for p in b { best = min(best, distance(from: p, to: a)) }
        return best
    }

    /// Whether a simple polygon contains `p` (even–odd rule).
    static func contains(_ polygon: [SIMD2<Double>], _ p: SIMD2<Double>) -> Bool {
        guard polygon.count >= 3 else { return false }
        var inside = false
        var j = polygon.count - 1
        for i in polygon.indices {
            let (a, b) = (polygon[i], polygon[j])
            if (a.y > p.y) != (b.y > p.y), p.x < (b.x - a.x) * (p.y - a.y) / (b.y - a.y) + a.x { inside.toggle() }
            j = i
        }
        return inside
    }

    /// Distance from `p` to a polygon's outline, and the closest outline point.
    static func closestPoint(to p: SIMD2<Double>, on polygon: [SIMD2<Double>]) -> (distance: Double, point: SIMD2<Double>) {
        var best = (distance: Double.infinity, point: p)
        for i in polygon.indices {
            let a = polygon[i]
            let b = polygon[(i + 1) % polygon.count]
            let edge = b - a
            let length = (edge * edge).sum()
            let t = length > 0 ? max(0, min(1, ((p - a) * edge).sum() / length)) : 0
            let q = a + t * edge
            let d = ((p - q) * (p - q)).sum().squareRoot()
            if d < best.distance { best = (d, q) }
        }
        return best
    }

    private static func distance(from p: SIMD2<Double>, to polygon: [SIMD2<Double>]) -> Double {
        closestPoint(to: p, on: polygon).distance
    }
}
