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

    /// Coordinates are metres. A point farther than this from the sensor on any axis is no
    /// measurement (and would overflow the detector's arithmetic), so it is invalid, as NaN is.
    public static let maximumCoordinate: Float = 1e6

    /// A point with finite coordinates within `maximumCoordinate`.
    @inline(__always)
    public static func isValid(_ point: SIMD3<Float>) -> Bool {
        abs(point.x) <= maximumCoordinate && abs(point.y) <= maximumCoordinate && abs(point.z) <= maximumCoordinate
    }

    /// The valid points (the grid is dropped).
    public var validPoints: [SIMD3<Float>] { points.filter(Self.isValid) }

    /// Points with finite coordinates that are nonetheless invalid: beyond `maximumCoordinate`.
    public var farPointCount: Int {
        points.reduce(0) { $0 + (!Self.isValid($1) && $1.x.isFinite && $1.y.isFinite && $1.z.isFinite ? 1 : 0) }
    }

    /// The grid as contiguous coordinate planes, for organized clouds; invalid points are NaN.
    public var organizedPoints: OrganizedPoints? {
        guard isOrganized else { return nil }
        let grid = points.map { Self.isValid($0) ? $0 : SIMD3(repeating: .nan) }
        return OrganizedPoints(width: width, height: height, x: grid.map(\.x), y: grid.map(\.y), z: grid.map(\.z))
    }

    /// Reads `.ply` (ascii, binary little- or big-endian) or `.pcd` (ascii, binary,
    /// binary_compressed) by extension. A header that declares more points than `limits` allow,
    /// or than the file's bytes can hold, is refused before anything is allocated.
    public init(contentsOf path: String, limits: InputLimits = .standard) throws(WaymarkError) {
        let bytes = try readFileBytes(path)
        switch (path as NSString).pathExtension.lowercased() {
        case "ply": self = try PLYFile.decode(bytes, path: path, limits: limits)
        case "pcd": self = try PCDFile.decode(bytes, path: path, limits: limits)
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
