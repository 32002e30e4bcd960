import Foundation
import TestData
import Testing
import TestSupport
import Waymark
import WaymarkRecords

/// `waymark process BAG` against `waymark process` on the TUM-layout folder the bag was written
/// from (by rosbags, Datasets/write-ros-bag.py): the same records, frame for frame.
@Suite(.enabled(if: BagFixtures.available)) struct BagCLITests {
    /// The records, and those after the header as printed.
    static func process(_ arguments: [String], in scratch: Scratch, name: String) throws -> (records: ProcessOutput, body: [String]) {
        let output = scratch.path(name + ".jsonl")
        let result = try CLI.run(["process"] + arguments + ["--output", output, "--quiet"])
        #expect(result.status == 0, "\(result.stderr)")
        let text = try String(contentsOfFile: output, encoding: .utf8)
        return (try ProcessOutput(text), Array(text.split(separator: "\n").dropFirst().map(String.init)))
    }

    /// The bag's depth is TUM's 1/5000 m, not REP 118's millimetres, hence --depth-scale.
    static func expectSameRecords(bag: [String], folder: [String], frames: Int, in scratch: Scratch) throws {
        let fromBag = try process(bag + ["--depth-scale", "0.0002"], in: scratch, name: "bag")
        let fromFolder = try process(folder, in: scratch, name: "folder")
        let bagSource = fromBag.records.header.source, folderSource = fromFolder.records.header.source
        #expect(bagSource.kind == "ros2_bag" && bagSource.poses == "topic")
        #expect(bagSource.gravity == folderSource.gravity && bagSource.intrinsics == folderSource.intrinsics)
        #expect(bagSource.frameCount == frames && folderSource.frameCount == frames)
        #expect(fromBag.body.count == fromFolder.body.count)
        for (k, (a, b)) in zip(fromBag.body, fromFolder.body).enumerated() where a != b {
            Issue.record("record \(k + 1) differs:\n\(a.prefix(400))\n\(b.prefix(400))")
            break
        }
        let bagTimes = fromBag.records.frames.map(\.timestamp), folderTimes = fromFolder.records.frames.map(\.timestamp)
        #expect(bagTimes.count == frames && zip(bagTimes, folderTimes).allSatisfy { abs($0 - $1) < 1e-6 })
    }

    @Test func theTUMExcerptAsABagGivesTheFoldersRecords() throws {
        let scratch = try Scratch()
        let folder = try #require(SharedDatasets.path(BagFixtures.tum))
        for (kind, colour) in [("mcap", "/camera/color/image_raw"), ("sqlite3", "/camera/color/image_raw/compressed")] {
            let bag = try #require(BagFixtures.bags[kind])
            try Self.expectSameRecords(bag: [bag, "--color-topic", colour], folder: [folder, "--intrinsics", BagFixtures.intrinsics],
                                       frames: 32, in: scratch)
        }
    }

    @Test(.enabled(if: Walkthrough.debianPosterFolder != nil)) func theWalkThroughAsABagGivesTheFoldersRecords() throws {
        let scratch = try Scratch()
        let walk = try Walkthrough(posterFolder: try #require(Walkthrough.debianPosterFolder), width: 192, height: 144,
                                   framesPerSecond: 2)
        let folder = scratch.path("walk")
        try WalkthroughWriter.write(walk, to: URL(fileURLWithPath: folder))
        for storage in [["--storage", "mcap", "--chunks", "lz4"], ["--storage", "sqlite3"]] {
            let bag = scratch.path("walk-\(storage.last!)")
            try BagFixtures.write(bag, storage, from: folder)
            try Self.expectSameRecords(bag: [bag, "--color-topic", "/camera/color/image_raw"], folder: [folder],
                                       frames: walk.frames.count, in: scratch)
        }
    }

    /// A recording cut off: the frames written are processed, the summary notes the cut.
    @Test func aCutOffBagGivesItsFramesAndSaysSo() throws {
        let scratch = try Scratch()
        let full = try #require(BagFixtures.bags["mcap"])
        let size = try FileManager.default.attributesOfItem(atPath: BagFixtures.storageFile(of: full))[.size] as! Int
        let bag = scratch.path("cut")
        try BagFixtures.write(bag, ["--storage", "mcap", "--truncate", "\(size * 6 / 10)"])
        let output = scratch.path("cut.jsonl")
        let result = try CLI.run(["process", bag, "--color-topic", "/camera/color/image_raw", "--depth-scale", "0.0002",
                                  "--output", output])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderr.contains("the recording was cut off"), "\(result.stderr)")
        let records = try CLI.processOutput(output)
        #expect(records.frames.count > 5 && records.frames.count < 32, "\(records.frames.count) frames")
        #expect(records.summary?.inputNotes?.contains { $0.contains("cut off") } == true)
    }

    @Test func aTopicThatIsNotThereOrAmbiguousIsAUsageError() throws {
        let bag = try #require(BagFixtures.bags["mcap"])
        let ambiguous = try CLI.run(["process", bag, "--quiet"])
        #expect(ambiguous.status == 64 && ambiguous.stderr.contains("2 colour image topics")
                && ambiguous.stderr.contains("--color-topic"), "\(ambiguous.stderr)")
        let missing = try CLI.run(["process", bag, "--color-topic", "/camera/pose", "--quiet"])
        #expect(missing.status == 64 && missing.stderr.contains("no colour image topic /camera/pose"), "\(missing.stderr)")
        let notABag = try CLI.run(["process", try #require(SharedDatasets.path(BagFixtures.tum)), "--intrinsics",
                                   BagFixtures.intrinsics, "--imu-topic", "/imu", "--quiet"])
        #expect(notABag.status == 64 && notABag.stderr.contains("are for ROS 2 bags"), "\(notABag.stderr)")
        let scratch = try Scratch()
        let rosOne = scratch.path("old.bag")
        try Data("#ROSBAG V2.0\n".utf8).write(to: URL(fileURLWithPath: rosOne))
        let old = try CLI.run(["process", rosOne, "--quiet"])
        #expect(old.status == 65 && old.stderr.contains("ROS 1 bag") && old.stderr.contains("rosbags-convert"), "\(old.stderr)")
    }

    /// `bag info` counts each topic's messages and times them, in both storages.
    @Test func bagInfoListsTheTopicsWithTheirCountsAndRates() throws {
        let colour = try BagFixtures.stamps("rgb.txt"), accelerometer = try BagFixtures.stamps("accelerometer.txt")
        for kind in ["mcap", "sqlite3"] {
            let result = try CLI.run(["bag", "info", try #require(BagFixtures.bags[kind])])
            #expect(result.status == 0, "\(result.stderr)")
            let lines = result.stdout.split(separator: "\n").map(String.init)
            let topics = try lines.dropLast().map { try RecordCoding.records(BagTopicRecord.self, in: $0)[0] }
            let bag = try RecordCoding.records(BagSummaryRecord.self, in: lines.last!)[0]
            #expect(bag.storage == kind && bag.truncation == nil && bag.messages == topics.reduce(0) { $0 + $1.messages })
            let image = try #require(topics.first { $0.topic == "/camera/color/image_raw" })
            #expect(image.messageType == "sensor_msgs/msg/Image" && image.messages == colour.count)
            let seconds = Double(colour.last! - colour.first!) / 1e9
            #expect(abs(image.rate! - Double(colour.count - 1) / seconds) < 1e-9)
            #expect(topics.first { $0.topic == "/imu" }?.messages == accelerometer.count)
            #expect(topics.count == 8)
        }
    }
}
