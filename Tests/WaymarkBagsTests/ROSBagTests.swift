import Foundation
import TestData
import Testing
import WaymarkBags
import WaymarkCore

/// The bag readers against bags rosbags wrote of the TUM excerpt: every message there, on its
/// topic, at its timestamp to the nanosecond, its bytes as written.
@Suite(.enabled(if: BagFixtures.available)) struct ROSBagTests {
    static func readAll(_ path: String) throws -> (bag: ROSBag, messages: [BagMessage]) {
        let bag = try ROSBag(path: path)
        var messages: [BagMessage] = []
        while let message = try bag.next() { messages.append(message) }
        return (bag, messages)
    }

    @Test(arguments: ["mcap", "mcap-lz4", "mcap-plain", "sqlite3"])
    func everyMessageIsReadOnItsTopicAtItsTime(kind: String) throws {
        let path = try #require(BagFixtures.bags[kind], "the \(kind) fixture was not written")
        let (bag, messages) = try Self.readAll(path)
        #expect(bag.storage == (kind == "sqlite3" ? .sqlite3 : .mcap))
        #expect(bag.truncation == nil)
        let colour = try BagFixtures.stamps("rgb.txt"), depth = try BagFixtures.stamps("depth.txt")
        let accelerometer = try BagFixtures.stamps("accelerometer.txt"), poses = try BagFixtures.stamps("groundtruth.txt")
        func times(_ topic: String) -> [Int64] { messages.filter { $0.topic == topic }.map(\.logTime).sorted() }
        #expect(times("/camera/color/image_raw") == colour)
        #expect(times("/camera/color/image_raw/compressed") == colour)
        #expect(times("/camera/color/camera_info") == colour)
        #expect(times("/camera/depth/image_raw") == depth)
        #expect(times("/imu") == accelerometer.sorted())
        #expect(times("/camera/pose") == poses)
        #expect(times("/tf") == poses)
        #expect(times("/tf_static").count == 1)
        #expect(messages.count == 3 * colour.count + depth.count + accelerometer.count + 2 * poses.count + 1)
        #expect(Set(bag.topics.map(\.name)).count == 8)
        #expect(bag.topics.first { $0.name == "/camera/depth/image_raw" }?.type == "sensor_msgs/msg/Image")

        // A CompressedImage's last field is its data: the PNG file's bytes, exactly.
        let first = try #require(messages.first { $0.topic == "/camera/color/image_raw/compressed" })
        let name = String(format: "%.6f", Double(first.logTime) / 1e9)
        let png = try [UInt8](Data(contentsOf: URL(fileURLWithPath: SharedDatasets.path("\(BagFixtures.tum)/rgb/\(name).png")!)))
        #expect(first.data.count > png.count && Array(first.data.suffix(png.count)) == png)
    }

    @Test func aSummaryCountsAndTimesEachTopic() throws {
        let path = try #require(BagFixtures.bags["mcap"])
        let summary = try ROSBag.summary(of: path)
        let colour = try BagFixtures.stamps("rgb.txt")
        let topic = try #require(summary.topics.first { $0.name == "/camera/color/image_raw" })
        #expect(topic.messageCount == colour.count)
        #expect(topic.firstLogTime == colour.first && topic.lastLogTime == colour.last)
        let expectedRate = Double(colour.count - 1) / (Double(colour.last! - colour.first!) / 1e9)
        #expect(abs(topic.rate! - expectedRate) < 1e-9)
    }

    /// A recording killed mid-write, its MCAP file cut off and no metadata.yaml written: every
    /// whole record before the cut is read, the bag says it was cut off, and nothing throws.
    @Test func aBagCutOffKeepsTheMessagesBeforeTheCut() throws {
        let scratch = try Scratch()
        let fullBag = try #require(BagFixtures.bags["mcap"])
        let full = try Self.readAll(fullBag).messages
        let size = try FileManager.default.attributesOfItem(atPath: BagFixtures.storageFile(of: fullBag))[.size] as! Int
        let bag = scratch.path("cut")
        try BagFixtures.write(bag, ["--storage", "mcap", "--truncate", "\(size * 6 / 10)"])
        let (cut, messages) = try Self.readAll(bag)
        #expect(messages.count > 0 && messages.count < full.count, "\(messages.count) of \(full.count)")
        // 60 % of the bytes lies within the images' 1.2 s (the IMU's and poses' 30 s are small).
        #expect(messages.contains { $0.topic == "/camera/color/image_raw" })
        #expect(cut.truncation?.contains("cut off") == true)
        #expect(zip(messages, full).allSatisfy { $0.topic == $1.topic && $0.logTime == $1.logTime && $0.data == $1.data })
    }

    /// SQLite: a bag without metadata.yaml (its recorder killed) reads whole; a file damaged
    /// so that SQLite cannot read its schema is bad data, said at once.
    @Test func aSQLiteBagWithoutMetadataReadsAndADamagedOneIsRefused() throws {
        let scratch = try Scratch()
        let original = try #require(BagFixtures.bags["sqlite3"])
        let copy = scratch.path("copy")
        try FileManager.default.createDirectory(atPath: copy, withIntermediateDirectories: true)
        let file = try BagFixtures.storageFile(of: original)
        try FileManager.default.copyItem(atPath: file, toPath: copy + "/bag_0.db3")
        #expect(try Self.readAll(copy).messages.count == Self.readAll(original).messages.count)
        let size = try FileManager.default.attributesOfItem(atPath: file)[.size] as! Int
        let damaged = scratch.path("damaged")
        try BagFixtures.write(damaged, ["--storage", "sqlite3", "--truncate", "\(size * 6 / 10)"])
        let error = #expect(throws: WaymarkError.self) { _ = try Self.readAll(damaged) }
        #expect(error?.kind == .badData && error?.message.contains("malformed") == true, "\(String(describing: error))")
    }

    @Test func anUnknownChunkCompressionIsNamed() throws {
        let scratch = try Scratch()
        var bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: BagFixtures.storageFile(of: try #require(BagFixtures.bags["mcap"])))))
        let zstd: [UInt8] = [4, 0, 0, 0] + Array("zstd".utf8)
        let at = try #require((0..<(bytes.count - zstd.count)).first { bytes[$0..<($0 + zstd.count)].elementsEqual(zstd) })
        bytes.replaceSubrange((at + 4)..<(at + 8), with: Array("brot".utf8))
        let file = scratch.path("odd.mcap")
        try Data(bytes).write(to: URL(fileURLWithPath: file))
        let bag = try ROSBag(path: file)
        let error = #expect(throws: WaymarkError.self) { while try bag.next() != nil {} }
        #expect(error?.kind == .badData && error?.message.contains("'brot'") == true, "\(String(describing: error))")
    }

    @Test func whatIsNotABagSaysSo() throws {
        let scratch = try Scratch()
        #expect(throws: WaymarkError(.missingInput, "no bag at \(scratch.path("none"))")) { try ROSBag(path: scratch.path("none")) }
        let text = scratch.path("notes.mcap")
        try Data("not a bag at all".utf8).write(to: URL(fileURLWithPath: text))
        #expect { try ROSBag(path: text) } throws: { ($0 as? WaymarkError)?.kind == .badData }
        let empty = scratch.path("empty")
        try FileManager.default.createDirectory(atPath: empty, withIntermediateDirectories: true)
        #expect { try ROSBag(path: empty) } throws: { ($0 as? WaymarkError)?.kind == .missingInput }
    }
}
