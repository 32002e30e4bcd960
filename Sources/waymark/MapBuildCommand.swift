import Foundation
import Waymark

enum MapBuildCommand: Command {
    static let name = "map build"
    static let help = """
        Usage: waymark map build SEQUENCE --output MAP.waymap [--poses FILE] [--intrinsics fx,fy,cx,cy]
                                 [--depth-scale S] [--fps N] [--quiet]

        Builds a world map from an RGB-D SEQUENCE (TUM layout or plain folder, with colour): a
        keyframe wherever the camera is 15 cm or 15° from every earlier keyframe, holding its
        features and their 3D positions from depth, in the world of the poses. The poses come
        from FILE (TUM format, camera-to-world; each frame gets the pose nearest in time within
        20 ms, each pose used once, as TUM's associate.py pairs them), else the
        sequence's groundtruth.txt, else the engine's own RGB-D odometry (world = first camera).
        Surfaces found in the depth are stored as plane anchors. The file is written atomically,
        at the end and whenever the sequence is interrupted (a time jump over 0.5 s), after which
        the camera is relocalized in the map before it grows again.
        Prints one JSON line: {"map", "keyframes", "points", "anchors", "frames", "framesUsed", "poses"}.

        Options:
          --output FILE       the .waymap file to write (replaced only once complete)
          --poses FILE        camera-to-world poses, TUM format
          --intrinsics LIST   fx,fy,cx,cy in pixels (default: the sequence's intrinsics.txt)
          --depth-scale S     metres per depth unit (default 0.0002 for TUM, else 0.001)
          --fps N             plain-folder SEQUENCE: frames per second (default 30)
          --quiet             no progress
          --help              this text
        """
    static let valueOptions: Set<String> = ["--output", "--poses", "--intrinsics", "--depth-scale", "--fps"]
    static let flagOptions: Set<String> = ["--help", "--quiet"]

    static func run(_ arguments: Arguments) throws(WaymarkError) -> ExitCode {
        guard arguments.positionals.count == 1 else { throw WaymarkError(.usage, "map build needs exactly one SEQUENCE; see --help") }
        let input = arguments.positionals[0]
        let output = try arguments.required("--output")
        let sequence = try RGBDSequence(folder: input, framesPerSecond: try arguments.framesPerSecond())
        guard sequence.frames.allSatisfy({ $0.colorPath != nil }) else {
            throw WaymarkError(.badData, "\(input) has depth without colour: keyframes need colour images")
        }
        let (intrinsics, scale) = try SequenceProcessing.camera(arguments, sequence: sequence, input: input)
        let recorded = try RecordedPoses(sequence, posesFile: try arguments.value("--poses"))
        let session = try SequenceProcessing.makeSession(arguments, sequence: sequence, intrinsics: intrinsics,
                                                         poses: recorded.source)
        var progress = Progress(total: sequence.frames.count, quiet: arguments.flag("--quiet"))
        var used = 0
        for (index, frame) in sequence.frames.enumerated() {
            let images = try loadFrame(frame, scale: scale)
            guard images.depth.width == session.input.width, images.depth.height == session.input.height else {
                throw WaymarkError(.badData, "\(frame.depthPath) is not the size of the sequence's first frame")
            }
            progress.update(frames: index + 1)
            let result = session.process(SessionFrame(timestamp: frame.timestamp, image: images.gray, depth: images.depth,
                                                      recordedPose: recorded.pose(ofFrame: index)))
            if result.interruptionStarted {
                try session.saveMap(to: output)
            }
            if result.cameraToWorld != nil { used += 1 }
        }
        progress.finish()
        guard let map = session.worldMap, map.hasPoints else {
            throw WaymarkError(.badData, "\(input): no frame gave a keyframe with features at known depth; no map written")
        }
        try session.saveMap(to: output)
        let sink = try RecordSink(path: nil)
        try sink.write(.object([
            ("map", .string(output)), ("keyframes", .int(map.keyframes.count)), ("points", .int(map.pointCount)),
            ("anchors", .int(map.anchors.count)), ("frames", .int(sequence.frames.count)), ("framesUsed", .int(used)),
            ("poses", .string(recorded.source.rawValue)),
        ]))
        try sink.finish()
        return .ok
    }
}
