import CSupport
import WaymarkCore

public struct Color: Equatable, Sendable {
    public var red: UInt8
    public var green: UInt8
    public var blue: UInt8

    public init(red: UInt8, green: UInt8, blue: UInt8) {
        self.red = red
        self.green = green
        self.blue = blue
    }

    var raw: cs_color { cs_color(blue: blue, green: green, red: red) }
}

extension Image {
    /// Draws a closed outline (BGR images only).
    public func drawPolygon(_ points: [Point2], color: Color, thickness: Int = 2) {
        precondition(channels == 3, "drawing needs a colour image")
        let xy = points.flatMap { [Float($0.x), Float($0.y)] }
        checkInvariant { cs_draw_polygon(handle, xy, points.count, color.raw, Int32(thickness), $0) }
    }

    /// Draws text with its baseline starting at `origin`, outlined for legibility.
    public func drawText(_ text: String, at origin: Point2, scale: Double = 0.6, color: Color) {
        precondition(channels == 3, "drawing needs a colour image")
        checkInvariant { cs_draw_text(handle, text, Float(origin.x), Float(origin.y), scale, color.raw, $0) }
    }

    /// Fills a rectangle blended with what is under it (`opacity` 1 covers it).
    public func fillRectangle(x: Int, y: Int, width: Int, height: Int, color: Color, opacity: Double) {
        precondition(channels == 3, "drawing needs a colour image")
        checkInvariant { cs_draw_filled_rect(handle, Int32(x), Int32(y), Int32(width), Int32(height), color.raw, opacity, $0) }
    }
}
