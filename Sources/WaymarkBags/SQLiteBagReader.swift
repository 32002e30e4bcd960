import CSQLite
import WaymarkCore

/// Reads a ROS 2 SQLite 3 bag file (rosbag2_storage_default_plugins' schema: `topics` and
/// `messages`), read-only, its messages as stored (the order the recorder took them in, as
/// MCAP's are read; sorting by time would make SQLite sort every message's bytes before the
/// first). A recorder killed mid-recording leaves a consistent file of the messages it
/// committed; a file damaged past that point reads up to where SQLite finds the damage
/// (`truncation` says so), or, when SQLite cannot read its schema, is refused as bad data.
final class SQLiteBagReader: BagStorageReader {
    private let name: String
    private var database: OpaquePointer?
    private var statement: OpaquePointer?
    private var topicOfID: [Int64: BagTopic] = [:]
    private(set) var topics: [BagTopic] = []
    private(set) var truncation: String?

    init(path: String) throws(WaymarkError) {
        name = path.split(separator: "/").last.map(String.init) ?? path
        guard sqlite3_open_v2(path, &database, SQLITE_OPEN_READONLY | SQLITE_OPEN_NOMUTEX, nil) == SQLITE_OK else {
            let reason = database.map { String(cString: sqlite3_errmsg($0)) } ?? "out of memory"
            sqlite3_close(database)
            database = nil
            throw WaymarkError(.missingInput, "cannot open \(path) as SQLite: \(reason)")
        }
        do {
            let topicRows = try prepare("SELECT id, name, type, serialization_format FROM topics ORDER BY id")
            defer { sqlite3_finalize(topicRows) }
            while try step(topicRows) {
                let topic = BagTopic(name: text(topicRows, 1), type: text(topicRows, 2), serializationFormat: text(topicRows, 3))
                topicOfID[sqlite3_column_int64(topicRows, 0)] = topic
                topics.append(topic)
            }
            statement = try prepare("SELECT topic_id, timestamp, data FROM messages ORDER BY id")
        } catch {
            sqlite3_close(database)
            database = nil
            throw error
        }
    }

    deinit {
        sqlite3_finalize(statement)
        sqlite3_close(database)
    }

    func next(whole: BagMessageFilter) throws(WaymarkError) -> BagMessage? {
        guard let statement, truncation == nil else { return nil }
        do {
            guard try step(statement) else { return nil }
        } catch {
            // What SQLite reads of a damaged file's messages is kept; the rest is not there.
            truncation = error.message
            return nil
        }
        let id = sqlite3_column_int64(statement, 0)
        guard let topic = topicOfID[id] else {
            throw WaymarkError(.badData, "\(name): a message names topic \(id), which its topics table does not hold")
        }
        let size = Int(sqlite3_column_bytes(statement, 2))
        let count = whole(topic.name, topic.type) ? size : min(size, BagMessage.headBytes)
        let data = count > 0 ? [UInt8](UnsafeRawBufferPointer(start: sqlite3_column_blob(statement, 2), count: count)) : []
        return BagMessage(topic: topic.name, type: topic.type, logTime: sqlite3_column_int64(statement, 1), data: data)
    }

    private func prepare(_ sql: String) throws(WaymarkError) -> OpaquePointer? {
        var prepared: OpaquePointer?
        guard sqlite3_prepare_v2(database, sql, -1, &prepared, nil) == SQLITE_OK else {
            throw WaymarkError(.badData, "\(name) is not a readable ROS 2 SQLite bag: \(String(cString: sqlite3_errmsg(database)))")
        }
        return prepared
    }

    /// True for a row, false at the end.
    private func step(_ statement: OpaquePointer?) throws(WaymarkError) -> Bool {
        switch sqlite3_step(statement) {
        case SQLITE_ROW: return true
        case SQLITE_DONE: return false
        default: throw WaymarkError(.badData, "\(name): SQLite stopped reading it: \(String(cString: sqlite3_errmsg(database)))")
        }
    }

    private func text(_ statement: OpaquePointer?, _ column: Int32) -> String {
        sqlite3_column_text(statement, column).map { String(cString: $0) } ?? ""
    }
}
