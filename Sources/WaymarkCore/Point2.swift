/// A point in pixels. (0, 0) is the top-left corner of the top-left pixel.
public struct Point2: Hashable, Sendable, Codable {
    public var x: Double
    public var y: Double

    public init(_ x: Double, _ y: Double) {
        self.x = x
        self.y = y
    }

    public static func + (a: Point2, b: Point2) -> Point2 { Point2(a.x + b.x, a.y + b.y) }
    public static func - (a: Point2, b: Point2) -> Point2 { Point2(a.x - b.x, a.y - b.y) }
    public static func * (a: Point2, s: Double) -> Point2 { Point2(a.x * s, a.y * s) }

    public func distance(to other: Point2) -> Double {
        let d = self - other
        return (d.x * d.x + d.y * d.y).squareRoot()
    }
}

/// The four corners (0,0), (W,0), (W,H), (0,H) of a W×H image.
public func imageCorners(width: Int, height: Int) -> [Point2] {
    [Point2(0, 0), Point2(Double(width), 0), Point2(Double(width), Double(height)), Point2(0, Double(height))]
}
