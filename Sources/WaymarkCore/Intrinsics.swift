import Foundation

/// Pinhole camera intrinsics in pixels, in this library's pixel convention.
public struct Intrinsics: Equatable, Sendable, Codable {
    public var fx: Double
    public var fy: Double
    public var cx: Double
    public var cy: Double

    public init(fx: Double, fy: Double, cx: Double, cy: Double) {
        self.fx = fx
        self.fy = fy
        self.cx = cx
        self.cy = cy
    }

    /// Where a point in camera coordinates (z forward, z > 0) lands in the image, in pixels.
    public func project(_ p: SIMD3<Double>) -> Point2 {
        Point2(fx * p.x / p.z + cx, fy * p.y / p.z + cy)
    }

    /// The point in camera coordinates that lands at `p` at depth `z` (metres along the axis):
    /// `project`'s inverse.
    public func backproject(_ p: Point2, depth z: Double) -> SIMD3<Double> {
        SIMD3((p.x - cx) / fx * z, (p.y - cy) / fy * z, z)
    }

    /// Where a point in camera coordinates lands in a `width`×`height` image; nil when it is
    /// outside, or behind or within 5 cm of the camera.
    public func pixel(seeing p: SIMD3<Double>, width: Int, height: Int) -> Point2? {
        guard p.z > 0.05 else { return nil }
        let pixel = project(p)
        return pixel.x >= 0 && pixel.y >= 0 && pixel.x < Double(width) && pixel.y < Double(height) ? pixel : nil
    }

    /// A pinhole camera that sees `degrees` across the width of a `width`×`height` image, with
    /// square pixels and its centre in the middle: a guess for a video nobody calibrated.
    public init(horizontalFieldOfView degrees: Double, width: Int, height: Int) {
        precondition(degrees > 0 && degrees < 180 && width > 0 && height > 0, "a field of view in (0°, 180°) and an image size")
        let focal = Double(width) / 2 / tan(degrees * .pi / 360)
        self.init(fx: focal, fy: focal, cx: Double(width) / 2, cy: Double(height) / 2)
    }

    /// Parses "fx,fy,cx,cy".
    public init(parsing text: String) throws(WaymarkError) {
        let parts = text.split(separator: ",", omittingEmptySubsequences: false).map {
            Double($0.trimmingWhitespace())
        }
        guard parts.count == 4, let fx = parts[0], let fy = parts[1], let cx = parts[2], let cy = parts[3] else {
            throw WaymarkError(.usage, "intrinsics must be four numbers fx,fy,cx,cy; got '\(text)'")
        }
        guard fx > 0, fy > 0, fx.isFinite, fy.isFinite, cx.isFinite, cy.isFinite else {
            throw WaymarkError(.usage, "intrinsics need positive focal lengths and finite centres; got '\(text)'")
        }
        self.init(fx: fx, fy: fy, cx: cx, cy: cy)
    }
}

