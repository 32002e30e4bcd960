import CLZ4
import CZstd
import Foundation
import WaymarkCore

/// Reads an MCAP file (https://mcap.dev/spec) record by record from its start, as a recording
/// is written: its schemas and channels as they come, messages at the top level or in chunks
/// (uncompressed, `zstd` or `lz4`), up to the data section's end. It needs no summary, so a
/// file whose recording was cut off reads up to its last whole record (`truncation` says where
/// it stopped). The file is mapped, not read into memory; a chunk is decompressed into one
/// buffer that the next reuses.
final class MCAPReader: BagStorageReader {
    static let magic: [UInt8] = [0x89, 0x4D, 0x43, 0x41, 0x50, 0x30, 0x0D, 0x0A]
    /// A chunk bigger than this, decompressed, is refused rather than allocated.
    static let largestChunk = 1 << 30

    private enum Opcode: UInt8 {
        case header = 0x01, footer = 0x02, schema = 0x03, channel = 0x04, message = 0x05, chunk = 0x06, dataEnd = 0x0F
    }

    private let name: String
    private let file: Data
    private var offset: Int
    private var chunk: [UInt8] = []
    private var chunkOffset = 0
    private var schemas: [UInt16: String] = [:]
    private var channels: [UInt16: (topic: String, type: String)] = [:]
    /// The channels read so far, as topics (without counts), in the order they came.
    private(set) var topics: [BagTopic] = []
    private var ended = false
    private(set) var truncation: String?

    init(path: String) throws(WaymarkError) {
        name = (path as NSString).lastPathComponent
        do {
            file = try Data(contentsOf: URL(fileURLWithPath: path), options: .alwaysMapped)
        } catch {
            throw WaymarkError(.missingInput, "cannot read \(path): \(error.localizedDescription)")
        }
        guard file.count >= Self.magic.count, file.prefix(Self.magic.count).elementsEqual(Self.magic) else {
            throw WaymarkError(.badData, "\(name) is not an MCAP file (it does not start with MCAP's magic bytes)")
        }
        offset = Self.magic.count
    }

    func next(whole: BagMessageFilter) throws(WaymarkError) -> BagMessage? {
        while !ended {
            // Result carries the typed error out of withUnsafeBytes, which rethrows untyped.
            if chunkOffset < chunk.count {
                let record = chunk.withUnsafeBytes { bytes in
                    Result { () throws(WaymarkError) in try readRecord(in: bytes, at: &chunkOffset, inChunk: true, whole: whole) }
                }
                if let message = try record.get() { return message }
                continue
            }
            let record = file.withUnsafeBytes { bytes in
                Result { () throws(WaymarkError) in try readRecord(in: bytes, at: &offset, inChunk: false, whole: whole) }
            }
            if let message = try record.get() { return message }
        }
        return nil
    }

    /// The record at `at` (advancing past it): a message, or nil after taking in anything else.
    private func readRecord(in bytes: UnsafeRawBufferPointer, at position: inout Int, inChunk: Bool, whole: BagMessageFilter)
        throws(WaymarkError) -> BagMessage?
    {
        let start = position
        var cursor = ByteCursor(bytes, at: position, what: "\(name): a record inside a chunk")
        let opcode: UInt8, body: UnsafeRawBufferPointer
        do {
            opcode = try cursor.read(UInt8.self)
            body = try cursor.prefixedSlice(UInt64.self)
        } catch {
            if inChunk { throw error }
            truncation = start == bytes.count
                ? "\(name) ends at byte \(start) without MCAP's data end and footer (the recording did not finish)"
                : "\(name): its record at byte \(start) is cut off (the recording ended mid-write)"
            ended = true
            return nil
        }
        position = cursor.offset
        var fields = ByteCursor(body, what: "\(name): the record at byte \(start) (opcode \(opcode))")
        switch Opcode(rawValue: opcode) {
        case .schema:
            let id = try fields.read(UInt16.self)
            schemas[id] = try fields.string()
        case .channel:
            let id = try fields.read(UInt16.self), schema = try fields.read(UInt16.self)
            let topic = try fields.string()
            let encoding = try fields.string()
            guard let type = schemas[schema] else {
                throw WaymarkError(.badData, "\(name): channel \(topic) names schema \(schema), which came before in no record")
            }
            channels[id] = (topic, type)
            if !topics.contains(where: { $0.name == topic }) {
                topics.append(BagTopic(name: topic, type: type, serializationFormat: encoding))
            }
        case .message:
            let channel = try fields.read(UInt16.self)
            _ = try fields.read(UInt32.self)  // sequence
            let logTime = try fields.read(UInt64.self)
            _ = try fields.read(UInt64.self)  // publish time
            guard let (topic, type) = channels[channel] else {
                throw WaymarkError(.badData, "\(name): a message on channel \(channel), which came before in no record")
            }
            let kept = whole(topic, type) ? fields.remaining : min(fields.remaining, BagMessage.headBytes)
            return BagMessage(topic: topic, type: type, logTime: Int64(truncatingIfNeeded: logTime), data: Array(try fields.slice(kept)))
        case .chunk:
            guard !inChunk else { throw WaymarkError(.badData, "\(name): a chunk inside a chunk") }
            try decompressChunk(&fields, at: start)
        case .dataEnd, .footer:
            if !inChunk { ended = true }
        case .header, nil:
            break  // the header, indexes, statistics, attachments, metadata: nothing a frame needs
        }
        return nil
    }

    private func decompressChunk(_ fields: inout ByteCursor, at start: Int) throws(WaymarkError) {
        _ = try fields.read(UInt64.self)  // message start time
        _ = try fields.read(UInt64.self)  // message end time
        let size = try fields.read(UInt64.self)
        _ = try fields.read(UInt32.self)  // CRC of the uncompressed records (not checked)
        let compression = try fields.string()
        let records = try fields.prefixedSlice(UInt64.self)
        guard size <= UInt64(Self.largestChunk) else {
            throw WaymarkError(.badData, "\(name): the chunk at byte \(start) declares \(size) bytes uncompressed, over the "
                               + "limit of \(Self.largestChunk >> 20) MiB")
        }
        chunk.removeAll(keepingCapacity: true)
        chunkOffset = 0
        guard size > 0 else { return }
        guard !records.isEmpty else {
            throw WaymarkError(.badData, "\(name): the chunk at byte \(start) declares \(size) bytes but holds none")
        }
        switch compression {
        case "":
            chunk.append(contentsOf: records)
        case "zstd":
            chunk = [UInt8](repeating: 0, count: Int(size))
            let written = chunk.withUnsafeMutableBytes { ZSTD_decompress($0.baseAddress, $0.count, records.baseAddress, records.count) }
            guard ZSTD_isError(written) == 0, written == Int(size) else {
                throw WaymarkError(.badData, "\(name): the zstd chunk at byte \(start) does not decompress to the "
                                   + "\(size) bytes it declares" + (ZSTD_isError(written) != 0 ? " (\(String(cString: ZSTD_getErrorName(written))))" : ""))
            }
        case "lz4":
            chunk = [UInt8](repeating: 0, count: Int(size))
            try decompressLZ4Frame(records, into: &chunk, at: start)
        default:
            throw WaymarkError(.badData, "\(name): the chunk at byte \(start) is compressed as '\(compression)', which "
                               + "Waymark does not read (MCAP's are zstd and lz4)")
        }
    }

    private func decompressLZ4Frame(_ source: UnsafeRawBufferPointer, into target: inout [UInt8], at start: Int)
        throws(WaymarkError)
    {
        var context: OpaquePointer?
        guard LZ4F_isError(LZ4F_createDecompressionContext(&context, UInt32(LZ4F_VERSION))) == 0, let context else {
            throw WaymarkError(.internal, "LZ4 could not make a decompression context")
        }
        defer { LZ4F_freeDecompressionContext(context) }
        var read = 0, written = 0, hint = 1
        while hint != 0 {
            var sourceLeft = source.count - read, targetLeft = target.count - written
            hint = target.withUnsafeMutableBytes { out in
                LZ4F_decompress(context, out.baseAddress! + written, &targetLeft, source.baseAddress! + read, &sourceLeft, nil)
            }
            read += sourceLeft
            written += targetLeft
            guard LZ4F_isError(hint) == 0 else {
                throw WaymarkError(.badData, "\(name): the lz4 chunk at byte \(start) is damaged (\(String(cString: LZ4F_getErrorName(hint))))")
            }
            guard hint == 0 || (sourceLeft > 0 || targetLeft > 0) && read < source.count else {
                throw WaymarkError(.badData, "\(name): the lz4 chunk at byte \(start) ends before its frame does, or holds "
                                   + "more than the \(target.count) bytes it declares")
            }
        }
        guard written == target.count else {
            throw WaymarkError(.badData, "\(name): the lz4 chunk at byte \(start) decompresses to \(written) bytes, not the "
                               + "\(target.count) it declares")
        }
    }
}
