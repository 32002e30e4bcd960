import Waymark
import WaymarkRecords

enum BagInfoCommand: Command {
    static let name = "bag info"
    static let help = """
        Usage: waymark bag info BAG

        Lists a ROS 2 bag's topics, as `waymark process BAG` sees them: BAG is a folder with
        metadata.yaml and its .mcap or .db3 files, or one such file. Reads every message (MCAP's
        zstd and lz4 chunks decompressed), so the counts are what is there, also in a bag whose
        recording was cut off. Prints one JSON line per topic {"schema": "waymark.bag-info/1",
        "type": "topic", "topic", "messageType", "serializationFormat", "messages", "rate"
        (messages a second), "firstTime", "lastTime" (log times, seconds)}, then one for the bag
        {"type": "bag", "path", "storage" (mcap or sqlite3), "files", "messages", "duration",
        "truncation" (where a cut-off recording stops)}.

        Options:
          --help   this text
        """
    static let valueOptions: Set<String> = []
    static let flagOptions: Set<String> = ["--help"]

    static func run(_ arguments: Arguments) throws(WaymarkError) -> ExitCode {
        guard arguments.positionals.count == 1 else { throw WaymarkError(.usage, "bag info needs exactly one BAG; see --help") }
        let (bag, topics) = try ROSBag.summary(of: arguments.positionals[0])
        let sink = try RecordSink(path: nil)
        for topic in topics { try sink.write(BagTopicRecord(topic)) }
        try sink.write(BagSummaryRecord(bag: bag, topics: topics))
        if let truncation = bag.truncation { Console.warning("the recording was cut off: \(truncation)") }
        return .ok
    }
}
