import Foundation
import WaymarkCore

/// Points read from a PLY or PCD file. An organized cloud (height > 1) keeps its grid, with
/// NaN coordinates where a pixel has no point; an unorganized one has height 1.
public struct PointCloud: Sendable {
    public var points: [SIMD3<Float>]
    public var width: Int
    public var height: Int

    public init(points: [SIMD3<Float>], width: Int? = nil, height: Int = 1) {
        let width = width ?? points.count
        precondition(width * height == points.count, "the grid does not match the point count")
        self.points = points
        self.width = width
        self.height = height
    }

    public var isOrganized: Bool { height > 1 }

    /// Points with finite coordinates (the grid is dropped).
    public var validPoints: [SIMD3<Float>] {
        points.filter { $0.x.isFinite && $0.y.isFinite && $0.z.isFinite }
    }

    /// The grid as contiguous coordinate planes, for organized clouds.
    public var organizedPoints: OrganizedPoints? {
        guard isOrganized else { return nil }
        return OrganizedPoints(width: width, height: height, x: points.map(\.x), y: points.map(\.y), z: points.map(\.z))
    }

    /// Reads `.ply` (ascii, binary little- or big-endian) or `.pcd` (ascii, binary,
    /// binary_compressed) by extension.
    public init(contentsOf path: String) throws(WaymarkError) {
        let bytes = try readFileBytes(path)
        switch (path as NSString).pathExtension.lowercased() {
        case "ply": self = try PLYFile.decode(bytes, path: path)
        case "pcd": self = try PCDFile.decode(bytes, path: path)
        default: throw WaymarkError(.usage, "\(path): point clouds are read from .ply or .pcd files")
        }
    }
}

/// Reads a text header line by line, then binary values, from a file's bytes.
struct ByteCursor {
    let bytes: [UInt8]
    var position = 0

    init(_ bytes: [UInt8]) { self.bytes = bytes }

    var remaining: Int { bytes.count - position }

    /// The next line without its terminator, or nil at the end.
    mutating func line() -> String? {
        guard position < bytes.count else { return nil }
        let start = position
        while position < bytes.count, bytes[position] != 0x0A { position += 1 }
        var end = position
        if position < bytes.count { position += 1 }
        if end > start, bytes[end - 1] == 0x0D { end -= 1 }
        return String(decoding: bytes[start..<end], as: UTF8.self)
    }
}

/// A scalar type used by PLY and PCD fields.
enum ScalarType: Sendable, Equatable {
    case int(bytes: Int), uint(bytes: Int), float(bytes: Int)

    var size: Int {
        switch self {
        case .int(let b), .uint(let b), .float(let b): b
        }
    }

    /// Decodes one value at `offset`.
    @inline(__always)
    func value(in bytes: UnsafeBufferPointer<UInt8>, at offset: Int, bigEndian: Bool = false) -> Double {
        var raw: UInt64 = 0
        let size = self.size
        for i in 0..<size {
            let byte = UInt64(bytes[offset + (bigEndian ? size - 1 - i : i)])
            raw |= byte << (8 * UInt64(i))
        }
        switch self {
        case .float(4): return Double(Float(bitPattern: UInt32(truncatingIfNeeded: raw)))
        case .float: return Double(bitPattern: raw)
        case .uint: return Double(raw)
        case .int:
            let shift = UInt64(64 - 8 * size)
            return Double(Int64(bitPattern: raw << shift) >> Int64(shift))
        }
    }
}
