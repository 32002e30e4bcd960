import Foundation
import TestData
import Testing
import Waymark
import WaymarkRecords
import WaymarkSamples

/// Issue 14's cases, as a careless or hostile user would type them: each gives its documented
/// exit code and a first line of stderr that says what is wrong, and leaves every file the
/// user had as it was.
@Suite struct HostileInputCLITests {
    /// A reference image, a folder of three frames showing it and a few odd images.
    final class Setup {
        let scratch: Scratch
        let reference: String
        let frames: String
        init() throws {
            scratch = try Scratch()
            reference = scratch.path("poster.png")
            try syntheticTexture(width: 320, height: 240, seed: 3).write(to: reference)
            frames = scratch.path("frames")
            try FileManager.default.createDirectory(atPath: frames, withIntermediateDirectories: true)
            for k in 0..<3 { try syntheticTexture(width: 160, height: 120, seed: UInt64(10 + k)).colored().write(to: "\(frames)/\(k).png") }
        }
        func path(_ name: String) -> String { scratch.path(name) }
        func contents(_ path: String) -> Data? { FileManager.default.contents(atPath: path) }
    }

    static func firstLine(_ result: CLI.Result) -> String { String(result.stderr.split(separator: "\n").first ?? "") }

    /// Images one pixel wide or high are read and searched: no record is lost to a trap.
    @Test func onePixelImagesAreSearchedLikeAnyOther() throws {
        let setup = try Setup()
        var paths: [String] = []
        for (w, h) in [(1, 1), (2000, 1), (1, 2000)] {
            paths.append(setup.path("thin\(w)x\(h).png"))
            try Image(width: w, height: h, channels: 3).write(to: paths.last!)
        }
        let result = try CLI.run(["detect", "--references", setup.reference] + paths + ["\(setup.frames)/0.png"])
        #expect(result.status == 0, "\(result.stderr)")
        let records = try result.records(DetectRecord.self)
        #expect(records.map(\.image) == paths + ["\(setup.frames)/0.png"])
        #expect(records.prefix(3).allSatisfy { $0.detections?.isEmpty == true })
        let folder = setup.path("thin")
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        try Image(width: 1, height: 1, channels: 3).write(to: "\(folder)/a.png")
        let process = try CLI.run(["process", folder, "--references", setup.reference])
        #expect(process.status == 0, "\(process.stderr)")
    }

    /// Outputs that would replace an input or each other, or cannot be made, fail before the
    /// first frame; the input is untouched and no output is half-made.
    @Test func outputsAreCheckedBeforeTheFirstFrame() throws {
        let setup = try Setup()
        let input = "\(setup.frames)/1.png"
        let before = setup.contents(input)
        let base = ["process", setup.frames, "--references", setup.reference, "--quiet"]
        try FileManager.default.createDirectory(atPath: setup.path("folder"), withIntermediateDirectories: true)
        let cases: [([String], Int32, String)] = [
            (["--output", input], 64, "--output \(input) would overwrite an input of this run"),
            (["--report", setup.reference], 64, "would overwrite an input of this run"),
            (["--output", setup.path("a"), "--report", setup.path("a")], 64, "--output and --report would both write"),
            (["--output", setup.path("v.mp4"), "--annotate", setup.path("v.mp4")], 64, "--output and --annotate would both write"),
            (["--annotate", setup.path("out.txt")], 64, "--annotate writes an .mp4 or .avi video"),
            (["--output", setup.path("folder")], 73, "it is a folder"),
            (["--report", setup.path("absent/r.html")], 73, "does not exist"),
            (["--output", "/dev/null"], 73, "not a regular file"),
        ]
        for (options, status, message) in cases {
            let result = try CLI.run(base + options)
            #expect(result.status == status, "\(options): \(result.stderr)")
            #expect(Self.firstLine(result).contains(message), "\(options): \(result.stderr)")
        }
        #expect(setup.contents(input) == before)
        let left = try FileManager.default.contentsOfDirectory(atPath: setup.scratch.url.path)
        #expect(!left.contains { $0.hasSuffix(".partial") || $0 == "a" || $0 == "v.mp4" }, "\(left)")
    }

    @Test func planeImagesNeverReplaceTheirInputsOrEachOther() throws {
        let setup = try Setup()
        for folder in ["a", "b"] {
            try FileManager.default.createDirectory(atPath: setup.path(folder), withIntermediateDirectories: true)
            try Raster.writeUInt16([UInt16](repeating: 1500, count: 64 * 48), width: 64, height: 48, to: setup.path("\(folder)/d.png"))
        }
        let before = setup.contents(setup.path("a/d.png"))
        let intrinsics = ["--intrinsics", "60,60,32,24"]
        let over = try CLI.run(["planes", setup.path("a/d.png"), "--labels", setup.path("a")] + intrinsics)
        #expect(over.status == 64 && Self.firstLine(over).contains("would overwrite an input"), "\(over.stderr)")
        let both = try CLI.run(["planes", setup.path("a/d.png"), setup.path("b/d.png"), "--labels", setup.path("out")] + intrinsics)
        #expect(both.status == 64 && Self.firstLine(both).contains("would both write"), "\(both.stderr)")
        #expect(setup.contents(setup.path("a/d.png")) == before)
    }

    @Test func optionsThatWouldDoNothingOrTooMuchAreRefused() throws {
        let setup = try Setup()
        let cases: [([String], String)] = [
            (["process", setup.frames, "--group", "hall"], "--group chooses among reference images: it needs --references"),
            (["process", setup.frames, "--references", setup.reference, "--save-map", setup.path("m.waymap")], "--save-map needs an RGB-D SEQUENCE"),
            (["process", setup.frames, "--references", setup.reference, "--loop-closure"], "--loop-closure needs an RGB-D SEQUENCE"),
            (["process", setup.frames, "--references", setup.reference, "--fps", "1e9"], "--fps must be"),
            (["demo", "--size", "100000x100000"], "--size must be"),
            (["demo", "--fps", "1e9"], "--fps must be"),
            (["detect", "--references", setup.reference, "--max-megapixels", "0", "x.png"], "--max-megapixels must be"),
        ]
        for (arguments, message) in cases {
            let result = try CLI.run(arguments)
            #expect(result.status == 64 && Self.firstLine(result).contains(message), "\(arguments): \(result.stderr)")
        }
    }

    @Test func inputsThatAreNoImagesSaySo() throws {
        let setup = try Setup()
        let fifo = setup.path("pipe.png")
        #expect(mkfifo(fifo, 0o644) == 0)
        let big = setup.path("big.png")
        try syntheticTexture(width: 400, height: 300, seed: 1).write(to: big)
        // libpng finds the damage and says so on stderr itself; our line comes first and carries its reason.
        var png = [UInt8](try Data(contentsOf: URL(fileURLWithPath: big)))
        let data = try #require((0..<(png.count - 4)).first { png[$0..<($0 + 4)].elementsEqual(Array("IDAT".utf8)) })
        png[data + 20] ^= 0xFF
        let corrupt = setup.path("corrupt.png")
        try Data(png).write(to: URL(fileURLWithPath: corrupt))
        try FileManager.default.createDirectory(atPath: setup.path("empty"), withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(atPath: setup.path("loop"), withDestinationPath: setup.path("loop"))
        let cases: [([String], Int32, String)] = [
            (["detect", "--references", setup.reference, fifo], 65, "is a FIFO"),
            (["detect", "--references", setup.reference, "--max-megapixels", "0.1", big], 65, "400×300 pixels, over the limit of 0.1 megapixels"),
            (["process", setup.path("empty"), "--references", setup.reference], 65, "is a folder without images"),
            (["detect", "--references", setup.reference, corrupt], 65, "not a readable image (corrupt, empty or unsupported format): \(corrupt) (libpng error: IDAT: "),
            (["process", setup.path("absent"), "--references", setup.reference], 66, "no such file"),
            (["process", setup.path("loop"), "--references", setup.reference], 65, "is a loop of symbolic links"),
        ]
        for (arguments, status, message) in cases {
            let result = try CLI.run(arguments)
            #expect(result.status == status && Self.firstLine(result).contains(message), "\(arguments): \(result.stderr)")
        }
    }

    /// An image that decodes with a damaged ancillary chunk (an iCCP colour profile with a bad
    /// checksum, as some editors write) loads as any other; libpng's warnings about it stay off
    /// the user's terminal.
    @Test func codecWarningsAboutUsableImagesStayQuiet() throws {
        let setup = try Setup()
        let folder = setup.path("library")
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        var png = [UInt8](try Data(contentsOf: URL(fileURLWithPath: setup.reference)))
        let profile = Array("bad profile".utf8) + [0, 0] + Array("not a profile".utf8)
        // After the signature (8 bytes) and IHDR (25): length, type, data and a CRC of zeros.
        png.insert(contentsOf: [0, 0, 0, UInt8(profile.count)] + Array("iCCP".utf8) + profile + [0, 0, 0, 0], at: 33)
        try Data(png).write(to: URL(fileURLWithPath: "\(folder)/profiled.png"))
        try syntheticTexture(width: 320, height: 240, seed: 8).write(to: "\(folder)/other.png")
        let result = try CLI.run(["references", "check", folder])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(!result.stderr.contains("libpng"), "\(result.stderr)")
        #expect(try result.records(ReferenceCheckRecord.self).count == 2)
    }

    @Test func helpThatCannotBeWrittenIsAWriteFailure() throws {
        let process = Process()
        process.executableURL = CLI.executable
        process.arguments = ["--help"]
        process.standardOutput = FileHandle(forWritingAtPath: "/dev/full")
        process.standardError = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        #expect(process.terminationStatus == 74)
    }
}
