import Foundation
import TestData
import Testing
import WaymarkCore
import WaymarkInput
import WaymarkVision

@Suite struct RGBDRecordingSourceTests {
    static let tum = "tum_fr1_xyz_excerpt"

    /// The TUM excerpt as an RGB-D recording, with the Kinect's default intrinsics.
    static func openExcerpt() throws -> (folder: String, options: FrameSourceOptions, source: RGBDRecordingSource) {
        let folder = try #require(SharedDatasets.path(tum))
        var options = FrameSourceOptions()
        options.intrinsics = Intrinsics(fx: 525, fy: 525, cx: 320, cy: 240)
        return (folder, options, try RGBDRecordingSource(path: folder, options: options))
    }

    /// The TUM excerpt (fr1/xyz, 30 Hz colour and depth, 100 Hz motion capture): each frame's
    /// colour image is within 20 ms of its depth image, each colour image used once; the depth
    /// images left out are said so (the two cameras drift apart, so some have no partner: on
    /// this excerpt 5 of 37, as associate.py finds); each frame's pose is motion capture's
    /// sample nearest to it.
    @Test(.enabled(if: SharedDatasets.has("\(tum)/depth.txt", "\(tum)/rgb.txt", "\(tum)/groundtruth.txt")))
    func aTUMRecordingPairsColourDepthAndPosesByTime() throws {
        let (folder, options, source) = try Self.openExcerpt()
        let depthCount = try TextRows.read(folder + "/depth.txt").count
        #expect(source.info.kind == "tum_rgbd" && source.info.hasColor && source.info.hasDepth)
        #expect(source.info.recordedPoses == .groundtruth && source.info.depthScale == 1.0 / 5000)
        #expect(source.frames.count >= depthCount * 3 / 4 && source.frames.count < depthCount)
        let colorCount = try TextRows.read(folder + "/rgb.txt").count
        #expect(source.info.notes == [
            "\(depthCount - source.frames.count) of \(depthCount) depth images have no colour image within 20 ms and are left out",
            "\(colorCount - source.frames.count) of \(colorCount) colour images have no depth image within 20 ms and are left out",
        ])
        #expect(source.info.imagesLeftOut == depthCount + colorCount - 2 * source.frames.count)
        let colorTimes = source.frames.map { Double(($0.colorPath! as NSString).lastPathComponent.dropLast(4))! }
        #expect(zip(colorTimes, source.frames).allSatisfy { abs($0 - $1.timestamp) < 0.02 })
        #expect(Set(colorTimes).count == colorTimes.count)
        #expect(zip(colorTimes, source.frames).allSatisfy { $0 == $1.colorTimestamp })
        #expect(abs(source.info.framesPerSecond - 30) < 2)
        let truth = try Trajectory(tumFile: folder + "/groundtruth.txt").samples
        for files in source.frames {
            let nearest = try #require(truth.min { abs($0.timestamp - files.timestamp) < abs($1.timestamp - files.timestamp) })
            #expect(files.cameraToWorld == nearest.pose)
        }
        let first = try #require(try source.next())
        #expect(first.error == nil && first.color?.channels == 3 && first.depth?.width == 640)
        #expect(first.recordedPose == source.frames[0].cameraToWorld && first.intrinsics == options.intrinsics)
        // Depth in metres with TUM's 1/5000: the desk and wall of fr1/xyz lie 0.5–3 m away.
        let depth = try #require(first.depth)
        let valid = depth.metres.filter { $0 > 0 }.sorted()
        #expect(valid[valid.count / 2] > 0.5 && valid[valid.count / 2] < 3)
    }

    /// A plain folder: colour and depth by file name; a depth image without colour is left out
    /// (and said so), a frame whose depth cannot be read carries its error and the next one comes.
    @Test func aPlainFolderPairsByNameAndReportsAFrameItCannotRead() throws {
        let scratch = try Scratch()
        let folder = scratch.url.path
        for sub in ["depth", "rgb"] { try FileManager.default.createDirectory(atPath: "\(folder)/\(sub)", withIntermediateDirectories: true) }
        let depth = [UInt16](repeating: 1500, count: 32 * 24)
        for name in ["000", "001", "003"] { try Raster.writeUInt16(depth, width: 32, height: 24, to: "\(folder)/depth/\(name).png") }
        try Data("not a png".utf8).write(to: URL(fileURLWithPath: "\(folder)/depth/002.png"))
        for name in ["000", "002", "003"] {
            try Image(width: 32, height: 24, channels: 3, pixels: [UInt8](repeating: 90, count: 32 * 24 * 3)).write(to: "\(folder)/rgb/\(name).png")
        }
        try Data("0 1 0 0 0 0 0 1\n0.1 2 0 0 0 0 0 1\n".utf8).write(to: URL(fileURLWithPath: "\(folder)/groundtruth.txt"))
        var options = FrameSourceOptions()
        options.framesPerSecond = 10
        options.intrinsics = Intrinsics(fx: 30, fy: 30, cx: 16, cy: 12)
        let source = try RGBDRecordingSource(path: folder, options: options)
        #expect(source.info.kind == "rgbd_folder" && source.info.depthScale == nil)
        #expect(source.frames.map(\.timestamp) == [0, 0.2, 0.3])
        #expect(source.info.notes.count == 1 && source.info.notes[0].contains("1 of 4 depth images"))
        #expect(source.info.imagesLeftOut == 1)
        var frames: [InputFrame] = []
        while let frame = try source.next() { frames.append(frame) }
        #expect(frames.map(\.index) == [0, 1, 2])
        #expect(frames[0].error == nil && abs((frames[0].depth?.metres.first ?? 0) - 1.5) < 1e-6 && frames[0].color != nil)
        #expect(frames[0].recordedPose?.translation == [1, 0, 0])
        #expect(frames[1].error != nil && frames[1].depth == nil && frames[1].recordedPose == nil)
        #expect(frames[2].error == nil && frames[2].recordedPose == nil)
    }

    @Test func aPoseFileThatPairsWithNoFrameIsRefused() throws {
        let scratch = try Scratch()
        let folder = scratch.url.path
        try FileManager.default.createDirectory(atPath: "\(folder)/depth", withIntermediateDirectories: true)
        try Raster.writeUInt16([UInt16](repeating: 1000, count: 16), width: 4, height: 4, to: "\(folder)/depth/a.png")
        try Data("50 0 0 0 0 0 0 1\n".utf8).write(to: URL(fileURLWithPath: scratch.path("poses.txt")))
        var options = FrameSourceOptions()
        options.posesFile = scratch.path("poses.txt")
        #expect { try RGBDRecordingSource(path: folder, options: options) } throws: {
            ($0 as? WaymarkError)?.kind == .badData && "\($0)".contains("no pose within 20 ms")
        }
        try Data("1 a.png\n1 b.png\n".utf8).write(to: URL(fileURLWithPath: "\(folder)/depth.txt"))
        #expect { try RGBDRecordingSource(path: folder, options: FrameSourceOptions()) } throws: {
            ($0 as? WaymarkError)?.kind == .badData && "\($0)".contains("appears twice")
        }
    }
}

@Suite struct TUMListTests {
    /// A TUM folder of 4×4 depth images named in `depth.txt` and `rgb.txt` as given.
    static func recording(depth: String, rgb: String) throws -> (Scratch, String) {
        let scratch = try Scratch()
        let folder = scratch.url.path
        for name in ["a", "b", "c"] {
            try Raster.writeUInt16([UInt16](repeating: 5000, count: 16), width: 4, height: 4, to: "\(folder)/\(name).png")
            try Image(width: 4, height: 4, channels: 3).write(to: "\(folder)/\(name).jpg")
        }
        try Data(depth.utf8).write(to: URL(fileURLWithPath: "\(folder)/depth.txt"))
        try Data(rgb.utf8).write(to: URL(fileURLWithPath: "\(folder)/rgb.txt"))
        return (scratch, folder)
    }

    @Test(arguments: ["nan", "1e308", "-inf"])
    func timestampsThatAreNoTimesAreRefused(_ bad: String) throws {
        let (scratch, folder) = try Self.recording(depth: "1 a.png\n\(bad) b.png\n", rgb: "1 a.jpg\n")
        #expect { try RGBDRecordingSource(path: folder, options: FrameSourceOptions()) } throws: {
            ($0 as? WaymarkError)?.kind == .badData && "\($0)".contains("depth.txt, line 2: timestamp") && "\($0)".contains("is not a time in seconds")
        }
        _ = scratch
    }

    /// Shuffled lists are taken in time order, and the notes say so; images of one stream
    /// without a partner in the other are counted.
    @Test func shuffledAndUnmatchedListsAreSaidOutLoud() throws {
        let (scratch, folder) = try Self.recording(depth: "3 c.png\n1 a.png\n2 b.png\n", rgb: "1 a.jpg\n")
        let source = try RGBDRecordingSource(path: folder, options: FrameSourceOptions())
        #expect(source.frames.map(\.timestamp) == [1])
        #expect(source.info.notes == [
            "depth.txt is not in time order; its images are taken in time order",
            "2 of 3 depth images have no colour image within 20 ms and are left out",
        ])
        #expect(source.info.imagesLeftOut == 2)
        _ = scratch
    }
}

@Suite struct FileFrameSourceTests {
    /// Opening by path asks each kind in turn: an RGB-D folder, an image folder, else a video.
    @Test func aPathOpensAsTheKindOfInputItIs() throws {
        let scratch = try Scratch()
        try FileManager.default.createDirectory(atPath: scratch.path("images"), withIntermediateDirectories: true)
        for (name, size) in [("a1.png", 16), ("a2.png", 16), ("a10.png", 16), ("b.png", 8)] {
            try Image(width: size, height: size, channels: 1, pixels: [UInt8](repeating: 7, count: size * size))
                .write(to: scratch.path("images/\(name)"))
        }
        var options = FrameSourceOptions()
        options.framesPerSecond = 4
        let source = try FrameSources.open(scratch.path("images"), options: options)
        #expect(source.info.kind == "image_folder" && source.info.frameCount == 4 && !source.info.hasDepth)
        var frames: [InputFrame] = []
        while let frame = try source.next() { frames.append(frame) }
        // In natural name order (a10 after a2), 0.25 s apart; the image of another size is a frame with an error.
        #expect(frames.map(\.timestamp) == [0, 0.25, 0.5, 0.75])
        #expect(frames.prefix(3).allSatisfy { $0.error == nil && $0.color?.channels == 3 })
        #expect(frames[3].error?.message.contains("8×8") == true)

        #expect { try FrameSources.open(scratch.path("absent.mp4")) } throws: { ($0 as? WaymarkError)?.kind == .missingInput }
        options.framesPerSecond = 0
        #expect { try FrameSources.open(scratch.path("images"), options: options) } throws: { ($0 as? WaymarkError)?.kind == .usage }
    }
}

@Suite struct ColorSequenceSourceTests {
    static let tum = RGBDRecordingSourceTests.tum

    /// TUM's colour frames without their depth: every frame of rgb.txt at its own time, the
    /// nearest ground-truth pose with it, intrinsics.txt as the camera; a frame whose image is
    /// gone comes back with its error, and the frames after it still come.
    @Test(.enabled(if: SharedDatasets.has("\(tum)/rgb.txt", "\(tum)/groundtruth.txt")))
    func aTUMFolderWithoutDepthIsAVideoWithItsOwnTimes() throws {
        let scratch = try Scratch()
        let original = try #require(SharedDatasets.path(Self.tum))
        let folder = scratch.path("colour")
        let manager = FileManager.default
        try manager.createDirectory(atPath: folder, withIntermediateDirectories: true)
        for item in ["rgb", "rgb.txt", "groundtruth.txt"] { try manager.copyItem(atPath: original + "/" + item, toPath: folder + "/" + item) }
        try "525 525 320 240\n".write(toFile: folder + "/intrinsics.txt", atomically: true, encoding: .utf8)
        let list = try TextRows.read(folder + "/rgb.txt")
        try manager.removeItem(atPath: folder + "/" + list[5][1])

        let source = try FrameSources.open(folder)
        #expect(source.info.kind == "tum_color" && !source.info.hasDepth && source.info.recordedPoses == .groundtruth)
        #expect(source.info.intrinsics == Intrinsics(fx: 525, fy: 525, cx: 320, cy: 240))
        var frames: [InputFrame] = []
        while let frame = try source.next() { frames.append(frame) }
        #expect(frames.map(\.timestamp) == list.map { Double($0[0])! })
        #expect(frames[5].error != nil && frames.enumerated().allSatisfy { $0.offset == 5 || ($0.element.error == nil && $0.element.color != nil) })
        let truth = try Trajectory(tumFile: folder + "/groundtruth.txt").samples
        for frame in frames where frame.error == nil {
            let nearest = try #require(truth.min { abs($0.timestamp - frame.timestamp) < abs($1.timestamp - frame.timestamp) })
            #expect(frame.recordedPose == nearest.pose)
        }
        // With depth beside it, the same folder is an RGB-D recording again.
        try manager.createDirectory(atPath: folder + "/depth", withIntermediateDirectories: true)
        #expect(!ColorSequenceSource.accepts(folder))
    }
}
