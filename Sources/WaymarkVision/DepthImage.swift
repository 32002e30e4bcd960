import WaymarkCore

/// A depth map in metres, row-major; 0 marks a pixel without a measurement.
public struct DepthImage: Sendable {
    public var width: Int
    public var height: Int
    public var metres: [Float]

    /// `metres` may hold 0, NaN, infinities or negative values for missing pixels; they become 0.
    public init(width: Int, height: Int, metres: [Float]) {
        precondition(width > 0 && height > 0 && metres.count == width * height, "depth values do not match the size")
        self.width = width
        self.height = height
        self.metres = metres.map(Self.cleaned)
    }

    /// How a raw depth frame stores a pixel.
    public enum RawFormat: Sendable {
        case uint16, float32
        public var bytes: Int { self == .uint16 ? 2 : 4 }
    }

    /// Converts a raw depth frame: `height` rows of `width` values in `format` (big- or
    /// little-endian), `step` bytes apart in `rows`, times `scale` metres per unit, in one pass.
    /// The caller checks the sizes against the bytes.
    public init(width: Int, height: Int, format: RawFormat, bigEndian: Bool, rows: [UInt8], step: Int, scale: Double) {
        precondition(width > 0 && height > 0 && step >= width * format.bytes && rows.count >= step * (height - 1) + width * format.bytes,
                     "raw rows do not match the size")
        let unit = Float(scale)
        self.width = width
        self.height = height
        metres = [Float](unsafeUninitializedCapacity: width * height) { out, count in
            rows.withUnsafeBytes { bytes in
                for row in 0..<height {
                    let line = row * step, first = row * width
                    for x in 0..<width {
                        let value: Float
                        if format == .uint16 {
                            let raw = bytes.loadUnaligned(fromByteOffset: line + 2 * x, as: UInt16.self)
                            value = Float(bigEndian ? UInt16(bigEndian: raw) : UInt16(littleEndian: raw))
                        } else {
                            let raw = bytes.loadUnaligned(fromByteOffset: line + 4 * x, as: UInt32.self)
                            value = Float(bitPattern: bigEndian ? UInt32(bigEndian: raw) : UInt32(littleEndian: raw))
                        }
                        out[first + x] = Self.cleaned(value * unit)
                    }
                }
            }
            count = width * height
        }
    }

    /// Metres per stored unit when none is given: millimetres for 16-bit images, metres for float.
    public static let defaultScaleFor16Bit = 0.001

    /// Reads a 16-bit (PNG, TIFF) or 32-bit float (TIFF, PFM) one-channel depth image.
    /// `scale` is metres per stored unit (TUM: 1/5000); nil means millimetres for 16-bit and
    /// metres for float images. `limits` bounds its pixels, as for any image.
    public init(contentsOf path: String, scale: Double? = nil, limits: InputLimits = .standard) throws(WaymarkError) {
        if let scale, !(scale > 0 && scale.isFinite) {
            throw WaymarkError(.usage, "the depth scale must be a positive number of metres per unit; got \(scale)")
        }
        let raster = try Raster(contentsOf: path, limits: limits)
        let unit: Float
        switch raster.kind {
        case .uint8:
            throw WaymarkError(.badData, "\(path) is an 8-bit image; depth images are 16-bit or 32-bit float")
        case .uint16: unit = Float(scale ?? Self.defaultScaleFor16Bit)
        case .float32: unit = Float(scale ?? 1)
        }
        // Scaled and cleaned in one pass (the per-frame path of `waymark process`).
        width = raster.width
        height = raster.height
        metres = raster.values.map { Self.cleaned($0 * unit) }
    }

    /// A measurement, or 0 for none.
    @inline(__always)
    static func cleaned(_ metres: Float) -> Float { metres.isFinite && metres > 0 ? metres : 0 }

    public var validCount: Int { metres.reduce(0) { $0 + ($1 > 0 ? 1 : 0) } }

    /// Depth for the half-size image of a `width`×`height` one (both even): each 2×2 block's
    /// mean, whose centre is the half-size pixel's, where its four measurements agree within
    /// 3 %; else none, as an average across an object's edge would invent a depth.
    /// `out` is reused when it has the size already.
    public static func halve(_ metres: [Float], width: Int, height: Int, into out: inout [Float]) {
        precondition(width % 2 == 0 && height % 2 == 0 && metres.count == width * height, "halving needs an even size")
        let (w, h) = (width / 2, height / 2)
        if out.count != w * h { out = [Float](repeating: 0, count: w * h) }
        metres.withUnsafeBufferPointer { source in
            out.withUnsafeMutableBufferPointer { target in
                for y in 0..<h {
                    let top = 2 * y * width, bottom = top + width
                    for x in 0..<w {
                        let a = source[top + 2 * x], b = source[top + 2 * x + 1]
                        let c = source[bottom + 2 * x], d = source[bottom + 2 * x + 1]
                        let low = min(min(a, b), min(c, d)), high = max(max(a, b), max(c, d))
                        let sum = a + b + c + d
                        // A NaN or infinity anywhere makes the sum so: missing, as 0 is.
                        target[y * w + x] = sum.isFinite && low > 0 && high <= low * 1.03 ? sum / 4 : 0
                    }
                }
            }
        }
    }
}
