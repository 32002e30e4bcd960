import Foundation

/// A versioned binary file of tagged sections with an integrity check, replaced atomically:
/// the container of Waymark's world maps (`.waymap`).
///
/// Layout, little-endian: the 8-byte magic "WAYMARK\0", a 4-byte kind (e.g. "WMAP"), the
/// format version (UInt32), the section count (UInt32); per section a 4-byte tag, its length
/// (UInt64) and its bytes; then the CRC-32 (IEEE) of everything before it.
public struct SectionedFile: Sendable, Equatable {
    public static let magic = Array("WAYMARK\0".utf8)

    public var kind: String
    public var version: UInt32
    /// In file order; tags are four ASCII characters and may repeat.
    public var sections: [(tag: String, bytes: [UInt8])]

    public init(kind: String, version: UInt32, sections: [(tag: String, bytes: [UInt8])]) {
        precondition(kind.utf8.count == 4 && sections.allSatisfy { $0.tag.utf8.count == 4 }, "kinds and tags are 4 bytes")
        self.kind = kind
        self.version = version
        self.sections = sections
    }

    public static func == (a: SectionedFile, b: SectionedFile) -> Bool {
        a.kind == b.kind && a.version == b.version && a.sections.map(\.tag) == b.sections.map(\.tag)
            && a.sections.map(\.bytes) == b.sections.map(\.bytes)
    }

    public func section(_ tag: String) -> [UInt8]? { sections.first { $0.tag == tag }?.bytes }

    public func encoded() -> [UInt8] {
        var out = ByteWriter()
        out.append(Self.magic + Array(kind.utf8))
        out.append(version)
        out.append(UInt32(sections.count))
        for section in sections {
            out.append(Array(section.tag.utf8))
            out.append(UInt64(section.bytes.count))
            out.append(section.bytes)
        }
        out.append(CRC32.checksum(out.bytes))
        return out.bytes
    }

    /// Writes through a sibling temporary file that replaces `path` only once it is complete
    /// and flushed to disk, so a crash mid-save leaves the previous file (or none), never a
    /// broken one.
    public func write(to path: String) throws(WaymarkError) {
        let temporary = temporarySibling(of: path)
        let bytes = encoded()
        let descriptor = open(temporary, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        guard descriptor >= 0 else { throw WaymarkError(.cannotCreateOutput, "cannot create \(path): \(Self.lastError())") }
        var written = 0
        var failure: String?
        bytes.withUnsafeBytes { raw in
            while written < raw.count {
                let n = Foundation.write(descriptor, raw.baseAddress! + written, raw.count - written)
                if n <= 0 { failure = Self.lastError(); return }
                written += n
            }
        }
        if failure == nil, fsync(descriptor) != 0 { failure = Self.lastError() }
        close(descriptor)
        if failure == nil, rename(temporary, path) != 0 { failure = Self.lastError() }
        if let failure {
            unlink(temporary)
            throw WaymarkError(.writeFailed, "cannot write \(path): \(failure)")
        }
    }

    /// Reads a file of `kind` and `version`; foreign, other-version, truncated and corrupt
    /// files are errors that say which.
    public init(contentsOf path: String, kind: String, version: UInt32) throws(WaymarkError) {
        try self.init(decoding: try readFileBytes(path), kind: kind, version: version, name: path)
    }

    public init(decoding bytes: [UInt8], kind: String, version: UInt32, name: String) throws(WaymarkError) {
        let header = Self.magic.count + 12
        guard bytes.count >= Self.magic.count, Array(bytes[0..<Self.magic.count]) == Self.magic,
            bytes.count >= header, String(decoding: bytes[8..<12], as: UTF8.self) == kind
        else {
            throw WaymarkError(.badData, "\(name) is not a Waymark \(kind) file")
        }
        let fileVersion = Self.integer(bytes, at: 12, as: UInt32.self)
        guard fileVersion == version else {
            throw WaymarkError(.badData, "\(name) is format version \(fileVersion); this build reads version \(version)")
        }
        let count = Int(Self.integer(bytes, at: 16, as: UInt32.self))
        var offset = header
        var sections: [(tag: String, bytes: [UInt8])] = []
        for index in 0..<count {
            guard offset + 12 <= bytes.count else {
                throw WaymarkError(.badData, "\(name) is truncated: it ends in section \(index + 1) of \(count)")
            }
            let tag = String(decoding: bytes[offset..<(offset + 4)], as: UTF8.self)
            let length = Self.integer(bytes, at: offset + 4, as: UInt64.self)
            offset += 12
            guard length <= UInt64(bytes.count - offset) else {
                throw WaymarkError(.badData, "\(name) is truncated: section \(index + 1) of \(count) ('\(tag)') is cut short")
            }
            sections.append((tag, Array(bytes[offset..<(offset + Int(length))])))
            offset += Int(length)
        }
        guard offset + 4 <= bytes.count else { throw WaymarkError(.badData, "\(name) is truncated: its checksum is missing") }
        guard offset + 4 == bytes.count else { throw WaymarkError(.badData, "\(name) has \(bytes.count - offset - 4) bytes after its end") }
        guard Self.integer(bytes, at: offset, as: UInt32.self) == CRC32.checksum(bytes[0..<offset]) else {
            throw WaymarkError(.badData, "\(name) is corrupt: its checksum does not match its contents")
        }
        self.init(kind: kind, version: version, sections: sections)
    }

    private static func integer<T: FixedWidthInteger>(_ bytes: [UInt8], at offset: Int, as: T.Type) -> T {
        var reader = ByteReader(bytes, offset: offset, name: "")
        return try! reader.read(T.self)
    }

    private static func lastError() -> String { String(cString: strerror(errno)) }
}

/// CRC-32 (IEEE 802.3, the one zlib and PNG use).
enum CRC32 {
    static let table: [UInt32] = (0..<256).map { n in
        var c = UInt32(n)
        for _ in 0..<8 { c = c & 1 != 0 ? 0xEDB8_8320 ^ (c >> 1) : c >> 1 }
        return c
    }

    static func checksum<C: Collection>(_ bytes: C) -> UInt32 where C.Element == UInt8 {
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in bytes { crc = table[Int((crc ^ UInt32(byte)) & 0xFF)] ^ (crc >> 8) }
        return crc ^ 0xFFFF_FFFF
    }
}
