import WaymarkCore

/// Four corners in order: a reference's outline in a frame; used to judge whether it is plausible.
public struct Quadrilateral: Sendable {
    public let corners: [Point2]

    public init(_ corners: [Point2]) {
        precondition(corners.count == 4, "a quadrilateral has four corners")
        self.corners = corners
    }

    /// Signed area (shoelace); positive for clockwise order in y-down image coordinates.
    public var signedArea: Double {
        var sum = 0.0
        for i in 0..<4 {
            let a = corners[i]
            let b = corners[(i + 1) % 4]
            sum += a.x * b.y - b.x * a.y
        }
        return sum / 2
    }

    var sides: [Double] { (0..<4).map { corners[$0].distance(to: corners[($0 + 1) % 4]) } }

    var meanSide: Double { sides.reduce(0, +) / 4 }

    /// True when every turn has the same direction (no self-intersection, no reflex corner).
    var isConvex: Bool {
        var sign = 0.0
        for i in 0..<4 {
            let a = corners[i]
            let b = corners[(i + 1) % 4]
            let c = corners[(i + 2) % 4]
            let cross = (b.x - a.x) * (c.y - b.y) - (b.y - a.y) * (c.x - b.x)
            if cross == 0 { return false }
            if sign == 0 { sign = cross } else if (sign > 0) != (cross > 0) { return false }
        }
        return true
    }
}
