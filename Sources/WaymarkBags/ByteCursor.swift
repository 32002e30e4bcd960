import WaymarkCore

/// Little-endian reads from a span of bytes, each bounds-checked: a read past the end throws
/// bad data saying that `what` is shorter than its fields.
struct ByteCursor {
    let bytes: UnsafeRawBufferPointer
    let what: String
    private(set) var offset: Int

    init(_ bytes: UnsafeRawBufferPointer, at offset: Int = 0, what: String) {
        self.bytes = bytes
        self.offset = offset
        self.what = what
    }

    var remaining: Int { bytes.count - offset }

    private func end() -> WaymarkError { WaymarkError(.badData, "\(what) is shorter than its fields") }

    mutating func read<T: FixedWidthInteger>(_: T.Type) throws(WaymarkError) -> T {
        guard MemoryLayout<T>.size <= remaining else { throw end() }
        let value = T(littleEndian: bytes.loadUnaligned(fromByteOffset: offset, as: T.self))
        offset += MemoryLayout<T>.size
        return value
    }

    /// `count` bytes as a span of the same memory, not a copy.
    mutating func slice(_ count: Int) throws(WaymarkError) -> UnsafeRawBufferPointer {
        guard count >= 0, count <= remaining else { throw end() }
        defer { offset += count }
        return UnsafeRawBufferPointer(rebasing: bytes[offset..<(offset + count)])
    }

    /// A length (of `Length`'s width) and that many bytes.
    mutating func prefixedSlice<Length: FixedWidthInteger>(_: Length.Type) throws(WaymarkError) -> UnsafeRawBufferPointer {
        let count = try read(Length.self)
        guard count >= 0, UInt64(count) <= UInt64(remaining) else { throw end() }
        return try slice(Int(count))
    }

    /// A UTF-8 string after its 32-bit length (MCAP's strings).
    mutating func string() throws(WaymarkError) -> String {
        String(decoding: try prefixedSlice(UInt32.self), as: UTF8.self)
    }
}
