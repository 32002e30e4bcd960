import Foundation
import Waymark

/// `waymark process SEQUENCE`: an RGB-D recording (TUM layout or plain folder). Each frame's
/// planes are found in its depth; with poses they become world anchors and the frame record
/// carries the anchors' events; with --references the colour frames are searched too.
enum SequenceProcessing {
    static func run(_ input: String, arguments: Arguments) throws(WaymarkError) -> ExitCode {
        let quiet = arguments.flag("--quiet")
        let sequence = try RGBDSequence(folder: input, framesPerSecond: try arguments.framesPerSecond())
        guard let intrinsics = try arguments.intrinsics() ?? sequence.intrinsics else {
            throw WaymarkError(.usage, "\(input) has no intrinsics.txt: --intrinsics fx,fy,cx,cy is needed to turn depth into points")
        }
        let scale = try arguments.depthScale() ?? (sequence.layout == .tum ? 0.0002 : 0.001)
        var mapOptions = PlaneMapOptions()
        // Without recorded poses the engine's odometry tracks the camera, in a world fixed to
        // the first camera (whose down, +y, stands in for gravity unless --gravity says otherwise).
        var tracking = try SequenceTracking(sequence, posesFile: nil, intrinsics: intrinsics)
        if tracking.source == .odometry { mapOptions.down = SIMD3(0, 1, 0) }
        if let gravity = try arguments.value("--gravity") { mapOptions.down = try PlanesCommand.parseGravity(gravity) }
        let trajectoryPath = try arguments.value("--trajectory")
        var trajectory = Trajectory(samples: [])
        var map = PlaneMap(options: mapOptions)
        let detector = try PlaneDetector()
        let loaded = try arguments.value("--references") == nil ? nil : try loadReferences(arguments, quiet: quiet)
        let tracker = loaded.map { loaded in
            var options = ImageTrackerOptions()
            options.detector = loaded.options
            return ImageTracker(references: loaded.references, options: options)
        }
        let output = try arguments.value("--output")
        let sink = try RecordSink(path: output)
        try sink.write(header(input, sequence: sequence, intrinsics: intrinsics, scale: scale, poses: tracking.source,
                              references: loaded?.references ?? []))
        var progress = Progress(total: sequence.frames.count, quiet: quiet)
        var failures = 0
        var firstFailure: WaymarkError?
        for (index, frame) in sequence.frames.enumerated() {
            var record: [(String, JSONValue)] = [
                ("type", .string("frame")), ("index", .int(index)), ("timestamp", .number(frame.timestamp)),
            ]
            do throws(WaymarkError) {
                let images = tracking.needsImages ? try loadFrame(frame, scale: scale) : nil
                let depth = if let images { images.depth } else { try DepthImage(contentsOf: frame.depthPath, scale: scale) }
                let cameraToWorld = tracking.pose(ofFrame: index, images: images)
                record.append(("pose", cameraToWorld.map { .numbers($0.matrix) } ?? .null))
                if let cameraToWorld { trajectory.samples.append(.init(timestamp: frame.timestamp, pose: cameraToWorld)) }
                let down = cameraToWorld.map { $0.applyInverseRotation(mapOptions.down) } ?? SIMD3(0, 1, 0)
                let detection = detector.detect(in: depth, intrinsics: intrinsics, down: down)
                var anchorIDs = [Int?](repeating: nil, count: detection.planes.count)
                var events: [JSONValue] = []
                if let pose = cameraToWorld {
                    let update = map.integrate(detection, cameraToWorld: pose)
                    anchorIDs = update.anchorIDs
                    events = update.events.map { PlaneRecords.event($0, map: map) }
                }
                record.append(("planes", .array(detection.planes.enumerated().map { k, plane in
                    PlaneRecords.geometry(plane, id: k + 1, extra: [("anchor", anchorIDs[k].map(JSONValue.int) ?? .null)])
                })))
                record.append(("planeEvents", .array(events)))
                if let tracker, let colorPath = frame.colorPath {
                    let found = tracker.process(try Image(contentsOf: colorPath, gray: false), intrinsics: intrinsics)
                    record.append(("detections", .array(found.map { $0.record(includeState: true) })))
                }
            } catch {
                failures += 1
                if firstFailure == nil { firstFailure = error }
                if !record.contains(where: { $0.0 == "pose" }) { record.append(("pose", .null)) }
                record.append(("error", .string(error.message)))
            }
            try sink.write(.object(record))
            progress.update(frames: index + 1)
        }
        progress.finish()
        try sink.write(.object([
            ("type", .string("summary")), ("frames", .int(sequence.frames.count)), ("framesWithErrors", .int(failures)),
            ("complete", .bool(failures == 0)),
            ("planes", .array(map.anchors.map { PlaneRecords.geometry($0.surface, id: $0.id, extra: [("observations", .int($0.observations))]) })),
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
            Console.write("waymark: \(sequence.frames.count) frames, \(map.anchors.count) surfaces; results in \(output)\n")
        }
        return .ok
    }

    private static func header(
        _ input: String, sequence: RGBDSequence, intrinsics: Intrinsics, scale: Double, poses: SequenceTracking.Source,
        references: [ReferenceImage]
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
        ])
    }
}
