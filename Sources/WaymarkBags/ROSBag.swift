import Foundation
import WaymarkCore

/// A ROS 2 bag as `ros2 bag record` leaves it: a folder with `metadata.yaml` and its storage
/// files (MCAP or SQLite 3), or one storage file alone. Reading gives the messages of each
/// file in turn, as stored; a recording cut off mid-write gives what was written
/// (`truncation` says where it stopped).
public final class ROSBag {
    public enum Storage: String, Sendable {
        case mcap, sqlite3
    }

    public let path: String
    public let storage: Storage
    /// The storage files, in recording order.
    public let files: [String]
    private var fileIndex = 0
    private var reader: (any BagStorageReader)?
    private var declared: [BagTopic] = []
    public private(set) var truncation: String?

    public init(path: String) throws(WaymarkError) {
        self.path = path
        var isFolder: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isFolder) else {
            throw WaymarkError(.missingInput, "no bag at \(path)")
        }
        if isFolder.boolValue {
            (storage, files) = try Self.folderContents(path)
        } else {
            storage = try Self.storage(ofFile: path)
            files = [path]
        }
    }

    /// The topics the bag's storage declares (those of the files opened so far, when reading).
    public var topics: [BagTopic] { Self.merging(reader?.topics ?? [], into: declared) }

    /// `topics` after `more`'s new names.
    private static func merging(_ more: [BagTopic], into topics: [BagTopic]) -> [BagTopic] {
        topics + more.filter { topic in !topics.contains { $0.name == topic.name } }
    }

    /// The next message, or nil when every file is read (or one was cut off). Messages `whole`
    /// refuses carry only their first `BagMessage.headBytes` bytes.
    public func next(whole: BagMessageFilter = { _, _ in true }) throws(WaymarkError) -> BagMessage? {
        while truncation == nil {
            if reader == nil {
                guard fileIndex < files.count else { return nil }
                reader = try open(files[fileIndex])
                fileIndex += 1
            }
            if let message = try reader!.next(whole: whole) { return message }
            truncation = reader!.truncation
            declared = Self.merging(reader!.topics, into: declared)
            reader = nil
        }
        return nil
    }

    /// Every topic with its messages counted and timed, reading the whole bag.
    public static func summary(of path: String) throws(WaymarkError) -> (bag: ROSBag, topics: [BagTopic]) {
        let bag = try ROSBag(path: path)
        var counted: [String: BagTopic] = [:]
        while let message = try bag.next(whole: { _, _ in false }) {
            if counted[message.topic] == nil {
                counted[message.topic] = bag.topics.first { $0.name == message.topic }
                    ?? BagTopic(name: message.topic, type: message.type, serializationFormat: "cdr")
            }
            counted[message.topic]!.count(message.logTime)
        }
        return (bag, bag.topics.map { counted[$0.name] ?? $0 })
    }

    private func open(_ file: String) throws(WaymarkError) -> any BagStorageReader {
        _ = try regularFileSize(file)  // a FIFO or a device is refused before it is mapped or opened
        return switch storage {
        case .mcap: try MCAPReader(path: file)
        case .sqlite3: try SQLiteBagReader(path: file)
        }
    }

    private static let sqliteMagic = Array("SQLite format 3\0".utf8)

    private static func storage(ofFile path: String) throws(WaymarkError) -> Storage {
        _ = try regularFileSize(path)  // a FIFO or a device is refused before a read can block
        guard let handle = FileHandle(forReadingAtPath: path) else { throw WaymarkError(.missingInput, "cannot read \(path)") }
        defer { try? handle.close() }
        let start = [UInt8]((try? handle.read(upToCount: 16)) ?? Data())
        if start.starts(with: MCAPReader.magic) { return .mcap }
        if start.starts(with: sqliteMagic) { return .sqlite3 }
        throw WaymarkError(.badData, "\(path) is neither an MCAP nor a SQLite 3 file, the two storages of ROS 2 bags")
    }

    /// The storage and files a bag folder's metadata.yaml names; without one, its .mcap or .db3 files.
    private static func folderContents(_ folder: String) throws(WaymarkError) -> (Storage, [String]) {
        let url = URL(fileURLWithPath: folder)
        let metadataURL = url.appendingPathComponent("metadata.yaml")
        if let text = try? String(contentsOf: metadataURL, encoding: .utf8) {
            let metadata = BagMetadata(yaml: text)
            if let mode = metadata.compressionMode, !mode.isEmpty, mode.lowercased() != "none" {
                throw WaymarkError(.badData, "\(folder): its files are compressed whole (compression_mode \(mode)), which Waymark "
                                   + "does not read; `ros2 bag decompress` or recording with MCAP's chunk compression avoids it")
            }
            guard !metadata.files.isEmpty else {
                throw WaymarkError(.badData, "\(metadataURL.path) lists no relative_file_paths")
            }
            let files = metadata.files.map { url.appendingPathComponent($0).path }
            for file in files where !FileManager.default.fileExists(atPath: file) {
                throw WaymarkError(.missingInput, "\(metadataURL.path) lists \(file), which is not there")
            }
            if let named = metadata.storage.flatMap(Storage.init(rawValue:)) { return (named, files) }
            return (try Self.storage(ofFile: files[0]), files)
        }
        let names = ((try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []).sorted()
        for (ending, storage) in [(".mcap", Storage.mcap), (".db3", Storage.sqlite3)] {
            let files = names.filter { $0.hasSuffix(ending) }
            if !files.isEmpty { return (storage, files.map { url.appendingPathComponent($0).path }) }
        }
        throw WaymarkError(.missingInput, "\(folder) holds no metadata.yaml and no .mcap or .db3 file: not a ROS 2 bag")
    }
}

/// What Waymark reads of a bag's metadata.yaml: its storage, files and compression. A small
/// reader of that one file's layout, not of YAML at large.
struct BagMetadata {
    var storage: String?
    var files: [String] = []
    var compressionMode: String?

    init(yaml: String) {
        var inFiles = false, filesIndent = 0
        for line in yaml.split(separator: "\n", omittingEmptySubsequences: false) {
            let indent = line.prefix { $0 == " " }.count
            let content = line.dropFirst(indent).trimmingCharacters(in: .whitespaces)
            if inFiles {
                if content.hasPrefix("- "), indent >= filesIndent {
                    files.append(Self.unquoted(content.dropFirst(2)))
                    continue
                }
                inFiles = false
            }
            if let value = Self.value(of: "relative_file_paths", in: content) {
                inFiles = value.isEmpty
                filesIndent = indent
            } else if let value = Self.value(of: "storage_identifier", in: content) {
                storage = value
            } else if let value = Self.value(of: "compression_mode", in: content) {
                compressionMode = value
            }
        }
    }

    private static func value(of key: String, in content: String) -> String? {
        guard content.hasPrefix(key + ":") else { return nil }
        return unquoted(content.dropFirst(key.count + 1))
    }

    private static func unquoted(_ text: Substring) -> String {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        guard trimmed.count >= 2, let first = trimmed.first, first == trimmed.last, first == "'" || first == "\"" else { return trimmed }
        return String(trimmed.dropFirst().dropLast())
    }
}
