import Foundation
import Testing
import TestData
import WaymarkCore

@Suite struct SectionedFileTests {
    static let sample = SectionedFile(kind: "WMAP", version: 1, sections: [
        ("META", Array("{\"frames\": 3}".utf8)), ("KEYF", (0..<1000).map { UInt8($0 % 251) }), ("EMPT", []),
    ])

    static func failure(_ bytes: [UInt8], version: UInt32 = 1) -> String? {
        do {
            _ = try SectionedFile(decoding: bytes, kind: "WMAP", version: version, name: "m.waymap")
            return nil
        } catch { return error.message }
    }

    @Test func writesAndReadsBackTheSameSections() throws {
        let scratch = try Scratch()
        let path = scratch.path("m.waymap")
        try Self.sample.write(to: path)
        let read = try SectionedFile(contentsOf: path, kind: "WMAP", version: 1)
        #expect(read == Self.sample)
        #expect(read.section("KEYF")?.count == 1000)
        // Replacing an existing file leaves no temporary behind.
        try SectionedFile(kind: "WMAP", version: 1, sections: [("META", [1])]).write(to: path)
        #expect(try SectionedFile(contentsOf: path, kind: "WMAP", version: 1).section("META") == [1])
        #expect(try FileManager.default.contentsOfDirectory(atPath: scratch.url.path) == ["m.waymap"])
    }

    @Test func everyTruncationIsCaughtAndNamed() {
        let bytes = Self.sample.encoded()
        for length in [0, 5, 19, 21, 40, bytes.count - 1004, bytes.count - 30, bytes.count - 2] {
            let message = Self.failure(Array(bytes.prefix(length)))
            #expect(message != nil, "a file cut to \(length) bytes was accepted")
            if length >= 20 { #expect(message?.contains("truncated") == true, "\(length): \(message ?? "")") }
        }
    }

    @Test func corruptForeignAndOtherVersionFilesSayWhich() {
        var bytes = Self.sample.encoded()
        bytes[100] ^= 0x01
        #expect(Self.failure(bytes)?.contains("corrupt") == true)
        #expect(Self.failure(Array("\u{89}PNG\r\n\u{1A}\n and more than twenty bytes".utf8))?.contains("not a Waymark WMAP file") == true)
        #expect(Self.failure(Self.sample.encoded(), version: 2)?.contains("format version 1; this build reads version 2") == true)
        #expect(Self.failure(Self.sample.encoded() + [0])?.contains("after its end") == true)
    }

    /// The trailer is the standard CRC-32, computed here bit by bit (check value: "123456789" → CBF43926).
    @Test func theTrailerIsTheStandardCRC32() {
        func crc32(_ bytes: [UInt8]) -> UInt32 {
            var crc: UInt32 = 0xFFFF_FFFF
            for byte in bytes {
                crc ^= UInt32(byte)
                for _ in 0..<8 { crc = crc & 1 == 1 ? (crc >> 1) ^ 0xEDB8_8320 : crc >> 1 }
            }
            return ~crc
        }
        #expect(crc32(Array("123456789".utf8)) == 0xCBF4_3926)
        let bytes = Self.sample.encoded()
        let trailer = bytes.suffix(4).enumerated().reduce(UInt32(0)) { $0 | UInt32($1.element) << (8 * UInt32($1.offset)) }
        #expect(trailer == crc32(Array(bytes.dropLast(4))))
    }

    @Test func aFailedWriteLeavesThePreviousFileIntact() throws {
        let scratch = try Scratch()
        // A name that fits (247 of 255 bytes) whose temporary sibling, longer by ".PID-N.partial"
        // and a dot, cannot be created.
        let path = scratch.path(String(repeating: "m", count: 240) + ".waymap")
        try Self.sample.write(to: scratch.path("m.waymap"))
        try FileManager.default.copyItem(atPath: scratch.path("m.waymap"), toPath: path)
        #expect(throws: WaymarkError.self) { try SectionedFile(kind: "WMAP", version: 1, sections: []).write(to: path) }
        #expect(try SectionedFile(contentsOf: path, kind: "WMAP", version: 1) == Self.sample)
        #expect(throws: WaymarkError.self) { try Self.sample.write(to: scratch.path("absent/m.waymap")) }
    }
}
