import CSupport
import WaymarkCore

/// Draws text in any script (Chinese as well as Latin) with a font file, through OpenCV's
/// freetype module.
public final class TextRenderer {
    private let handle: OpaquePointer

    /// `face` picks one face of a font collection (.ttc).
    public init(fontPath: String, face: Int = 0) throws(WaymarkError) {
        var out: OpaquePointer?
        try check { cs_text_renderer_create(fontPath, Int32(face), &out, $0) }
        handle = out!
    }

    deinit { cs_text_renderer_destroy(handle) }

    /// Width and height in pixels of `text` drawn `height` pixels tall.
    public func size(of text: String, height: Int) -> (width: Int, height: Int) {
        var (w, h): (Int32, Int32) = (0, 0)
        checkInvariant { cs_text_renderer_measure(handle, text, Int32(height), &w, &h, $0) }
        return (Int(w), Int(h))
    }

    /// Draws `text` `height` pixels tall with its box's top-left corner at `origin` (BGR images).
    public func draw(_ text: String, on image: Image, at origin: (x: Int, y: Int), height: Int, color: Color) {
        precondition(image.channels == 3, "drawing needs a colour image")
        checkInvariant { cs_text_renderer_draw(handle, image.handle, text, Int32(origin.x), Int32(origin.y), Int32(height), color.raw, $0) }
    }
}
