import Foundation
import TestData
import Testing
import TestSupport
import Waymark
import WaymarkRecords

/// Runs the built `waymark` executable and captures what it prints.
struct CLI {
    static let executable: URL = {
        let build = Bundle.main.bundleURL.deletingLastPathComponent()
        for candidate in [build, Bundle.main.bundleURL] {
            let url = candidate.appendingPathComponent("waymark")
            if FileManager.default.isExecutableFile(atPath: url.path) { return url }
        }
        return SharedDatasets.repositoryRoot.appendingPathComponent(".build/debug/waymark")
    }()

    struct Result {
        var status: Int32
        var stdout: String
        var stderr: String
        /// Standard output's JSON Lines, each decoded as `T`.
        func records<T: Decodable>(_ type: T.Type) throws -> [T] { try RecordCoding.records(type, in: stdout) }
    }

    /// A file of `process` records.
    static func processOutput(_ path: String) throws -> ProcessOutput {
        try ProcessOutput(try String(contentsOfFile: path, encoding: .utf8))
    }

    static func run(_ arguments: [String], environment: [String: String] = [:]) throws -> Result {
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        if !environment.isEmpty {
            process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        }
        let out = Pipe()
        let err = Pipe()
        process.standardOutput = out
        process.standardError = err
        try process.run()
        let stdout = out.fileHandleForReading.readDataToEndOfFile()
        let stderr = err.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return Result(status: process.terminationStatus, stdout: String(decoding: stdout, as: UTF8.self), stderr: String(decoding: stderr, as: UTF8.self))
    }
}

@Suite struct CLIBasicsTests {
    @Test func versionNamesTheLibraries() throws {
        let result = try CLI.run(["--version"])
        #expect(result.status == 0)
        #expect(result.stdout.contains("OpenCV 4.6"))
        #expect(result.stdout.contains("Eigen 3.4"))
    }

    @Test(arguments: [["detect", "--help"], ["process", "--help"], ["planes", "--help"], ["references", "check", "--help"],
                      ["map", "build", "--help"], ["relocalize", "--help"], ["demo", "--help"], ["bag", "info", "--help"], ["--help"]])
    func helpIsAvailableEverywhere(_ arguments: [String]) throws {
        let result = try CLI.run(arguments)
        #expect(result.status == 0)
        #expect(result.stdout.contains("Usage"))
    }

    @Test(arguments: [[], ["frobnicate"], ["detect"], ["detect", "--bogus", "x.png"], ["detect", "--references"], ["references"],
                      ["detect", "--references", "r", "--intrinsics", "1,2", "a.png"], ["demo", "--size", "10x10"],
                      ["demo", "extra"]])
    func usageErrorsExit64(_ arguments: [String]) throws {
        let result = try CLI.run(arguments)
        #expect(result.status == 64)
        #expect(result.stdout.isEmpty)
        #expect(!result.stderr.isEmpty && result.stderr.split(separator: "\n").count <= 14)
    }
}

@Suite struct CLIDetectTests {
    @Test(.enabled(if: SharedDatasets.has("opencv_samples/graf1.png", "opencv_samples/graf3.png", "opencv_samples/box_in_scene.png")))
    func detectPrintsOneLinePerImageInOrder() throws {
        let g1 = try #require(SharedDatasets.path("opencv_samples/graf1.png"))
        let g3 = try #require(SharedDatasets.path("opencv_samples/graf3.png"))
        let scene = try #require(SharedDatasets.path("opencv_samples/box_in_scene.png"))
        let result = try CLI.run(["detect", "--references", g1, g3, scene, "/nonexistent.png"])
        #expect(result.status == 66)
        let lines = try result.records(DetectRecord.self)
        #expect(lines.map(\.image) == [g3, scene, "/nonexistent.png"])
        try #require(lines.count == 3, "\(result.stderr)")
        #expect(lines.allSatisfy { $0.schema == "waymark.detect/1" })
        let first = try #require(lines[0].detections?.first)
        #expect(first.name == "graf1")
        #expect(first.corners.count == 4)
        #expect(first.homography.count == 9)
        #expect(first.pose == nil && first.state == nil)
        #expect(lines[1].detections?.isEmpty == true)
        #expect(lines[2].error != nil && lines[2].detections == nil)
    }

    /// The matcher compares descriptors with AVX-512, AVX2 or one at a time, whichever the
    /// processor has; each must find exactly the same (one the processor lacks runs the widest).
    @Test(.enabled(if: SharedDatasets.has("oxford_affine/bark", "oxford_affine/graf")), arguments: ["avx2", "scalar"])
    func everyMatchingKernelGivesTheSameDetections(_ kernel: String) throws {
        let bark = try #require(SharedDatasets.path("oxford_affine/bark"))
        let graf = try #require(SharedDatasets.path("oxford_affine/graf"))
        let scratch = try Scratch()
        for (name, folder) in [("bark", bark), ("graf", graf)] {
            try FileManager.default.createSymbolicLink(atPath: scratch.path("\(name).png"), withDestinationPath: "\(folder)/img1.png")
        }
        let arguments = ["detect", "--references", scratch.url.path]
            + (2...6).flatMap { ["\(bark)/img\($0).png", "\(graf)/img\($0).png"] }
        let widest = try CLI.run(arguments)
        let other = try CLI.run(arguments, environment: ["WAYMARK_DESCRIPTOR_KERNEL": kernel])
        #expect(widest.status == 0 && other.status == 0)
        #expect(other.stdout == widest.stdout)
        let found = try widest.records(DetectRecord.self).filter { $0.detections?.isEmpty == false }.count
        #expect(found >= 9, "\(found) of 10 frames with a detection")
    }

    @Test(.enabled(if: SharedDatasets.has("opencv_samples/graf1.png", "opencv_samples/graf3.png")))
    func poseAppearsWithIntrinsicsAndPhysicalWidth() throws {
        let g1 = try #require(SharedDatasets.path("opencv_samples/graf1.png"))
        let g3 = try #require(SharedDatasets.path("opencv_samples/graf3.png"))
        let scratch = try Scratch()
        try Data(#"{"images":[{"name":"graf","path":"\#(g1)","physicalWidth":1.0}]}"#.utf8).write(to: URL(fileURLWithPath: scratch.path("m.json")))
        let result = try CLI.run(["detect", "--references", scratch.path("m.json"), "--intrinsics", "800,800,400,320", g3])
        #expect(result.status == 0)
        let detection = try #require(try result.records(DetectRecord.self).first?.detections?.first, "\(result.stderr)")
        let pose = try #require(detection.pose)
        #expect(pose.count == 16)
        #expect(pose[11] > 0)  // in front of the camera
    }

    @Test func badReferencesExitWithDistinctCodes() throws {
        let scratch = try Scratch()
        func write(_ name: String, _ text: String) throws -> String {
            try Data(text.utf8).write(to: URL(fileURLWithPath: scratch.path(name)))
            return scratch.path(name)
        }
        try Image(width: 64, height: 64, channels: 1, pixels: [UInt8](repeating: 50, count: 4096)).write(to: scratch.path("a.png"))
        let cases: [(String, Int32)] = [
            (try write("malformed.json", "{ nope"), 65),
            (try write("empty.json", #"{"images":[]}"#), 65),
            (try write("dupes.json", #"{"images":[{"name":"a","path":"a.png"},{"name":"a","path":"a.png"}]}"#), 65),
            (try write("width.json", #"{"images":[{"name":"a","path":"a.png","physicalWidth":-1}]}"#), 65),
            (try write("missing.json", #"{"images":[{"name":"a","path":"gone.png"}]}"#), 66),
            (try write("corrupt.json", #"{"images":[{"name":"c","path":"c.png"}]}"#), 65),
            (scratch.path("nothing-here"), 66),
        ]
        _ = try write("c.png", "garbage")
        for (references, expected) in cases {
            let result = try CLI.run(["detect", "--references", references, scratch.path("a.png")])
            #expect(result.status == expected, "\(references): \(result.stderr)")
            #expect(result.stderr.hasPrefix("waymark: "))
        }
    }

    @Test func moreThanTwentyFiveWithoutGroupsNamesTheLimit() throws {
        let scratch = try Scratch()
        let entries = (0..<30).map { #"{"name":"i\#($0)","path":"a.png","group":"g\#($0 % 2)"}"# }.joined(separator: ",")
        try Image(width: 64, height: 64, channels: 1, pixels: [UInt8](repeating: 50, count: 4096)).write(to: scratch.path("a.png"))
        try Data(#"{"images":[\#(entries)]}"#.utf8).write(to: URL(fileURLWithPath: scratch.path("m.json")))
        let tooMany = try CLI.run(["detect", "--references", scratch.path("m.json"), "--quiet", scratch.path("a.png")])
        #expect(tooMany.status == 64)
        #expect(tooMany.stderr.contains("25"))
        let oneGroup = try CLI.run(["detect", "--references", scratch.path("m.json"), "--group", "g1", "--quiet", scratch.path("a.png")])
        #expect(oneGroup.status == 0)
        #expect(try oneGroup.records(DetectRecord.self).count == 1)
    }

    @Test(.enabled(if: SharedDatasets.has("opencv_samples/graf1.png")))
    func referencesCheckScoresEachImage() throws {
        let g1 = try #require(SharedDatasets.path("opencv_samples/graf1.png"))
        let scratch = try Scratch()
        try FileManager.default.copyItem(atPath: g1, toPath: scratch.path("graf.png"))
        try Image(width: 320, height: 320, channels: 1, pixels: [UInt8](repeating: 128, count: 320 * 320)).write(to: scratch.path("blank.png"))
        let result = try CLI.run(["references", "check", scratch.url.path])
        #expect(result.status == 0)
        let byName = Dictionary(uniqueKeysWithValues: try result.records(ReferenceCheckRecord.self).map { ($0.name, $0) })
        // The score is the share of the 16 trial views found; graf is found in most.
        #expect(byName["graf"]?.score ?? 0 >= 60)
        #expect(byName["blank"]?.score ?? 100 < 50)
        #expect(byName["blank"]?.problems.contains("too_few_details") == true)
        #expect(result.stderr.contains("blank"))
        #expect(byName["graf"] != nil && byName["graf"]?.lookalike == nil)
    }

    @Test(.enabled(if: SharedDatasets.has("opencv_samples/graf1.png", "opencv_samples/box.png")))
    func referencesCheckNamesTheSamePictureTwice() throws {
        let g1 = try #require(SharedDatasets.path("opencv_samples/graf1.png"))
        let box = try #require(SharedDatasets.path("opencv_samples/box.png"))
        let scratch = try Scratch()
        try FileManager.default.copyItem(atPath: g1, toPath: scratch.path("graf.png"))
        try FileManager.default.copyItem(atPath: g1, toPath: scratch.path("graffiti-copy.png"))
        try FileManager.default.copyItem(atPath: box, toPath: scratch.path("box.png"))
        let result = try CLI.run(["references", "check", scratch.url.path])
        #expect(result.status == 0)
        let byName = Dictionary(uniqueKeysWithValues: try result.records(ReferenceCheckRecord.self).map { ($0.name, $0) })
        #expect(byName["graf"]?.lookalike == "graffiti-copy")
        #expect(byName["graffiti-copy"]?.lookalike == "graf")
        #expect(byName["graf"]?.problems.contains("same_picture_as_another") == true)
        #expect(byName["box"] != nil && byName["box"]?.lookalike == nil)
    }
}

@Suite struct CLIProcessTests {
    /// Writes the first `frames` frames of the synthetic sample and its references.
    /// The synthetic video's pictures (sample's inputs) are in the datasets.
    static let sampleDataPresent = SharedDatasets.has("opencv_samples/box.png", "opencv_samples/graf1.png", "opencv_samples/aloeL.jpg")

    static func sample(_ scratch: Scratch, frames: Int, container: String = "mp4") throws -> (video: String, references: String)? {
        guard let box = SharedDatasets.path("opencv_samples/box.png"), let graf = SharedDatasets.path("opencv_samples/graf1.png"),
            let wall = SharedDatasets.path("opencv_samples/aloeL.jpg")
        else { return nil }
        let video = try SyntheticVideo.sample(box: box, graffiti: graf, wall: wall, frameCount: frames)
        let writer = try VideoWriter(path: scratch.path("v.\(container)"), width: 640, height: 480, framesPerSecond: 30)
        for i in 0..<frames { try writer.write(video.render(i)) }
        try writer.finish()
        try FileManager.default.createDirectory(atPath: scratch.path("refs"), withIntermediateDirectories: true)
        for placement in video.placements { try placement.image.write(to: scratch.path("refs/\(placement.name).png")) }
        return (scratch.path("v.\(container)"), scratch.path("refs"))
    }

    /// A video's camera from a calibration file (the video is 640×480, the calibration sample's
    /// own size) or from a field of view, noted as a guess; two ways at once, a calibration file
    /// that is not one and an RGB-D recording are refused before the first frame.
    @Test(.enabled(if: sampleDataPresent && SharedDatasets.has("opencv_samples/left_intrinsics.yml", "opencv_samples/intrinsics.yml",
                                                                "tum_fr1_xyz_excerpt/depth.txt")))
    func aVideosCameraComesFromACalibrationOrAFieldOfView() throws {
        let scratch = try Scratch()
        let sample = try #require(try Self.sample(scratch, frames: 3))
        let calibration = try #require(SharedDatasets.path("opencv_samples/left_intrinsics.yml"))
        let run = { (camera: [String]) in
            try CLI.run(["process", sample.video, "--references", sample.references, "--output", scratch.path("out.jsonl")] + camera)
        }
        let calibrated = try run(["--calibration", calibration])
        #expect(calibrated.status == 0, "\(calibrated.stderr)")
        let k = try #require(try CLI.processOutput(scratch.path("out.jsonl")).header.source.intrinsics)
        #expect(k == [5.3591573396163199e+02, 5.3591573396163199e+02, 3.4228315473308373e+02 + 0.5, 2.3557082909788173e+02 + 0.5])
        let guessed = try run(["--fov", "60"])
        #expect(guessed.status == 0 && guessed.stderr.contains("field of view") && guessed.stderr.contains("approximate"))
        let focal = try #require(try CLI.processOutput(scratch.path("out.jsonl")).header.source.intrinsics?.first)
        #expect(abs(focal - 320 / tan(Double.pi / 6)) < 1e-9)
        let both = try run(["--fov", "60", "--intrinsics", "500,500,320,240"])
        #expect(both.status == 64 && both.stderr.contains("one way"))
        let stereo = try run(["--calibration", try #require(SharedDatasets.path("opencv_samples/intrinsics.yml"))])
        #expect(stereo.status == 65 && stereo.stderr.contains("camera_matrix"))
        let wide = try run(["--fov", "200"])
        #expect(wide.status == 64 && wide.stderr.contains("--fov"))
        let rgbd = try CLI.run(["process", try #require(SharedDatasets.path("tum_fr1_xyz_excerpt")), "--fov", "60",
                                "--output", scratch.path("rgbd.jsonl")])
        #expect(rgbd.status == 64 && rgbd.stderr.contains("intrinsics.txt"))
    }

    /// TUM fr1/xyz's colour images alone (rgb.txt, no depth, no truth) with the camera's
    /// intrinsics: tracked from the images, the scale said to be unknown (gravity from its
    /// accelerometer.txt where the folder has it, else, with surfaces asked for, to be
    /// estimated from the scene), a pose on the frames
    /// after the map starts and in the trajectory and map files, loop closure allowed; without the camera the same
    /// folder is refused tracking options.
    @Test(.enabled(if: SharedDatasets.has("tum_fr1_xyz_excerpt")))
    func aColourSequenceWithItsCameraIsTrackedFromItsImages() throws {
        let scratch = try Scratch()
        let excerpt = try #require(SharedDatasets.path("tum_fr1_xyz_excerpt"))
        let folder = try scratch.folder("colour", linking: ["rgb.txt", "rgb", "accelerometer.txt"], in: excerpt)
        // Loop closure is taken too (it was refused without depth before).
        let result = try CLI.run(["process", folder, "--intrinsics", "517.3,516.5,318.6,255.3", "--output", scratch.path("out.jsonl"),
                                  "--trajectory", scratch.path("trajectory.txt"), "--save-map", scratch.path("map.waymap"),
                                  "--loop-closure", "--quiet"])
        #expect(result.status == 0, "\(result.stderr)")
        let output = try CLI.processOutput(scratch.path("out.jsonl"))
        #expect(output.header.source.poses == "monocular" && output.header.source.scale == "unknown")
        #expect(output.header.source.gravity == "accelerometer")
        #expect(output.header.coaching.goal == "tracking")
        let posed = output.frames.filter { $0.pose != nil }
        // The map starts at frame 17 of 37 (the excerpt begins with little sideways motion).
        #expect(posed.count >= 15 && output.frames.count == 37, "\(posed.count) of \(output.frames.count)")
        #expect(output.frames.prefix { $0.pose == nil }.allSatisfy { $0.tracking?.reason == "initializing" })
        #expect(output.frames.contains { $0.coaching?.code == "initializing_sideways" })
        let lines = try String(contentsOfFile: scratch.path("trajectory.txt"), encoding: .utf8).split(separator: "\n")
        #expect(lines.filter { !$0.hasPrefix("#") }.count == posed.count)
        #expect((output.summary?.keyframes ?? 0) >= 2)
        #expect(FileManager.default.fileExists(atPath: scratch.path("map.waymap")))
        let unknownCamera = try CLI.run(["process", folder, "--trajectory", scratch.path("t2.txt"), "--output", scratch.path("o2.jsonl")])
        #expect(unknownCamera.status == 64 && unknownCamera.stderr.contains("--trajectory needs an RGB-D SEQUENCE, or a VIDEO whose camera is known"))
        // Surfaces asked for where nothing measures gravity: it is to be estimated from the map's planes.
        let plain = try scratch.folder("plain", linking: ["rgb.txt", "rgb"], in: excerpt)
        // A named anchor is placed only in a metric world: no reference image of known width fixes this one's scale.
        let surfaces = try CLI.run(["process", plain, "--intrinsics", "517.3,516.5,318.6,255.3", "--surfaces",
                                    "--place", "cup:30:320,400", "--output", scratch.path("o3.jsonl"), "--quiet"])
        #expect(surfaces.status == 0, "\(surfaces.stderr)")
        let withSurfaces = try CLI.processOutput(scratch.path("o3.jsonl"))
        #expect(withSurfaces.header.source.gravity == "estimated")
        #expect(withSurfaces.frames[30].pose != nil && withSurfaces.frames[30].placementFailed == ["cup"])
        let untracked = try CLI.run(["process", plain, "--surfaces", "--output", scratch.path("o4.jsonl")])
        #expect(untracked.status == 64 && untracked.stderr.contains("--surfaces needs an RGB-D SEQUENCE, or a VIDEO whose camera is known"))
        // The scale from the camera's height: a height, and only for a world whose scale is unknown.
        for bad in ["camera-height:nan", "camera-height:0", "height:1.5", "camera-height:"] {
            let refused = try CLI.run(["process", plain, "--intrinsics", "517.3,516.5,318.6,255.3", "--scale-from", bad,
                                       "--output", scratch.path("o5.jsonl")])
            #expect(refused.status == 64 && refused.stderr.contains("--scale-from must be camera-height:METRES"), "\(bad)")
        }
        let metric = try CLI.run(["process", excerpt, "--intrinsics", "517.3,516.5,318.6,255.3", "--scale-from", "camera-height:1.5",
                                  "--output", scratch.path("o6.jsonl")])
        #expect(metric.status == 64 && metric.stderr.contains("is metric (it has depth)"))
        let noCamera = try CLI.run(["process", plain, "--scale-from", "camera-height:1.5", "--output", scratch.path("o7.jsonl")])
        #expect(noCamera.status == 64 && noCamera.stderr.contains("--scale-from needs a VIDEO whose camera is known"))
    }

    @Test(.enabled(if: sampleDataPresent)) func processWritesHeaderFramesAndSummary() throws {
        let scratch = try Scratch()
        let sample = try #require(try Self.sample(scratch, frames: 24))
        let result = try CLI.run(["process", sample.video, "--references", sample.references, "--output", scratch.path("out.jsonl"),
                                  "--annotate", scratch.path("annotated.mp4"), "--quiet"])
        #expect(result.status == 0, "\(result.stderr)")
        let output = try CLI.processOutput(scratch.path("out.jsonl"))
        #expect(output.header.schema == "waymark.process/7")
        #expect(output.header.source.kind == "video" && output.header.source.poses == nil && output.header.source.gravity == nil)
        #expect(output.summary?.complete == true)
        let frames = output.frames
        let timestamps = frames.map(\.timestamp)
        #expect(timestamps.count == 24 && zip(timestamps, timestamps.dropFirst()).allSatisfy { $0 < $1 })
        #expect(frames.allSatisfy { $0.pose == nil && $0.tracking == nil && $0.goalReached != nil })
        let states = frames.flatMap { ($0.detections ?? []).compactMap(\.state) }
        #expect(states.filter { $0 == "detected" }.count == 2)
        #expect(states.filter { $0 == "tracked" }.count == 46)
        let annotated = try VideoReader(path: scratch.path("annotated.mp4"))
        let frame = Image(width: 1, height: 1, channels: 3)
        var count = 0
        while try annotated.read(into: frame) != nil { count += 1 }
        #expect(count == 24)
    }

    /// A folder of frames (PNG, named in order) is processed as a video, --fps apart; the same
    /// images are found and followed as in the video file.
    @Test(.enabled(if: sampleDataPresent)) func anImageFolderIsProcessedAsAVideo() throws {
        let scratch = try Scratch()
        let box = try #require(SharedDatasets.path("opencv_samples/box.png"))
        let graf = try #require(SharedDatasets.path("opencv_samples/graf1.png"))
        let wall = try #require(SharedDatasets.path("opencv_samples/aloeL.jpg"))
        let video = try SyntheticVideo.sample(box: box, graffiti: graf, wall: wall, frameCount: 12)
        let folder = scratch.path("frames")
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        // Names that sort wrongly as plain text (frame10 before frame2) but right as numbers.
        for i in 0..<12 { try video.render(i).write(to: "\(folder)/frame\(i).png") }
        try FileManager.default.createDirectory(atPath: scratch.path("refs"), withIntermediateDirectories: true)
        for placement in video.placements { try placement.image.write(to: scratch.path("refs/\(placement.name).png")) }
        let result = try CLI.run(["process", folder, "--references", scratch.path("refs"), "--fps", "10", "--quiet"])
        #expect(result.status == 0, "\(result.stderr)")
        let frames = try ProcessOutput(result.stdout).frames
        #expect(frames.map(\.timestamp) == (0..<12).map { Double($0) / 10 })
        let truth = video.truth(at: 11)
        for detection in frames.last?.detections ?? [] {
            let reference = try #require(video.placements.first { $0.name == detection.name })
            let expected = try #require(truth[detection.name]).apply(Point2(0, 0))
            #expect(abs(detection.corners[0][0] - expected!.x) < 3 && abs(detection.corners[0][1] - expected!.y) < 3,
                    "\(detection.name) \(reference.name)")
        }
        #expect(frames.last?.detections?.count == 2)
    }

    @Test(.enabled(if: sampleDataPresent)) func truncatedVideoKeepsTheFramesSoFar() throws {
        let scratch = try Scratch()
        let sample = try #require(try Self.sample(scratch, frames: 40, container: "avi"))
        let data = try Data(contentsOf: URL(fileURLWithPath: sample.video))
        try data.prefix(data.count / 2).write(to: URL(fileURLWithPath: scratch.path("cut.avi")))
        let result = try CLI.run(["process", scratch.path("cut.avi"), "--references", sample.references, "--output", scratch.path("out.jsonl"), "--quiet"])
        #expect(result.status == 65, "\(result.stderr)")
        let output = try CLI.processOutput(scratch.path("out.jsonl"))
        #expect(output.frames.count > 5 && output.frames.count < 40)
        #expect(output.summary?.complete == false && output.summary?.error != nil)
    }

    @Test(.enabled(if: sampleDataPresent)) func unreadableVideoIsBadData() throws {
        let scratch = try Scratch()
        let sample = try #require(try Self.sample(scratch, frames: 2))
        try Data(repeating: 3, count: 10_000).write(to: URL(fileURLWithPath: scratch.path("junk.mp4")))
        let junk = try CLI.run(["process", scratch.path("junk.mp4"), "--references", sample.references])
        #expect(junk.status == 65)
        let missing = try CLI.run(["process", scratch.path("none.mp4"), "--references", sample.references])
        #expect(missing.status == 66)
        let unwritable = try CLI.run(["process", sample.video, "--references", sample.references, "--output", "/nonexistent-dir/out.jsonl"])
        #expect(unwritable.status == 73)
    }
}

@Suite struct CLIAutoSelectTests {
    @Test(.enabled(if: SharedDatasets.has("opencv_samples/graf1.png", "opencv_samples/graf3.png")))
    func autoSelectSearchesALibraryLargerThanTwentyFive() throws {
        let g1 = try #require(SharedDatasets.path("opencv_samples/graf1.png"))
        let g3 = try #require(SharedDatasets.path("opencv_samples/graf3.png"))
        let scratch = try Scratch()
        try FileManager.default.copyItem(atPath: g1, toPath: scratch.path("graf1.png"))
        for i in 0..<29 {
            var generator = SeededGenerator(seed: UInt64(i))
            let noise = (0..<(160 * 120)).map { _ in UInt8.random(in: 0...255, using: &generator) }
            try Image(width: 160, height: 120, channels: 1, pixels: noise).blurred(sigma: 1.5).write(to: scratch.path("t\(i).png"))
        }
        let limited = try CLI.run(["detect", "--references", scratch.url.path, "--quiet", g3])
        #expect(limited.status == 64)
        #expect(limited.stderr.contains("--auto-select"))
        let selected = try CLI.run(["detect", "--references", scratch.url.path, "--auto-select", "--quiet", g3])
        #expect(selected.status == 0, "\(selected.stderr)")
        let names = try selected.records(DetectRecord.self).first?.detections?.map(\.name)
        #expect(names == ["graf1"])
    }
}
