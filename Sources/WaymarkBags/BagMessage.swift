import WaymarkCore

/// One recorded message: its topic, its type (`sensor_msgs/msg/Image`), when the recorder logged
/// it (nanoseconds since the epoch), and its serialized bytes (CDR for ROS 2).
public struct BagMessage: Sendable {
    public var topic: String
    public var type: String
    public var logTime: Int64
    public var data: [UInt8]

    public init(topic: String, type: String, logTime: Int64, data: [UInt8]) {
        self.topic = topic
        self.type = type
        self.logTime = logTime
        self.data = data
    }
}

/// A topic of a bag, with what a read of its messages found.
public struct BagTopic: Sendable, Equatable {
    public var name: String
    public var type: String
    /// `cdr` for ROS 2.
    public var serializationFormat: String
    public var messageCount: Int
    /// The first and last messages' log times, nanoseconds; nil without messages.
    public var firstLogTime: Int64?
    public var lastLogTime: Int64?

    public init(name: String, type: String, serializationFormat: String, messageCount: Int = 0,
                firstLogTime: Int64? = nil, lastLogTime: Int64? = nil) {
        self.name = name
        self.type = type
        self.serializationFormat = serializationFormat
        self.messageCount = messageCount
        self.firstLogTime = firstLogTime
        self.lastLogTime = lastLogTime
    }

    /// Messages a second between the first and the last; nil for fewer than two.
    public var rate: Double? {
        guard messageCount >= 2, let first = firstLogTime, let last = lastLogTime, last > first else { return nil }
        return Double(messageCount - 1) / (Double(last - first) / 1e9)
    }

    mutating func count(_ logTime: Int64) {
        messageCount += 1
        firstLogTime = min(firstLogTime ?? logTime, logTime)
        lastLogTime = max(lastLogTime ?? logTime, logTime)
    }
}

/// Which messages a read copies whole; the others come with their first `BagMessage.headBytes`
/// bytes only (enough for an image's header and description, not its pixels).
public typealias BagMessageFilter = @Sendable (_ topic: String, _ type: String) -> Bool

extension BagMessage {
    public static let headBytes = 65_536
}

/// Reads one storage file's messages in the order they were stored.
protocol BagStorageReader: AnyObject {
    /// The next message, or nil at the end of what could be read; `truncation` then says why
    /// the rest could not be. Messages `whole` refuses carry only their head.
    func next(whole: BagMessageFilter) throws(WaymarkError) -> BagMessage?
    /// Why reading stopped before the storage's own end (a recording cut off); nil otherwise.
    var truncation: String? { get }
    /// The topics the storage declares (so far, for one read as it goes), without counts.
    var topics: [BagTopic] { get }
}
