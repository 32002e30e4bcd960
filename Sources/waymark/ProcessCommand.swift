import Foundation
import Waymark

enum ProcessCommand: Command {
    static let name = "process"
    static let help = """
        Usage: waymark process VIDEO --references MANIFEST|FOLDER [--group G]... [--auto-select]
                               [--output FILE] [--annotate VIDEO] [--report FILE] [--intrinsics fx,fy,cx,cy] [--quiet]
               waymark process SEQUENCE [--references MANIFEST|FOLDER] [--intrinsics fx,fy,cx,cy] [--annotate VIDEO]
                               [--report FILE]
                               [--depth-scale S] [--gravity x,y,z] [--fps N] [--trajectory FILE]
                               [--interrupt START:COUNT]... [--place NAME:FRAME:X,Y]... [--save-map FILE]
                               [--load-map FILE]
                               [--relocalization-timeout SECONDS] [--output FILE] [--quiet]
               (both) [--goal GOAL] [--language en|zh-Hans|zh-Hant]

        Follows the active reference images through VIDEO (a video file, or a FOLDER of images
        taken as frames in name order, --fps apart). Writes JSON Lines (schema
        "waymark.process/3", see docs/OUTPUT.md): a header record, one record per frame
        {"type": "frame", "index", "timestamp" (seconds, from the video), "detections": [...
        with "state": detected | tracked | lost], "coaching": the message on screen or null}, and a
        summary record. The file is flushed after every frame; if the video breaks off, the
        frames so far are kept, the summary says where it stopped, and the exit code is 65.

        SEQUENCE is an RGB-D recording: a TUM RGB-D folder (rgb.txt, depth.txt, optional
        groundtruth.txt) or a plain folder (depth/ and rgb/ or color/ with matching names; see the
        README). Each frame record then has "planes" (this frame's, in camera coordinates, each
        with the "anchor" it joined) and "planeEvents" (added, updated, merged, removed world
        anchors) in the world of groundtruth.txt's poses, or, without it, of the engine's own
        RGB-D odometry (world = the first camera); the summary lists the final anchors.
        Each frame also reports its tracking state and mapping status. A time jump over 0.5 s,
        dropped frames or lost tracking is an interruption: no pose and every anchor hidden
        until the camera is relocalized in the map, then poses in the original world and the
        anchors restored where they were.

        Options:
          --references PATH   a manifest (.json) or a folder of images
          --group NAME        search only this group (repeatable); at most 25 images at once
          --auto-select       search a library of any size: per frame, a fast retrieval step picks
                              the 25 most likely references and only those are searched
          --output FILE       write the records here instead of standard output
          --annotate VIDEO    also write the video as a person would see it in an app (.mp4, .avi):
                              image outlines and names, surfaces, the surface indicator, the
                              tracking state and the coaching message (needs fonts-noto-cjk)
          --report FILE       also write a one-page HTML report: a timeline of tracking, coaching,
                              images and surfaces, the messages, and thumbnails of the frames
          --intrinsics LIST   fx,fy,cx,cy in pixels, to report each image's pose (and, for a
                              SEQUENCE without intrinsics.txt, to turn depth into points)
          --depth-scale S     SEQUENCE: metres per depth unit (default 0.0002 for TUM, else 0.001)
          --gravity x,y,z     SEQUENCE: the direction of gravity in the poses' world (default 0,-1,0)
          --fps N             image FOLDER or plain-folder SEQUENCE: frames per second (default 30)
          --trajectory FILE   SEQUENCE: write the camera poses used, TUM format (camera-to-world)
          --interrupt S:N     SEQUENCE: drop N frames from index S, as an interruption (repeatable)
          --save-map FILE     SEQUENCE: write the world map (.waymap) when an interruption starts
                              and at the end
          --load-map FILE     SEQUENCE: start by relocalizing into this map's world; its anchors
                              are restored once found
          --place NAME:FRAME:X,Y
                              SEQUENCE: place a named anchor where pixel X,Y of frame FRAME meets
                              the surfaces, as a tap would (repeatable); kept in the world map
          --relocalization-timeout SECONDS
                              SEQUENCE: give relocalization up after this long (stream time) and
                              start a new world (default: keep trying)
          --goal GOAL         what coaching works towards (done once reached): tracking,
                              horizontal_surface, vertical_surface, any_surface (SEQUENCE default)
                              or image (VIDEO default)
          --language LANG     coaching messages in en (default), zh-Hans or zh-Hant
          --quiet             no progress and no warnings
          --help              this text
        """
    static let valueOptions: Set<String> = [
        "--references", "--group", "--output", "--annotate", "--intrinsics", "--depth-scale", "--gravity", "--fps",
        "--trajectory", "--interrupt", "--relocalization-timeout", "--save-map", "--load-map", "--place", "--language",
        "--goal", "--report",
    ]
    static let flagOptions: Set<String> = ["--auto-select", "--quiet", "--help"]
    static let schema = "waymark.process/3"

    static func run(_ arguments: Arguments) throws(WaymarkError) -> ExitCode {
        guard arguments.positionals.count == 1 else {
            throw WaymarkError(.usage, "process needs exactly one VIDEO, image FOLDER or SEQUENCE; see --help")
        }
        let input = arguments.positionals[0]
        // Parsed first: a bad --language or --goal is refused before any file is read.
        let isSequence = RGBDSequence.isSequence(input)
        let coaching = try arguments.coaching(defaultGoal: isSequence ? .anySurface : .image)
        if isSequence { return try SequenceProcessing.run(input, arguments: arguments, coaching: coaching) }
        let quiet = arguments.flag("--quiet")
        let intrinsics = try arguments.intrinsics()
        let loaded = try loadReferences(arguments, quiet: quiet)
        let references = loaded.references
        let video: any FrameSource = ImageFolderReader.isImageFolder(input)
            ? try ImageFolderReader(folder: input, framesPerSecond: try arguments.framesPerSecond())
            : try VideoReader(path: input)
        let output = try arguments.value("--output")
        let sink = try RecordSink(path: output)
        let report = try arguments.value("--report").map { (path: String) throws(WaymarkError) in
            try RunReport(path: path, input: input, coaching: coaching)
        }
        let annotation = try arguments.value("--annotate").map { (path: String) throws(WaymarkError) in
            try SessionAnnotation(
                path: path, width: video.width, height: video.height,
                framesPerSecond: video.framesPerSecond > 0 ? video.framesPerSecond : 30, language: coaching.language,
                intrinsics: intrinsics)
        }
        var configuration = SessionConfiguration()
        configuration.references = references
        configuration.imageTracking.detector = loaded.options
        configuration.surfaces = []
        configuration.relocalization = false
        configuration.coaching = coaching
        let session = try Session(configuration: configuration, input: SessionInput(
            width: video.width, height: video.height, hasDepth: false, intrinsics: intrinsics))
        if !quiet { for note in session.support.notes { Console.warning(note) } }
        try sink.write(header(input: input, video: video, references: references, arguments: arguments,
                              coaching: configuration.coaching))

        var progress = Progress(total: video.frameCount, quiet: quiet)
        let frame = Image(width: 1, height: 1, channels: 3)
        var index = 0
        var framesWithDetections = 0
        var failure: WaymarkError?
        while true {
            let timestamp: Double
            do {
                guard let t = try video.read(into: frame) else { break }
                timestamp = t
            } catch {
                failure = error
                break
            }
            let result = session.process(SessionFrame(timestamp: timestamp, image: frame))
            let found = result.detections
            if found.contains(where: { $0.state != .lost }) { framesWithDetections += 1 }
            try sink.write(
                .object([
                    ("type", .string("frame")), ("index", .int(index)), ("timestamp", .number(timestamp)),
                    ("detections", .array(found.map { $0.record(includeState: true) })),
                ] + SessionRecords.coaching(result.coaching)))
            try annotation?.write(result, on: frame, planes: session.planes)
            report?.add(result, image: frame, surfaces: 0)
            index += 1
            progress.update(frames: index)
        }
        progress.finish()
        if failure == nil, let expected = video.frameCount, index + max(2, expected / 50) < expected {
            // A stream that ends well before the container's own frame count broke off.
            failure = WaymarkError(.badData, "the video ended after \(index) of its \(expected) frames; it looks truncated")
        }
        var summary: [(String, JSONValue)] = [
            ("type", .string("summary")), ("frames", .int(index)), ("framesWithDetections", .int(framesWithDetections)),
            ("complete", .bool(failure == nil)),
        ]
        if let failure { summary.append(("error", .string("stopped after frame \(index): \(failure.message)"))) }
        try sink.write(.object(summary))
        try sink.finish()
        try annotation?.finish()
        try report?.write()
        if let failure {
            Console.error("\(input): stopped after \(index) frames: \(failure.message)")
            return ExitCode(failure.kind)
        }
        if !quiet, let output {
            Console.write("waymark: \(index) frames, references seen in \(framesWithDetections); results in \(output)\n")
        }
        return .ok
    }

    /// The header's description of coaching.
    static func coachingHeader(_ options: CoachingOptions) -> JSONValue {
        .object([("goal", .string(options.goal.rawValue)), ("language", .string(options.language.rawValue))])
    }

    private static func header(input: String, video: any FrameSource, references: [ReferenceImage], arguments: Arguments,
                               coaching: CoachingOptions) -> JSONValue
    {
        let versions = LibraryVersions.current
        return .object([
            ("type", .string("header")), ("schema", .string(schema)), ("waymark", .string(waymarkVersion)),
            ("opencv", .string(versions.opencv)), ("eigen", .string(versions.eigen)), ("input", .string(input)),
            (
                "video",
                .object([
                    ("width", .int(video.width)), ("height", .int(video.height)),
                    ("framesPerSecond", .number(video.framesPerSecond)),
                    ("frameCount", video.frameCount.map(JSONValue.int) ?? .null),
                ])
            ),
            (
                "references",
                .array(references.map { .object([("name", .string($0.name)), ("width", .int($0.width)), ("height", .int($0.height))]) })
            ),
            ("groups", .array(arguments.values("--group").map(JSONValue.string))),
            ("autoSelect", .bool(arguments.flag("--auto-select"))),
            ("coaching", coachingHeader(coaching)),
        ])
    }
}
