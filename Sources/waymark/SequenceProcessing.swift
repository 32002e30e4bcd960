import Foundation
import Waymark

/// `waymark process SEQUENCE`: an RGB-D recording (TUM layout or plain folder). Each frame is
/// tracked in a world that survives interruptions (a Session); its planes become world
/// anchors; with --references the colour frames are searched too.
enum SequenceProcessing {
    static func run(_ input: String, arguments: Arguments, coaching: CoachingOptions) throws(WaymarkError) -> ExitCode {
        let quiet = arguments.flag("--quiet")
        let sequence = try RGBDSequence(folder: input, framesPerSecond: try arguments.framesPerSecond())
        let (intrinsics, scale) = try camera(arguments, sequence: sequence, input: input)
        let recorded = try RecordedPoses(sequence, posesFile: nil)
        let dropped = try droppedFrames(arguments, frameCount: sequence.frames.count)
        let placements = try self.placements(arguments, frameCount: sequence.frames.count)
        let loaded = try arguments.value("--references") == nil ? nil : try loadReferences(arguments, quiet: quiet)
        let session = try makeSession(arguments, sequence: sequence, intrinsics: intrinsics, poses: recorded.source,
                                      loaded: loaded, coaching: coaching, objectToPlace: placements.first?.name)
        let savePath = try arguments.value("--save-map")
        let report = try arguments.value("--report").map { (path: String) throws(WaymarkError) in
            try RunReport(path: path, input: input, coaching: session.configuration.coaching)
        }
        let annotation = try arguments.value("--annotate").map { (path: String) throws(WaymarkError) in
            try SessionAnnotation(path: path, width: session.input.width, height: session.input.height,
                                  framesPerSecond: framesPerSecond(of: sequence),
                                  language: session.configuration.coaching.language, intrinsics: intrinsics)
        }
        let trajectoryPath = try arguments.value("--trajectory")
        var trajectory = Trajectory(samples: [])
        let output = try arguments.value("--output")
        let sink = try RecordSink(path: output)
        try sink.write(header(input, sequence: sequence, intrinsics: intrinsics, scale: scale, poses: recorded.source,
                              references: loaded?.references ?? [], coaching: session.configuration.coaching))
        var progress = Progress(total: sequence.frames.count, quiet: quiet)
        var failures = 0
        var firstFailure: WaymarkError?
        for (index, frame) in sequence.frames.enumerated() {
            progress.update(frames: index + 1)
            if dropped.contains(index) {
                // The first dropped frame starts the interruption: the map is saved now.
                if !dropped.contains(index - 1) {
                    let paused = session.pause()
                    if !paused.events.isEmpty {
                        report?.addInterruption(at: frame.timestamp)
                        try session.saveMap(to: savePath)
                        try sink.write(.object([
                            ("type", .string("interruption")), ("index", .int(index)), ("timestamp", .number(frame.timestamp)),
                            ("events", .array(paused.events.map(SessionRecords.record))),
                            ("anchorEvents", .array(paused.anchorEvents.map(SessionRecords.record))),
                        ]))
                    }
                }
                continue
            }
            var record: [(String, JSONValue)] = [
                ("type", .string("frame")), ("index", .int(index)), ("timestamp", .number(frame.timestamp)),
            ]
            do throws(WaymarkError) {
                let images = try loadFrame(frame, scale: scale, keepingColor: loaded != nil || annotation != nil)
                guard images.depth.width == session.input.width, images.depth.height == session.input.height else {
                    throw WaymarkError(.badData, "\(frame.depthPath) is \(images.depth.width)×\(images.depth.height), but the sequence's first frame is \(session.input.width)×\(session.input.height)")
                }
                let result = session.process(SessionFrame(timestamp: frame.timestamp, image: images.color ?? images.gray,
                                                          depth: images.depth, recordedPose: recorded.pose(ofFrame: index)))
                if result.interruptionStarted {
                    report?.addInterruption(at: frame.timestamp)
                    try session.saveMap(to: savePath)
                }
                record += SessionRecords.tracking(result, planes: session.planes)
                record += SessionRecords.coaching(result.coaching)
                if let pose = result.cameraToWorld { trajectory.samples.append(.init(timestamp: frame.timestamp, pose: pose)) }
                for placement in placements where placement.frame == index {
                    guard let added = session.place(placement.name, pixel: placement.pixel) else {
                        record.append(("placementFailed", .string(placement.name)))
                        if !quiet {
                            Console.warning("frame \(index): '\(placement.name)' could not be placed: no pose, or no surface along that pixel")
                        }
                        continue
                    }
                    record.append(("placed", SessionRecords.anchor(added, event: "added")))
                }
                if loaded != nil { record.append(("detections", .array(result.detections.map { $0.record(includeState: true) }))) }
                if let annotation {
                    let canvas = images.color ?? Image(width: images.gray.width, height: images.gray.height, channels: 3,
                                                       pixels: images.gray.pixels.flatMap { [$0, $0, $0] })
                    try annotation.write(result, on: canvas, planes: session.planes)
                    report?.add(result, image: canvas, surfaces: session.planes.anchors.count)
                } else {
                    report?.add(result, image: images.color ?? images.gray, surfaces: session.planes.anchors.count)
                }
            } catch {
                failures += 1
                if firstFailure == nil { firstFailure = error }
                if !record.contains(where: { $0.0 == "pose" }) { record.append(("pose", .null)) }
                record.append(("error", .string(error.message)))
            }
            try sink.write(.object(record))
        }
        progress.finish()
        try annotation?.finish()
        try report?.write()
        try session.saveMap(to: savePath)
        try sink.write(.object([
            ("type", .string("summary")), ("frames", .int(sequence.frames.count)), ("framesDropped", .int(dropped.count)),
            ("framesWithErrors", .int(failures)), ("complete", .bool(failures == 0)),
            ("interruptions", .int(session.interruptions)), ("relocalizations", .int(session.relocalizations)),
            ("keyframes", .int(session.tracker?.map.keyframes.count ?? 0)),
            ("planes", .array(session.planes.anchors.map {
                PlaneRecords.geometry($0.surface, id: $0.id, extra: [("observations", .int($0.observations))])
            })),
            ("anchors", .array(session.anchors.map { SessionRecords.anchor($0, event: "present") })),
        ]))
        try sink.finish()
        if let trajectoryPath {
            do {
                try Data(trajectory.tumText.utf8).write(to: URL(fileURLWithPath: trajectoryPath), options: .atomic)
            } catch {
                throw WaymarkError(.cannotCreateOutput, "cannot write the trajectory to \(trajectoryPath): \(error.localizedDescription)")
            }
        }
        if let firstFailure {
            Console.error("\(input): \(failures) of \(sequence.frames.count) frames could not be used; the first: \(firstFailure.message)")
            return ExitCode(firstFailure.kind)
        }
        if !quiet, let output {
            Console.write("waymark: \(sequence.frames.count) frames, \(session.planes.anchors.count) surfaces; results in \(output)\n")
        }
        return .ok
    }

    /// The intrinsics (--intrinsics, else the sequence's intrinsics.txt) and metres per depth
    /// unit (--depth-scale, else TUM's 0.0002 or millimetres) of a sequence.
    static func camera(_ arguments: Arguments, sequence: RGBDSequence, input: String) throws(WaymarkError)
        -> (intrinsics: Intrinsics, depthScale: Double)
    {
        guard let intrinsics = try arguments.intrinsics() ?? sequence.intrinsics else {
            throw WaymarkError(.usage, "\(input) has no intrinsics.txt: --intrinsics fx,fy,cx,cy is needed to turn depth into points")
        }
        return (intrinsics, try arguments.depthScale() ?? (sequence.layout == .tum ? 0.0002 : 0.001))
    }

    /// The session for a sequence: tracking options from the arguments, gravity in the poses'
    /// world, the map of --load-map to relocalize into, and coaching (--goal, --language).
    static func makeSession(_ arguments: Arguments, sequence: RGBDSequence, intrinsics: Intrinsics,
                            poses: RecordedPoses.Source,
                            loaded: (references: [ReferenceImage], options: ImageDetectorOptions)? = nil,
                            coaching: CoachingOptions = CoachingOptions(), objectToPlace: String? = nil)
        throws(WaymarkError) -> Session
    {
        var configuration = SessionConfiguration()
        if !sequence.frames.allSatisfy({ $0.colorPath != nil }) { configuration.tracking.odometry = .icp }
        if let timeout = try arguments.value("--relocalization-timeout") {
            guard let seconds = Double(timeout), seconds > 0 else {
                throw WaymarkError(.usage, "--relocalization-timeout must be a positive number of seconds; got '\(timeout)'")
            }
            configuration.tracking.relocalizationTimeout = seconds
        }
        // The odometry's world is the first camera's, whose down (+y) stands in for gravity.
        if poses == .odometry { configuration.planeMap.down = SIMD3(0, 1, 0) }
        if let gravity = try arguments.value("--gravity") { configuration.planeMap.down = try PlanesCommand.parseGravity(gravity) }
        configuration.worldMap = try arguments.value("--load-map").map { (path: String) throws(WaymarkError) in
            try WorldMap(contentsOf: path)
        }
        if let loaded {
            configuration.references = loaded.references
            configuration.imageTracking.detector = loaded.options
        }
        configuration.coaching = coaching
        configuration.objectToPlace = objectToPlace
        let size = try sequenceSize(sequence)
        return try Session(configuration: configuration, input: SessionInput(
            width: size.width, height: size.height, hasDepth: true, hasRecordedPoses: poses != .odometry,
            intrinsics: intrinsics))
    }

    /// Frames per second of a recording: from its median frame interval (gaps aside).
    static func framesPerSecond(of sequence: RGBDSequence) -> Double {
        let steps = zip(sequence.frames, sequence.frames.dropFirst()).map { $1.timestamp - $0.timestamp }.filter { $0 > 0 }.sorted()
        guard !steps.isEmpty else { return 30 }
        return 1 / steps[steps.count / 2]
    }

    /// The frame size of a sequence: its first depth image's.
    static func sequenceSize(_ sequence: RGBDSequence) throws(WaymarkError) -> (width: Int, height: Int) {
        guard let first = sequence.frames.first else { throw WaymarkError(.badData, "the sequence has no frames") }
        let depth = try DepthImage(contentsOf: first.depthPath, scale: 0.001)
        return (depth.width, depth.height)
    }

    /// --place NAME:FRAME:X,Y (repeatable): a named anchor placed where pixel (X, Y) of frame
    /// FRAME meets the surfaces, as a person would tap it.
    static func placements(_ arguments: Arguments, frameCount: Int) throws(WaymarkError)
        -> [(name: String, frame: Int, pixel: SIMD2<Double>)]
    {
        try arguments.values("--place").map { (text: String) throws(WaymarkError) in
            let parts = text.split(separator: ":", omittingEmptySubsequences: false)
            let xy = parts.count == 3 ? parts[2].split(separator: ",").map { Double($0) } : []
            guard parts.count == 3, !parts[0].isEmpty, let frame = Int(parts[1]), (0..<frameCount).contains(frame),
                xy.count == 2, let x = xy[0], let y = xy[1]
            else {
                throw WaymarkError(.usage, "--place must be NAME:FRAME:X,Y with FRAME a frame index (0–\(frameCount - 1)); got '\(text)'")
            }
            return (String(parts[0]), frame, SIMD2(x, y))
        }
    }

    /// Frame indices --interrupt START:COUNT (repeatable) drops.
    static func droppedFrames(_ arguments: Arguments, frameCount: Int) throws(WaymarkError) -> Set<Int> {
        var dropped = Set<Int>()
        for text in arguments.values("--interrupt") {
            let parts = text.split(separator: ":").map { Int($0) }
            guard parts.count == 2, let start = parts[0], let count = parts[1], start >= 0, count > 0 else {
                throw WaymarkError(.usage, "--interrupt must be START:COUNT, frame index and number of frames to drop; got '\(text)'")
            }
            guard start < frameCount else {
                throw WaymarkError(.usage, "--interrupt \(text) starts after the last frame (\(frameCount - 1))")
            }
            dropped.formUnion(start..<min(frameCount, start + count))
        }
        return dropped
    }

    private static func header(
        _ input: String, sequence: RGBDSequence, intrinsics: Intrinsics, scale: Double, poses: RecordedPoses.Source,
        references: [ReferenceImage], coaching: CoachingOptions
    ) -> JSONValue {
        let versions = LibraryVersions.current
        return .object([
            ("type", .string("header")), ("schema", .string(ProcessCommand.schema)), ("waymark", .string(waymarkVersion)),
            ("opencv", .string(versions.opencv)), ("eigen", .string(versions.eigen)), ("input", .string(input)),
            ("sequence", .object([
                ("layout", .string(sequence.layout.rawValue)), ("frameCount", .int(sequence.frames.count)),
                ("intrinsics", .numbers([intrinsics.fx, intrinsics.fy, intrinsics.cx, intrinsics.cy])),
                ("depthScale", .number(scale)), ("poses", .string(poses.rawValue)),
            ])),
            ("references", .array(references.map { .string($0.name) })),
            ("coaching", ProcessCommand.coachingHeader(coaching)),
        ])
    }
}
