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
        from FILE (TUM format, camera-to-world, matched to frames within 20 ms), else the
        sequence's groundtruth.txt, else the engine's own RGB-D odometry (world = first camera).
        Surfaces found in the depth are stored as plane anchors. The file is written atomically.
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
        guard let intrinsics = try arguments.intrinsics() ?? sequence.intrinsics else {
            throw WaymarkError(.usage, "\(input) has no intrinsics.txt: --intrinsics fx,fy,cx,cy is needed")
        }
        let scale = try arguments.depthScale() ?? (sequence.layout == .tum ? 0.0002 : 0.001)
        var tracking = try SequenceTracking(sequence, posesFile: try arguments.value("--poses"), intrinsics: intrinsics)
        let map = WorldMap()
        var planeOptions = PlaneMapOptions()
        // Odometry's world is the first camera's, whose down (+y) stands in for gravity.
        if tracking.source == .odometry { planeOptions.down = SIMD3(0, 1, 0) }
        var planes = PlaneMap(options: planeOptions)
        let detector = try PlaneDetector()
        var progress = Progress(total: sequence.frames.count, quiet: arguments.flag("--quiet"))
        var used = 0
        for (index, frame) in sequence.frames.enumerated() {
            let images = try loadFrame(frame, scale: scale)
            progress.update(frames: index + 1)
            guard let pose = tracking.pose(ofFrame: index, images: images) else { continue }
            used += 1
            let detection = detector.detect(in: images.depth, intrinsics: intrinsics, down: pose.applyInverseRotation(planeOptions.down))
            _ = planes.integrate(detection, cameraToWorld: pose)
            guard map.needsKeyframe(at: pose) else { continue }
            map.add(Keyframe(id: map.nextKeyframeID, timestamp: frame.timestamp, gray: images.gray, depth: images.depth.metres,
                             cameraToWorld: pose, intrinsics: intrinsics))
        }
        progress.finish()
        guard map.pointCount > 0 else {
            throw WaymarkError(.badData, "\(input): no frame gave a keyframe with features at known depth; no map written")
        }
        map.anchors = planes.anchors.map(WorldAnchor.init(plane:))
        try map.write(to: output)
        let sink = try RecordSink(path: nil)
        try sink.write(.object([
            ("map", .string(output)), ("keyframes", .int(map.keyframes.count)), ("points", .int(map.pointCount)),
            ("anchors", .int(map.anchors.count)), ("frames", .int(sequence.frames.count)), ("framesUsed", .int(used)),
            ("poses", .string(tracking.source.rawValue)),
        ]))
        try sink.finish()
        return .ok
    }
}

extension WorldAnchor {
    /// A world plane anchor: x and z along the surface's rectangle, y its normal.
    init(plane anchor: PlaneAnchor) {
        let s = anchor.surface
        let y = s.plane.normal
        let (x, z) = (s.axisU, s.axisV)
        // Columns x, y, z; z flipped if needed so the frame is right-handed.
        let handed = (x.y * y.z - x.z * y.y) * z.x + (x.z * y.x - x.x * y.z) * z.y + (x.x * y.y - x.y * y.x) * z.z
        let zz = handed < 0 ? -z : z
        self.init(id: anchor.id, kind: .plane, name: s.classification.rawValue,
                  transform: RigidTransform(rotation: [x.x, y.x, zz.x, x.y, y.y, zz.y, x.z, y.z, zz.z],
                                            translation: [s.center.x, s.center.y, s.center.z]),
                  extent: s.extent)
    }
}
