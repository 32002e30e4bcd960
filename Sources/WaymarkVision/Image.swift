import CSupport
import WaymarkCore

/// An 8-bit image with 1 (gray) or 3 (BGR) channels.
public final class Image {
    let handle: OpaquePointer

    public private(set) var width = 0
    public private(set) var height = 0
    public private(set) var channels = 0

    init(owning handle: OpaquePointer) {
        self.handle = handle
        refreshSize()
    }

    /// Re-reads the size after CSupport wrote into this image as an output.
    func refreshSize() {
        var info = cs_image_info()
        checkInvariant { cs_image_get_info(handle, &info, $0) }
        width = Int(info.width)
        height = Int(info.height)
        channels = Int(info.channels)
    }

    /// An empty output image for CSupport to fill.
    static func output(channels: Int) -> Image { Image(width: 1, height: 1, channels: channels) }

    deinit { cs_image_destroy(handle) }

    /// Reads an image file; `gray` converts it to one channel. A file whose header declares
    /// more pixels than `limits` allow is refused before it is decoded.
    public convenience init(contentsOf path: String, gray: Bool, limits: InputLimits = .standard) throws(WaymarkError) {
        var out: OpaquePointer?
        try decodeImageFile(path, limits: limits) { bytes, error in
            cs_image_decode(bytes.baseAddress, bytes.count, path, gray ? 1 : 3, &out, error)
        }
        self.init(owning: out!)
        try limits.checkPixels(width: width, height: height, of: path)
    }

    /// Decodes an image file's bytes held in memory (a recording's JPEG or PNG frame), as
    /// `init(contentsOf:gray:limits:)` decodes a file; `name` says which in messages.
    public convenience init(encoded bytes: [UInt8], named name: String, gray: Bool, limits: InputLimits = .standard)
        throws(WaymarkError)
    {
        var out: OpaquePointer?
        try decodeImageBytes(bytes, named: name, limits: limits) { buffer, error in
            cs_image_decode(buffer.baseAddress, buffer.count, name, gray ? 1 : 3, &out, error)
        }
        self.init(owning: out!)
        try limits.checkPixels(width: width, height: height, of: name)
    }

    /// Copies `pixels`, rows packed (`width * channels` bytes each).
    public convenience init(width: Int, height: Int, channels: Int, pixels: [UInt8]) {
        precondition(pixels.count == width * height * channels, "pixel count does not match the size")
        var out: OpaquePointer?
        pixels.withUnsafeBufferPointer { buffer in
            checkInvariant {
                cs_image_create(Int32(width), Int32(height), Int32(channels), buffer.baseAddress, width * channels,
                                &out, $0)
            }
        }
        self.init(owning: out!)
    }

    /// How a raw frame's pixels are laid out (a camera driver's, a robot log's).
    public enum RawLayout: Sendable {
        case rgb, bgr, gray
        public var channels: Int { self == .gray ? 1 : 3 }
    }

    /// Copies a raw frame: `height` rows of `width` pixels laid out as `layout`, `step` bytes
    /// apart in `rows`; RGB becomes BGR. The caller checks the sizes against the bytes.
    public convenience init(width: Int, height: Int, layout: RawLayout, rows: [UInt8], step: Int) {
        precondition(width > 0 && height > 0 && step >= width * layout.channels && rows.count >= step * (height - 1) + width * layout.channels,
                     "raw rows do not match the size")
        var out: OpaquePointer?
        rows.withUnsafeBufferPointer { buffer in
            checkInvariant {
                cs_image_create(Int32(width), Int32(height), Int32(layout.channels), buffer.baseAddress, step, &out, $0)
            }
        }
        self.init(owning: out!)
        if layout == .rgb { checkInvariant { cs_image_swap_red_blue(handle, $0) } }
    }

    /// A new black image; used as a reusable output.
    public convenience init(width: Int, height: Int, channels: Int) {
        var out: OpaquePointer?
        checkInvariant { cs_image_create(Int32(width), Int32(height), Int32(channels), nil, 0, &out, $0) }
        self.init(owning: out!)
    }

    public var pixels: [UInt8] {
        [UInt8](uninitializedCapacity: width * height * channels) { buffer, count in
            checkInvariant { cs_image_copy_pixels(handle, buffer.baseAddress, buffer.count, $0) }
            count = buffer.count
        }
    }

    public func gray() -> Image {
        if channels == 1 { return self }
        let out = Image.output(channels: 1)
        checkInvariant { cs_image_convert_to_gray(handle, out.handle, $0) }
        out.refreshSize()
        return out
    }

    /// Three channels: a gray image's value in each (to draw on in colour); itself when it has three.
    public func colored() -> Image {
        if channels == 3 { return self }
        let values = pixels
        let bgr = [UInt8](uninitializedCapacity: values.count * 3) { buffer, count in
            for (i, value) in values.enumerated() {
                buffer[3 * i] = value
                buffer[3 * i + 1] = value
                buffer[3 * i + 2] = value
            }
            count = values.count * 3
        }
        return Image(width: width, height: height, channels: 3, pixels: bgr)
    }

    public func resized(width: Int, height: Int) -> Image {
        let out = Image.output(channels: channels)
        resize(width: width, height: height, into: out)
        return out
    }

    /// Resizes into a reused output image (no allocation once `out` has the size).
    public func resize(width: Int, height: Int, into out: Image) {
        precondition(width > 0 && height > 0, "a resized image needs a positive size")
        checkInvariant { cs_image_resize(handle, Int32(width), Int32(height), out.handle, $0) }
        out.refreshSize()
    }

    /// out(x) = self(H⁻¹ x).
    public func warped(by homography: Homography, width: Int, height: Int) -> Image {
        let out = Image.output(channels: channels)
        warp(by: homography, width: width, height: height, into: out)
        return out
    }

    /// Warps into a reused output image (no allocation once `out` has the size).
    public func warp(by homography: Homography, width: Int, height: Int, into out: Image) {
        precondition(width > 0 && height > 0, "a warped image needs a positive size")
        homography.elements.withUnsafeBufferPointer { h in
            checkInvariant { cs_image_warp_perspective(handle, h.baseAddress, Int32(width), Int32(height), out.handle, $0) }
        }
        out.refreshSize()
    }

    /// Gain and bias applied to a gray image so that its non-zero pixels get `mean` and
    /// `standardDeviation`, written into `out`.
    public func matchBrightness(mean: Double, standardDeviation: Double, into out: Image) {
        precondition(channels == 1, "brightness matching runs on gray images")
        checkInvariant { cs_image_match_brightness(handle, mean, standardDeviation, out.handle, $0) }
        out.refreshSize()
    }

    /// Draws `image` onto this one, mapped by `homography` (image pixels → these pixels).
    public func composite(_ image: Image, by homography: Homography) {
        precondition(image.channels == channels, "compositing needs equal channel counts")
        homography.elements.withUnsafeBufferPointer { h in
            checkInvariant { cs_image_composite_warped(handle, image.handle, h.baseAddress, $0) }
        }
    }

    public func blurred(sigma: Double) -> Image {
        precondition(sigma > 0, "blur needs a positive sigma")
        let out = Image.output(channels: channels)
        checkInvariant { cs_image_gaussian_blur(handle, sigma, out.handle, $0) }
        out.refreshSize()
        return out
    }

    public struct Statistics: Sendable {
        public var mean: Double
        public var standardDeviation: Double
    }

    public func statistics() -> Statistics {
        var s = cs_image_statistics()
        checkInvariant { cs_image_get_statistics(handle, &s, $0) }
        return Statistics(mean: s.mean, standardDeviation: s.standard_deviation)
    }

    /// Writes by extension, replacing any file there atomically.
    public func write(to path: String) throws(WaymarkError) {
        try check { cs_image_write(handle, path, temporarySibling(of: path), $0) }
    }
}
