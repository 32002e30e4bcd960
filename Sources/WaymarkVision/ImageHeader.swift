import CSupport
import WaymarkCore

/// The formats Waymark reads, told by their first bytes, and the size each declares in its
/// header, read without decoding: PNG, JPEG, BMP, PNM/PAM/PFM, TIFF, WebP and Radiance HDR.
/// Anything else is refused before a decoder sees it: OpenCV would offer it to its other
/// decoders too, and GDCM's (DICOM) aborts the process on some 135-byte files (found by
/// fuzzing).
enum ImageHeader {
    enum Format: String, CaseIterable {
        case png = "PNG", jpeg = "JPEG", bmp = "BMP", netpbm = "PNM/PFM", tiff = "TIFF", webp = "WebP", radiance = "Radiance HDR"
    }

    static func format(of bytes: [UInt8]) -> Format? {
        let header = Reader(bytes)
        if header.starts(with: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) { return .png }
        if header.starts(with: [0xFF, 0xD8]) { return .jpeg }
        if header.starts(with: Array("BM".utf8)) { return .bmp }
        if header.starts(with: Array("II*\0".utf8)) || header.starts(with: Array("MM\0*".utf8)) { return .tiff }
        if header.starts(with: Array("RIFF".utf8)), header.matches(Array("WEBP".utf8), at: 8) { return .webp }
        if header.starts(with: Array("#?".utf8)) { return .radiance }
        if bytes.count > 2, bytes[0] == UInt8(ascii: "P"), Array("1234567fF".utf8).contains(bytes[1]) { return .netpbm }
        return nil
    }

    /// Width and height (signed, as declared: a PFM may declare a negative one) of bytes in
    /// `format`, or nil when the header is cut short.
    static func size(of bytes: [UInt8], in format: Format) -> (width: Int, height: Int)? {
        let header = Reader(bytes)
        switch format {
        case .png:
            guard let width = header.uint32(at: 16), let height = header.uint32(at: 20) else { return nil }
            return (width, height)
        case .jpeg: return jpegSize(header)
        case .bmp:
            if header.uint32(at: 14, bigEndian: false) == 12 {
                guard let width = header.uint16(at: 18, bigEndian: false), let height = header.uint16(at: 20, bigEndian: false)
                else { return nil }
                return (width, height)
            }
            guard let width = header.int32(at: 18), let height = header.int32(at: 22) else { return nil }
            return (width, abs(height))
        case .tiff: return tiffSize(header)
        case .webp: return webpSize(header)
        case .radiance: return radianceSize(bytes)
        case .netpbm: return netpbmSize(bytes)
        }
    }

    /// The first start-of-frame segment's size; nil if the scan starts before one.
    private static func jpegSize(_ header: Reader) -> (width: Int, height: Int)? {
        var offset = 2
        while let marker = header.byte(at: offset), marker == 0xFF {
            guard var code = header.byte(at: offset + 1) else { return nil }
            while code == 0xFF {
                offset += 1
                guard let next = header.byte(at: offset + 1) else { return nil }
                code = next
            }
            if code == 0xD8 || code == 0x01 || (0xD0...0xD7).contains(code) {
                offset += 2
                continue
            }
            if (0xC0...0xCF).contains(code), ![0xC4, 0xC8, 0xCC].contains(code) {
                guard let height = header.uint16(at: offset + 5), let width = header.uint16(at: offset + 7) else { return nil }
                return (width, height)
            }
            guard code != 0xDA, code != 0xD9, let length = header.uint16(at: offset + 2), length >= 2 else { return nil }
            offset += 2 + length
        }
        return nil
    }

    /// ImageWidth (256) and ImageLength (257) of the first directory of a classic TIFF.
    private static func tiffSize(_ header: Reader) -> (width: Int, height: Int)? {
        let bigEndian = header.byte(at: 0) == UInt8(ascii: "M")
        guard let directory = header.uint32(at: 4, bigEndian: bigEndian),
            let entries = header.uint16(at: directory, bigEndian: bigEndian)
        else { return nil }
        var width: Int?
        var height: Int?
        for k in 0..<entries {
            let entry = directory + 2 + 12 * k
            guard let tag = header.uint16(at: entry, bigEndian: bigEndian),
                let type = header.uint16(at: entry + 2, bigEndian: bigEndian)
            else { return nil }
            guard tag == 256 || tag == 257 else { continue }
            let value = type == 3 ? header.uint16(at: entry + 8, bigEndian: bigEndian)
                : type == 4 ? header.uint32(at: entry + 8, bigEndian: bigEndian) : nil
            if tag == 256 { width = value } else { height = value }
        }
        guard let width, let height else { return nil }
        return (width, height)
    }

    /// The size of a lossy (VP8), lossless (VP8L) or extended (VP8X) WebP.
    private static func webpSize(_ header: Reader) -> (width: Int, height: Int)? {
        if header.matches(Array("VP8 ".utf8), at: 12) {
            guard let width = header.uint16(at: 26, bigEndian: false), let height = header.uint16(at: 28, bigEndian: false)
            else { return nil }
            return (width & 0x3FFF, height & 0x3FFF)
        }
        if header.matches(Array("VP8L".utf8), at: 12) {
            guard let bits = header.uint32(at: 21, bigEndian: false) else { return nil }
            return ((bits & 0x3FFF) + 1, ((bits >> 14) & 0x3FFF) + 1)
        }
        if header.matches(Array("VP8X".utf8), at: 12) {
            guard let width = header.uint24(at: 24), let height = header.uint24(at: 27) else { return nil }
            return (width + 1, height + 1)
        }
        return nil
    }

    /// Radiance HDR: text lines up to an empty one, then "-Y height +X width" (or another
    /// orientation of the two).
    private static func radianceSize(_ bytes: [UInt8]) -> (width: Int, height: Int)? {
        let lines = bytes.prefix(4096).split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false)
        guard let blank = lines.firstIndex(where: \.isEmpty), blank + 1 < lines.count else { return nil }
        let words = String(decoding: lines[blank + 1], as: UTF8.self).split(separator: " ")
        guard words.count == 4, let first = Int(words[1]), let second = Int(words[3]) else { return nil }
        return words[0].hasSuffix("Y") ? (second, first) : (first, second)
    }

    /// PBM, PGM, PPM and PFM ("P1"–"P6", "Pf", "PF": width and height after the magic, with #
    /// comments) and PAM ("P7": WIDTH and HEIGHT lines).
    private static func netpbmSize(_ bytes: [UInt8]) -> (width: Int, height: Int)? {
        let text = String(decoding: bytes.prefix(4096), as: UTF8.self)
        let lines = text.split(separator: "\n").map { $0.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false)[0] }
        let words = lines.flatMap { $0.split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "\r" }) }
        if bytes[1] == UInt8(ascii: "7") {
            func value(_ key: String) -> Int? { words.firstIndex(of: Substring(key)).flatMap { $0 + 1 < words.count ? Int(words[$0 + 1]) : nil } }
            guard let width = value("WIDTH"), let height = value("HEIGHT") else { return nil }
            return (width, height)
        }
        guard words.count >= 3, let width = Int(words[1]), let height = Int(words[2]) else { return nil }
        return (width, height)
    }

    /// Bounds-checked reads of the first bytes of a file.
    private struct Reader {
        let bytes: [UInt8]
        init(_ bytes: [UInt8]) { self.bytes = bytes }

        func byte(at offset: Int) -> UInt8? { offset >= 0 && offset < bytes.count ? bytes[offset] : nil }

        func starts(with prefix: [UInt8]) -> Bool { matches(prefix, at: 0) }

        func matches(_ text: [UInt8], at offset: Int) -> Bool {
            offset >= 0 && offset + text.count <= bytes.count && bytes[offset..<(offset + text.count)].elementsEqual(text)
        }

        private func unsigned(at offset: Int, bytes count: Int, bigEndian: Bool) -> Int? {
            guard offset >= 0, offset + count <= bytes.count else { return nil }
            let window = bytes[offset..<(offset + count)]
            return (bigEndian ? Array(window) : window.reversed()).reduce(0) { $0 << 8 | Int($1) }
        }

        func uint16(at offset: Int, bigEndian: Bool = true) -> Int? { unsigned(at: offset, bytes: 2, bigEndian: bigEndian) }
        func uint24(at offset: Int) -> Int? { unsigned(at: offset, bytes: 3, bigEndian: false) }
        func uint32(at offset: Int, bigEndian: Bool = true) -> Int? { unsigned(at: offset, bytes: 4, bigEndian: bigEndian) }
        func int32(at offset: Int) -> Int? { uint32(at: offset, bigEndian: false).map { Int(Int32(truncatingIfNeeded: $0)) } }
    }
}

/// Reads an image file's bytes, refuses what its header declares beyond `limits`, and hands the
/// bytes to `decode`. The file is read once, so a FIFO or a device is refused before it blocks.
func decodeImageFile(_ path: String, limits: InputLimits,
                     _ decode: (UnsafeBufferPointer<UInt8>, UnsafeMutablePointer<cs_error>) -> cs_status) throws(WaymarkError)
{
    try decodeImageBytes(try readFileBytes(path), named: path, limits: limits, decode)
}

/// The same for an image file's bytes already in memory (a recording's compressed frame);
/// `path` names them in messages.
func decodeImageBytes(_ bytes: [UInt8], named path: String, limits: InputLimits,
                      _ decode: (UnsafeBufferPointer<UInt8>, UnsafeMutablePointer<cs_error>) -> cs_status) throws(WaymarkError)
{
    guard !bytes.isEmpty else { throw WaymarkError(.badData, "\(path) is empty, not an image") }
    guard let format = ImageHeader.format(of: bytes) else {
        throw WaymarkError(.badData, "\(path) is not an image in a format Waymark reads ("
                           + ImageHeader.Format.allCases.map(\.rawValue).joined(separator: ", ") + ")")
    }
    if let size = ImageHeader.size(of: bytes, in: format) { try limits.checkPixels(width: size.width, height: size.height, of: path) }
    try bytes.withUnsafeBufferPointer { buffer throws(WaymarkError) in try check { decode(buffer, $0) } }
}

extension Image {
    /// The size an image file's bytes declare in their header, without decoding them; nil when
    /// the format is not one Waymark reads or the header is cut short.
    public static func declaredSize(ofEncoded bytes: [UInt8]) -> (width: Int, height: Int)? {
        ImageHeader.format(of: bytes).flatMap { ImageHeader.size(of: bytes, in: $0) }
    }
}
