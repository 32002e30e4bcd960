import WaymarkCore

/// How a plane lies relative to gravity.
public enum SurfaceAlignment: String, Sendable, Codable, CaseIterable {
    case horizontalUp = "horizontal-up"
    case horizontalDown = "horizontal-down"
    case vertical
    case other

    /// `normal` and `down` are unit vectors in one frame.
    public init(normal: SIMD3<Double>, down: SIMD3<Double>, toleranceDegrees: Double) {
        let upness = -(normal * down).sum()
        let tolerance = toleranceDegrees * .pi / 180
        if upness >= cos(tolerance) {
            self = .horizontalUp
        } else if upness <= -cos(tolerance) {
            self = .horizontalDown
        } else if abs(upness) <= sin(tolerance) {
            self = .vertical
        } else {
            self = .other
        }
    }
}

/// What a surface is, judged from its alignment, height and size (see `SurfaceClassifier`).
public enum SurfaceClassification: String, Sendable, Codable, CaseIterable {
    case floor, table, wall, ceiling, other
}

/// A plane found in one input, in that input's coordinates (camera coordinates for depth).
public struct DetectedPlane: Sendable {
    /// n·X + d = 0, the normal turned towards the sensor (the origin).
    public var plane: Plane
    public var inlierCount: Int
    /// Centre of the bounding rectangle, on the plane.
    public var center: SIMD3<Double>
    /// Unit axes of the plane's own 2-D coordinates: u along the rectangle's longer side,
    /// v = normal × u. A plane point (u, v) is `center + u·axisU + v·axisV`.
    public var axisU: SIMD3<Double>
    public var axisV: SIMD3<Double>
    /// Width (along u) and height (along v) of the smallest rectangle around the boundary, metres.
    public var extent: SIMD2<Double>
    /// Outline in the plane's 2-D coordinates, counter-clockwise (the convex hull of the inliers).
    public var boundary: [SIMD2<Double>]
    public var alignment: SurfaceAlignment
    public var classification: SurfaceClassification = .other
    /// The inliers' moments, so observations can be combined over time.
    var inliers: PointMoments

    /// The outline as 3-D points.
    public var boundaryPoints: [SIMD3<Double>] { boundary.map { point(atPlaneCoordinates: $0) } }

    public func point(atPlaneCoordinates p: SIMD2<Double>) -> SIMD3<Double> { center + p.x * axisU + p.y * axisV }

    /// The plane coordinates of `point` projected onto the plane.
    public func planeCoordinates(of point: SIMD3<Double>) -> SIMD2<Double> {
        let r = point - center
        return SIMD2((r * axisU).sum(), (r * axisV).sum())
    }

    /// Whether `point`, projected onto the plane, lies inside the outline.
    public func outlineContains(_ point: SIMD3<Double>) -> Bool {
        PlaneOutline.contains(boundary, planeCoordinates(of: point))
    }

    /// Area enclosed by the boundary, square metres.
    public var area: Double { PlaneOutline.area(of: boundary) }

    /// Degrees between the plane and the sensor's (the origin's) line of sight to its inliers,
    /// at their root-mean-square distance: 90 face-on, 0 for a plane through the sensor.
    public var viewingAngleDegrees: Double {
        asin(min(1, abs(plane.offset) / inliers.meanSquaredNorm.squareRoot())) * 180 / .pi
    }

    /// Whether the sensor sees the plane within `edgeOnDegrees` of edge-on, where it is no
    /// surface: every point at the sensor's height lies on the level plane through it.
    public var isSeenEdgeOn: Bool { viewingAngleDegrees < Self.edgeOnDegrees }

    /// On the coaching walk-through, whose camera keeps its height, the walls' points at eye
    /// level made a 5.8 × 4 m horizontal anchor facing down that matched no surface, and a plane
    /// 9° from level that turned the scene's gravity 10.6° (Benchmarks/RESULTS.md). A floor
    /// 1.4 m below seen out to 6 m is at 13°.
    public static let edgeOnDegrees = 5.0
}

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif
