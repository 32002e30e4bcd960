import Foundation
import Waymark
import WaymarkRecords

enum MapBuildCommand: Command {
    static let name = "map build"
    static let help = """
        Usage: waymark map build SEQUENCE --output MAP.waymap [--poses FILE] [--intrinsics fx,fy,cx,cy]
                                 [--depth-scale S] [--fps N] [--quiet]

        Builds a world map from an RGB-D SEQUENCE (TUM layout or plain folder, with colour): a
        keyframe wherever a frame tracks less than half of the points of the keyframe it shares
        most with, holding its features and their 3D positions from depth, in the world of the
        poses. A colour SEQUENCE without depth (rgb.txt alone) needs poses: a keyframe every
        5 cm or 5°, its features' positions triangulated with its nearest keyframes. The poses come
        from FILE (TUM format, camera-to-world; frames and poses paired within 20 ms, closest
        first, each used once, as TUM's associate.py pairs them), else the
        sequence's groundtruth.txt, else the engine's own tracking (world = first camera).
        Surfaces found in the depth are stored as plane anchors. The file is written atomically,
        at the end and whenever the sequence is interrupted (a time jump over 0.5 s, or over
        three frame intervals when that is longer), after which the camera is relocalized in
        the map before it grows again.
        A frame that cannot be read is left out and the map built from the others; the exit code
        then says so. Prints one JSON line (schema "waymark.map-build/1", see docs/OUTPUT.md):
        {"schema", "map", "keyframes", "points", "anchors", "frames", "framesUsed",
        "framesWithErrors", "imagesLeftOut", "poses"}.

        Options:
          --output FILE       the .waymap file to write (replaced only once complete)
          --poses FILE        camera-to-world poses, TUM format
          --intrinsics LIST   fx,fy,cx,cy in pixels (default: the sequence's intrinsics.txt)
          --depth-scale S     metres per depth unit (default 0.0002 for TUM; else 0.001 for 16-bit
                              and 1 for float depth images)
          --fps N             plain-folder SEQUENCE: frames per second (default 30)
        \(Arguments.limitHelp)
          --quiet             no progress
          --help              this text
        """
    static let valueOptions: Set<String> = ["--max-megapixels", "--output", "--poses", "--intrinsics", "--depth-scale", "--fps"]
    static let flagOptions: Set<String> = ["--help", "--quiet"]

    static func run(_ arguments: Arguments) throws(WaymarkError) -> ExitCode {
        guard arguments.positionals.count == 1 else { throw WaymarkError(.usage, "map build needs exactly one SEQUENCE; see --help") }
        let input = arguments.positionals[0]
        let output = try arguments.required("--output")
        let quiet = arguments.flag("--quiet")
        let source = try SessionSetup.openSource(input, arguments: arguments, decodesColor: false,
                                                 posesFile: try arguments.value("--poses"))
        guard source.info.hasDepth || source.info.recordedPoses != nil else {
            throw WaymarkError(.usage, "\(input) has no depth and no poses: a map from colour alone needs the camera's poses "
                               + "(--poses FILE or groundtruth.txt)")
        }
        guard source.info.hasColor else {
            throw WaymarkError(.badData, "\(input) has depth without colour: keyframes need colour images")
        }
        var plan = OutputPlan(inputs: source.files)
        try plan.claim(output, for: "--output")
        if !source.info.hasDepth {
            guard let intrinsics = source.info.intrinsics else {
                throw WaymarkError(.usage, "\(input) has no intrinsics.txt: a map from colour alone needs the camera's "
                                   + "intrinsics (--intrinsics fx,fy,cx,cy)")
            }
            return try buildFromColour(source, intrinsics: intrinsics, input: input, output: output)
        }
        let session = try SessionSetup.makeSession(arguments, source: source.info)
        if !quiet { for note in source.info.notes { Console.warning(note) } }
        let runner = SessionRunner(source: source, session: session, outputs: SessionRunner.Outputs(mapPath: output),
                                   quiet: quiet)
        let outcome = try runner.run()
        guard let map = session.worldMap, map.hasPoints else {
            throw WaymarkError(.badData, "\(input): no frame gave a keyframe with features at known depth; no map written")
        }
        try map.write(to: output)
        let sink = try RecordSink(path: nil)
        try sink.write(MapBuildRecord(map: output, map, frames: outcome.frames, framesUsed: outcome.framesWithPose,
                                      framesWithErrors: outcome.framesWithErrors, imagesLeftOut: source.info.imagesLeftOut,
                                      poses: source.info.recordedPoses?.rawValue ?? "odometry"))
        try sink.finish()
        if let first = outcome.stopped ?? outcome.firstFrameError {
            Console.error("\(input): \(outcome.framesWithErrors) of \(outcome.frames) frames could not be used; the first: \(first.message)")
        }
        return outcome.exitCode
    }

    private static func buildFromColour(_ source: any FrameSource, intrinsics: Intrinsics, input: String, output: String)
        throws(WaymarkError) -> ExitCode
    {
        let outcome = try ColourMapBuild.build(source, intrinsics: intrinsics)
        guard outcome.map.hasPoints else {
            throw WaymarkError(.badData, "\(input): no two posed views share features with enough parallax; no map written")
        }
        try outcome.map.write(to: output)
        let sink = try RecordSink(path: nil)
        try sink.write(MapBuildRecord(map: output, outcome.map, frames: outcome.frames, framesUsed: outcome.framesUsed,
                                      framesWithErrors: outcome.framesWithErrors, imagesLeftOut: source.info.imagesLeftOut,
                                      poses: source.info.recordedPoses?.rawValue ?? "file"))
        try sink.finish()
        if let first = outcome.firstError {
            Console.error("\(input): \(outcome.framesWithErrors) of \(outcome.frames) frames could not be used; the first: \(first.message)")
            return ExitCode(first.kind)
        }
        return .ok
    }
}
