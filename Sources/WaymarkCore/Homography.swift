/// A 3×3 projective map between image planes, row-major: x' ~ H x.
public struct Homography: Equatable, Sendable {
    public var elements: [Double]

    public init(_ elements: [Double]) {
        precondition(elements.count == 9, "a homography has 9 elements")
        self.elements = elements
    }

    public static let identity = Homography([1, 0, 0, 0, 1, 0, 0, 0, 1])

    public static func scaling(_ sx: Double, _ sy: Double) -> Homography { Homography([sx, 0, 0, 0, sy, 0, 0, 0, 1]) }

    public static func translation(_ tx: Double, _ ty: Double) -> Homography {
        Homography([1, 0, tx, 0, 1, ty, 0, 0, 1])
    }

    public subscript(row: Int, column: Int) -> Double { elements[row * 3 + column] }

    /// The point mapped by H, or nil when it maps to infinity or behind the image plane's horizon.
    public func apply(_ p: Point2) -> Point2? {
        let e = elements
        let w = e[6] * p.x + e[7] * p.y + e[8]
        guard abs(w) > 1e-12 else { return nil }
        return Point2((e[0] * p.x + e[1] * p.y + e[2]) / w, (e[3] * p.x + e[4] * p.y + e[5]) / w)
    }

    /// The homogeneous scale w of the mapped point; its sign tells which side of the horizon a point is.
    public func depthSign(_ p: Point2) -> Double { elements[6] * p.x + elements[7] * p.y + elements[8] }

    /// Self ∘ other: first other, then self.
    public static func * (a: Homography, b: Homography) -> Homography {
        var r = [Double](repeating: 0, count: 9)
        for i in 0..<3 {
            for j in 0..<3 {
                r[i * 3 + j] = a[i, 0] * b[0, j] + a[i, 1] * b[1, j] + a[i, 2] * b[2, j]
            }
        }
        return Homography(r)
    }

    public var determinant: Double {
        let e = elements
        return e[0] * (e[4] * e[8] - e[5] * e[7]) - e[1] * (e[3] * e[8] - e[5] * e[6])
            + e[2] * (e[3] * e[7] - e[4] * e[6])
    }

    /// The mean distance between where this and `other` put the corners of a `width`×`height`
    /// image (∞ when either sends one to infinity): how far apart two detections of it are.
    public func meanCornerDistance(to other: Homography, width: Int, height: Int) -> Double {
        var sum = 0.0
        for corner in imageCorners(width: width, height: height) {
            guard let a = apply(corner), let b = other.apply(corner) else { return .infinity }
            sum += a.distance(to: b)
        }
        return sum / 4
    }

    public var inverse: Homography? {
        let e = elements
        let det = determinant
        guard abs(det) > 1e-15, det.isFinite else { return nil }
        let c: [Double] = [
            e[4] * e[8] - e[5] * e[7], e[2] * e[7] - e[1] * e[8], e[1] * e[5] - e[2] * e[4],
            e[5] * e[6] - e[3] * e[8], e[0] * e[8] - e[2] * e[6], e[2] * e[3] - e[0] * e[5],
            e[3] * e[7] - e[4] * e[6], e[1] * e[6] - e[0] * e[7], e[0] * e[4] - e[1] * e[3],
        ]
        return Homography(c.map { $0 / det })
    }

    /// Scaled so that the bottom-right element is 1 (when it is not ~0).
    public var normalized: Homography {
        let s = elements[8]
        guard abs(s) > 1e-12 else { return self }
        return Homography(elements.map { $0 / s })
    }

    /// The same map for points whose pixel centres sit at integers (OpenCV, most ground-truth
    /// files), converted into this library's convention where they sit at +0.5.
    public static func fromIntegerCentred(_ h: Homography) -> Homography {
        translation(0.5, 0.5) * h * translation(-0.5, -0.5)
    }
}
