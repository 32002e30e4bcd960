import WaymarkCore

/// Reads a ROS 2 message serialized as CDR (OMG XCDR1, as ROS 2's rmw layers write it): a
/// 4-byte encapsulation header (plain CDR, big- or little-endian), then the fields in order,
/// each primitive aligned to its size from the end of that header; strings and sequences are a
/// 32-bit count and their elements.
struct CDRReader {
    private let bytes: [UInt8]
    private let littleEndian: Bool
    private var offset = 4
    private let what: String

    init(_ message: BagMessage) throws(WaymarkError) {
        what = "a \(message.type) message on \(message.topic)"
        bytes = message.data
        guard bytes.count >= 4, bytes[0] == 0, bytes[1] <= 1 else {
            throw WaymarkError(.badData, "\(what) is not plain CDR (its encapsulation header is not 00 00 or 00 01)")
        }
        littleEndian = bytes[1] == 1
    }

    private func short() -> WaymarkError { WaymarkError(.badData, "\(what) is shorter than its fields") }

    private mutating func align(_ size: Int) throws(WaymarkError) {
        let padding = (size - (offset - 4) % size) % size
        guard padding <= bytes.count - offset else { throw short() }
        offset += padding
    }

    mutating func read<T: FixedWidthInteger>(_: T.Type) throws(WaymarkError) -> T {
        let size = MemoryLayout<T>.size
        try align(size)
        guard size <= bytes.count - offset else { throw short() }
        let raw = bytes.withUnsafeBytes { $0.loadUnaligned(fromByteOffset: offset, as: T.self) }
        offset += size
        return littleEndian ? T(littleEndian: raw) : T(bigEndian: raw)
    }

    mutating func float64() throws(WaymarkError) -> Double { Double(bitPattern: try read(UInt64.self)) }

    mutating func float64s(_ count: Int) throws(WaymarkError) -> [Double] {
        var values: [Double] = []
        values.reserveCapacity(count)
        for _ in 0..<count { values.append(try float64()) }
        return values
    }

    /// A sequence's element count, checked against the bytes left (each element `elementSize` bytes at least).
    mutating func count(elementSize: Int = 1) throws(WaymarkError) -> Int {
        let count = Int(try read(UInt32.self))
        guard count <= (bytes.count - offset) / max(elementSize, 1) else { throw short() }
        return count
    }

    mutating func string() throws(WaymarkError) -> String {
        let length = try count()
        defer { offset += length }
        // The length counts a terminating NUL.
        return String(decoding: bytes[offset..<(offset + max(length - 1, 0))], as: UTF8.self)
    }

    /// A uint8[] field's first bytes, as many as the message holds (all of them, unless the
    /// message was read head only).
    mutating func byteSequenceHead() throws(WaymarkError) -> [UInt8] {
        let length = Int(try read(UInt32.self))
        let kept = min(length, bytes.count - offset)
        defer { offset += kept }
        return Array(bytes[offset..<(offset + kept)])
    }

    /// A uint8[] field, copied out.
    mutating func byteSequence() throws(WaymarkError) -> [UInt8] {
        let length = try count()
        defer { offset += length }
        return Array(bytes[offset..<(offset + length)])
    }

    mutating func vector3() throws(WaymarkError) -> SIMD3<Double> { SIMD3(try float64(), try float64(), try float64()) }

    /// A geometry_msgs Quaternion, (x, y, z, w).
    mutating func quaternion() throws(WaymarkError) -> SIMD4<Double> {
        SIMD4(try float64(), try float64(), try float64(), try float64())
    }

    /// A std_msgs Header: its stamp in nanoseconds and its frame.
    mutating func header() throws(WaymarkError) -> (stamp: Int64, frame: String) {
        let seconds = Int64(try read(Int32.self)), nanoseconds = Int64(try read(UInt32.self))
        return (seconds * 1_000_000_000 + nanoseconds, try string())
    }
}
