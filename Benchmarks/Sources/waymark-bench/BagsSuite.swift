import Foundation
import TestData
import Waymark

/// `waymark-bench bags`: how fast frames come out of ROS 2 bags (the TUM excerpt written by
/// rosbags in each storage) against decoding the same PNG files from the TUM folder, Waymark's
/// sources and Python's usual ways side by side (`Benchmarks/baselines/bag_baseline.py`:
/// rosbags' reader with numpy, OpenCV's imread), one thread each.
struct BagsSuite {
    var baseline: Baseline?
    var scratch: URL
    var figures: Figures

    static let repeats = 5

    struct Answer: Decodable {
        struct Method: Decodable {
            var frames: Int
            var ms: [Double]
        }
        var methods: [String: Method]
    }

    func run() throws {
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: scratch) }
        guard BagFixtures.available, let folder = SharedDatasets.path(BagFixtures.tum) else {
            throw BenchError("the bags suite needs .build/bag-python (make bag-setup) and ../shared/datasets/\(BagFixtures.tum)")
        }
        var bags: [(name: String, path: String, colour: String)] = []
        for (name, options, colour) in [
            ("MCAP, zstd chunks, raw rgb8", ["--storage", "mcap"], "/camera/color/image_raw"),
            ("MCAP, zstd chunks, PNG colour", ["--storage", "mcap"], "/camera/color/image_raw/compressed"),
            ("MCAP, lz4 chunks, raw rgb8", ["--storage", "mcap", "--chunks", "lz4"], "/camera/color/image_raw"),
            ("SQLite 3, raw rgb8", ["--storage", "sqlite3"], "/camera/color/image_raw"),
        ] {
            let path = scratch.appendingPathComponent("bag-\(bags.count)").path
            if !FileManager.default.fileExists(atPath: path) { try BagFixtures.write(path, options) }
            bags.append((name, path, colour))
        }
        print("## Bags: frames read from a ROS 2 bag and from PNG files\n")
        print("The TUM fr1/xyz excerpt (640×480 colour and 16-bit depth, \(BagFixtures.tum)) written as bags by rosbags "
              + "(Datasets/write-ros-bag.py), and read as frames: colour and depth paired, decoded, ready for the session. "
              + "Each source opened and read to its end \(Self.repeats) times, one thread; the median pass. Opening a bag "
              + "reads it once for its stamps and small messages; that is in the pass.\n")
        print("| source | frames | ms a pass | ms a frame | frames/s | × the PNG folder's speed |")
        print("|---|---|---|---|---|---|")
        var options = FrameSourceOptions()
        options.depthScale = 0.0002
        func pass(_ open: () throws -> any FrameSource) throws -> (frames: Int, ms: Double) {
            var times: [Double] = [], frames = 0
            for _ in 0..<Self.repeats {
                let (count, ms) = try milliseconds { () throws -> Int in
                    let source = try open()
                    var count = 0
                    while let frame = try source.next() {
                        guard frame.error == nil, frame.color != nil, frame.depth != nil else { throw BenchError("frame \(count) did not read") }
                        count += 1
                    }
                    return count
                }
                (frames, times) = (count, times + [ms])
            }
            return (frames, Summary(times).median)
        }
        var folderOptions = FrameSourceOptions()
        folderOptions.intrinsics = try Intrinsics(parsing: BagFixtures.intrinsics)
        let png = try pass { try RGBDRecordingSource(path: folder, options: folderOptions) }
        var rows: [(String, Int, Double)] = [("Waymark: TUM folder, PNG colour and depth", png.frames, png.ms)]
        for bag in bags {
            options.bagTopics = BagTopicChoice(color: bag.colour)
            let read = try pass { try ROSBagSource(path: bag.path, options: options) }
            rows.append(("Waymark: \(bag.name)", read.frames, read.ms))
            figures.record("bags.read.\(Figures.slug(bag.name)).speed_vs_png_folder",
                           (Double(read.frames) / read.ms) / (Double(png.frames) / png.ms))
        }
        if let baseline {
            let pairs = try RGBDRecordingSource(path: folder, options: folderOptions).frames.map { [$0.colorPath!, $0.depthPath] }
            let answer = try baseline.run(task: ["bag": bags[0].path, "color_topic": bags[0].colour, "depth_topic": "/camera/depth/image_raw",
                                                 "pairs": pairs, "repeats": Self.repeats], as: Answer.self)
            for (name, label) in [("rosbags", "Python: rosbags + numpy, MCAP zstd, raw rgb8"), ("opencv-png", "Python: cv2.imread, the PNG pairs")] {
                if let method = answer.methods[name] { rows.append((label, method.frames, Summary(method.ms).median)) }
            }
        }
        let folderSpeed = Double(png.frames) / png.ms
        for (name, frames, ms) in rows {
            let speed = Double(frames) / ms
            print("| \(name) | \(frames) | \(format(ms, 1)) | \(format(ms / Double(frames), 2)) | \(format(speed * 1000, 1)) | "
                  + "\(format(speed / folderSpeed, 2)) |")
        }
        print("")
    }
}
