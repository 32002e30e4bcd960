import CSupport
import WaymarkCore

/// A one-channel image read without conversion: a depth map, a label or a mask image.
public struct Raster: Sendable {
    public enum Kind: Sendable, Equatable {
        case uint8, uint16, float32
    }

    public var width: Int
    public var height: Int
    public var kind: Kind
    /// The stored values as floats, row-major.
    public var values: [Float]

    /// Reads an 8-bit, 16-bit or 32-bit float one-channel image (PNG, TIFF, PFM, ...). A file
    /// whose header declares more pixels than `limits` allow is refused before it is decoded.
    public init(contentsOf path: String, limits: InputLimits = .standard) throws(WaymarkError) {
        var out: OpaquePointer?
        try decodeImageFile(path, limits: limits) { bytes, error in cs_raster_decode(bytes.baseAddress, bytes.count, path, &out, error) }
        defer { cs_raster_destroy(out) }
        var info = cs_raster_info()
        checkInvariant { cs_raster_get_info(out, &info, $0) }
        width = Int(info.width)
        height = Int(info.height)
        kind = switch info.kind {
        case Int32(CS_RASTER_U8.rawValue): .uint8
        case Int32(CS_RASTER_U16.rawValue): .uint16
        default: .float32
        }
        try limits.checkPixels(width: width, height: height, of: path)
        let count = width * height
        values = [Float](uninitializedCapacity: count) { buffer, initialized in
            checkInvariant { cs_raster_copy_values(out, buffer.baseAddress, buffer.count, $0) }
            initialized = count
        }
    }

    /// Writes `values` (row-major, `width * height` of them) as a 16-bit image, replacing any
    /// file at `path` atomically.
    public static func writeUInt16(_ values: [UInt16], width: Int, height: Int, to path: String) throws(WaymarkError) {
        precondition(values.count == width * height, "value count does not match the size")
        try values.withUnsafeBufferPointer { buffer throws(WaymarkError) in
            try check { cs_raster_write_u16(path, temporarySibling(of: path), Int32(width), Int32(height), buffer.baseAddress, $0) }
        }
    }
}
