/// Little-endian binary encoding for Waymark's own file sections.
public struct ByteWriter: Sendable {
    public private(set) var bytes: [UInt8] = []

    public init() {}

    public mutating func append<T: FixedWidthInteger>(_ value: T) {
        withUnsafeBytes(of: value.littleEndian) { bytes.append(contentsOf: $0) }
    }

    public mutating func append(_ value: Double) { append(value.bitPattern) }

    public mutating func append(_ value: Float) { append(value.bitPattern) }

    public mutating func append(_ values: [UInt8]) { bytes.append(contentsOf: values) }

    /// A length (UInt32) and the UTF-8 bytes.
    public mutating func append(_ text: String) {
        append(UInt32(text.utf8.count))
        bytes.append(contentsOf: text.utf8)
    }
}

/// Reads what `ByteWriter` wrote; running past the end is a bad-data error naming `name`.
public struct ByteReader: Sendable {
    public let bytes: [UInt8]
    public private(set) var offset: Int
    private let name: String

    public init(_ bytes: [UInt8], offset: Int = 0, name: String) {
        self.bytes = bytes
        self.offset = offset
        self.name = name
    }

    public var isAtEnd: Bool { offset == bytes.count }

    public mutating func read<T: FixedWidthInteger>(_: T.Type) throws(WaymarkError) -> T {
        try need(MemoryLayout<T>.size)
        var value: T = 0
        for k in 0..<MemoryLayout<T>.size { value |= T(bytes[offset + k]) << (8 * k) }
        offset += MemoryLayout<T>.size
        return value
    }

    public mutating func read(_: Double.Type) throws(WaymarkError) -> Double {
        Double(bitPattern: try read(UInt64.self))
    }

    public mutating func read(_: Float.Type) throws(WaymarkError) -> Float {
        Float(bitPattern: try read(UInt32.self))
    }

    public mutating func read(bytes count: Int) throws(WaymarkError) -> ArraySlice<UInt8> {
        try need(count)
        defer { offset += count }
        return bytes[offset..<(offset + count)]
    }

    public mutating func read(_: String.Type) throws(WaymarkError) -> String {
        let count = Int(try read(UInt32.self))
        return String(decoding: try read(bytes: count), as: UTF8.self)
    }

    /// A count that must be small enough for the bytes left, at `bytesEach` per item.
    public mutating func readCount(bytesEach: Int) throws(WaymarkError) -> Int {
        let count = Int(try read(UInt32.self))
        guard count * bytesEach <= bytes.count - offset else {
            throw WaymarkError(.badData, "\(name) is malformed: it counts \(count) items but has room for fewer")
        }
        return count
    }

    private func need(_ count: Int) throws(WaymarkError) {
        guard count <= bytes.count - offset else {
            throw WaymarkError(.badData, "\(name) is malformed: it ends \(count - (bytes.count - offset)) bytes early")
        }
    }
}
