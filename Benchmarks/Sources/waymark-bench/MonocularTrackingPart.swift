import Foundation
import TestData
import TestSupport
import Waymark

/// `waymark-bench tracking --part monocular`: the engine's tracking from colour frames alone
/// (`MonocularTracker`) on the walk-through's scan, the coaching walk-through (its scripted
/// trouble and interruption included) and the TUM fr1/xyz excerpt, each read as a colour-only
/// TUM folder (kind `tum_color`), next to OpenCV's essential matrices chained frame to frame
/// (tracking_baseline.py's monocular mode).
extension TrackingSuite {
    struct MonocularReply: Decodable {
        struct Track: Decodable {
            /// Each step scaled by the truth's first step, and each by its own true length.
            var firstStep: [[Double]?]
            var everyStep: [[Double]?]
            var ms: [Double]
        }
        var opencv: String
        var sequences: [String: Track]
    }

    func monocular() throws {
        print("### From colour frames alone\n")
        print("The engine's monocular tracking (`MonocularTracker`: two-view initialization, ORB features matched by "
              + "projection against the reference keyframe's neighbourhood, keyframes that triangulate new points with "
              + "their neighbours and adjust their neighbourhood with Ceres, keyframes moved too), one thread, its features "
              + "included, on the colour images alone (a colour-only TUM folder: rgb.txt, no depth), truth at the colour "
              + "images' times. Without depth the scale is unknown: ATE RMSE after a similarity alignment (evo_ape -as), "
              + "also as a share of the true path's length over the frames with a pose. The baseline is what a user would "
              + "write with OpenCV: ORB (2000) matched to the previous frame (ratio 0.8), `findEssentialMat` (RANSAC, 1 px) "
              + "and `recoverPose`, chained, each step scaled by the truth's first step (the issue's baseline) or, "
              + "more generously, by its own true length; its whole per-frame work timed (features too), one thread.\n")
        var sequences: [Sequence] = []
        if let posters = Walkthrough.installedPosterFolder() {
            let walk = try Walkthrough(posterFolder: posters, width: 640, height: 480, framesPerSecond: 30)
            let scan = walk.frames.prefix { $0.segment == .scan }.map(\.cameraToWorld)
            let scanned = walk.along(scan)
            var written = try colorOnly(write(scanned, name: "monocular walk-through scan"))
            written.surfaces = walk.surfaces.map { ($0.name, $0.plane) }
            written.normalFrames = scan.map { _ in true }
            written.earliestStart = scanned.earliestTwoViewStart()
            written.posters = try walk.posters.map {
                try ReferenceImage(entry: ReferenceEntry(name: $0.name, path: $0.imagePath, physicalWidth: $0.physicalWidth))
            }
            sequences.append(written)
            // The same room and path with other textures and another shake: measured, not tuned on.
            let other = try Walkthrough(posterFolder: posters, width: 640, height: 480, framesPerSecond: 30, seed: 2)
            let otherScan = other.frames.prefix { $0.segment == .scan }.map(\.cameraToWorld)
            let otherScanned = other.along(otherScan)
            var validation = try colorOnly(write(otherScanned, name: "monocular walk-through scan, seed 2"))
            validation.split = "validation"
            validation.surfaces = other.surfaces.map { ($0.name, $0.plane) }
            validation.normalFrames = otherScan.map { _ in true }
            validation.earliestStart = otherScanned.earliestTwoViewStart()
            validation.posters = try other.posters.map {
                try ReferenceImage(entry: ReferenceEntry(name: $0.name, path: $0.imagePath, physicalWidth: $0.physicalWidth))
            }
            sequences.append(validation)
            let coaching = try Walkthrough(posterFolder: posters, width: 640, height: 480, framesPerSecond: 30, script: .coaching)
            var troubled = try colorOnly(write(coaching, name: "monocular coaching walk-through"))
            troubled.normalFrames = coaching.frames.map { [.scan, .returnView].contains($0.segment) }
            troubled.earliestStart = coaching.earliestTwoViewStart()
            (troubled.posters, troubled.surfaces) = (written.posters, written.surfaces)
            sequences.append(troubled)
        }
        if let folder = SharedDatasets.path(BookCoverVideo.folder) {
            let k = Self.fr1
            sequences.append(try colorOnly(Sequence(
                name: "TUM fr1/xyz excerpt, colour", folder: folder,
                intrinsics: Intrinsics(fx: k.fx, fy: k.fy, cx: k.cx + 0.5, cy: k.cy + 0.5),
                depthScale: WalkthroughWriter.depthScale, split: "validation")))
        }
        let sources = try sequences.map { try openColor($0) }
        let reply = try baseline.map { try $0.run(task: monocularTask(sequences, sources), as: MonocularReply.self) }
        if let reply { print("Baseline: OpenCV \(reply.opencv).\n") }
        print("| sequence | split | frames | tracker | ATE RMSE cm (similarity) | ATE % of path | frames with a pose | keyframes | ms per frame, median | p90 | frames per second (mean time) |")
        print("|---|---|---|---|---|---|---|---|---|---|---|")
        var metricLines: [String] = []
        var surfaceLines: [String] = []
        var firstHorizontalLines: [String] = []
        var normalLines: [String] = []
        for (sequence, source) in zip(sequences, sources) {
            let truth = source.frames.map(\.cameraToWorld)
            let times = source.frames.map(\.timestamp)
            var runs: [(String, Run)] = [("Waymark", try oursMonocular(try openColor(sequence), sequence))]
            var metric: MetricSession?
            var sceneGravity: MetricSession?
            var byHeight: MetricSession?
            if let posters = sequence.posters {
                metric = try metricSession(try openColor(sequence, decodesColor: true), sequence, posters: posters,
                                                framesCarryGravity: true)
                sceneGravity = try metricSession(try openColor(sequence, decodesColor: true), sequence, posters: posters,
                                                      framesCarryGravity: false)
                // No poster: the scale from the camera's height, the truth's mean (as a person would know it roughly).
                let heights = truth.compactMap { $0?.translationVector.y }
                byHeight = try metricSession(try openColor(sequence, decodesColor: true), sequence, posters: [],
                                                  framesCarryGravity: false,
                                                  cameraHeight: heights.reduce(0, +) / Double(heights.count))
            }
            if let track = reply?.sequences[sequence.name] {
                runs.append(("OpenCV essential chained, first step's scale", Run(poses: poses(track.firstStep), ms: track.ms)))
                runs.append(("OpenCV essential chained, every step's scale", Run(poses: poses(track.everyStep), ms: track.ms)))
            }
            for (tracker, run) in runs {
                let ate = try errors(run.poses, truth: truth, times: times, alignment: .similarity).ate
                let posedTruth: [RigidTransform] = run.poses.indices.compactMap { run.poses[$0] == nil ? nil : truth[$0] }
                let length = pathLength(posedTruth)
                let posed = run.poses.compactMap { $0 }.count
                print("| \(sequence.name) | \(sequence.split) | \(truth.count) | \(tracker) | \(format(ate * 100, 3)) | "
                      + "\(format(100 * ate / length, 2)) | \(posed)/\(truth.count) | \(run.keyframes.map(String.init) ?? "") | "
                      + "\(format(Summary(run.ms).median, 1)) | \(format(Summary(run.ms).p90, 1)) | "
                      + "\(format(1000 * Double(run.ms.count) / run.ms.reduce(0, +), 0)) |")
                let name = "tracking.\(Figures.slug(sequence.name)).\(Figures.slug(tracker))"
                figures.record("\(name).ate_cm", ate * 100)
                figures.record("\(name).ate_percent_of_path", 100 * ate / length)
                figures.record("\(name).posed_share", Double(posed) / Double(truth.count))
                figures.record("\(name).frames_per_second", 1000 * Double(run.ms.count) / run.ms.reduce(0, +))
                if let normal = sequence.normalFrames {
                    let inNormal = normal.indices.filter { normal[$0] }
                    let posedThere = inNormal.filter { run.poses[$0] != nil }.count
                    let start = sequence.earliestStart ?? 0
                    let startable = inNormal.filter { $0 >= start }
                    let posedStartable = startable.filter { run.poses[$0] != nil }.count
                    normalLines.append("| \(sequence.name) | \(tracker) | \(posedThere)/\(inNormal.count) | "
                                       + "\(format(100 * Double(posedThere) / Double(inNormal.count), 1)) | "
                                       + "\(sequence.earliestStart.map(String.init) ?? "") | \(posedStartable)/\(startable.count) | "
                                       + "\(format(100 * Double(posedStartable) / Double(max(1, startable.count)), 1)) |")
                    figures.record("\(name).posed_share_in_normal_segments", Double(posedThere) / Double(inNormal.count))
                }
            }
            for (fixedBy, session) in [("sized posters", metric), ("the camera's height", byHeight)] {
                guard let session else { continue }
                let after = session.run.poses.indices.map { $0 >= session.fixedAt ? session.run.poses[$0] : nil }
                let ate = try errors(after, truth: truth, times: times, alignment: .rigid).ate
                let aligned = try errors(after, truth: truth, times: times, alignment: .similarity).ate
                metricLines.append("| \(sequence.name) | \(fixedBy) | \(session.fixedAt) | \(format(session.factor, 3)) | "
                                   + "\(after.compactMap { $0 }.count) | \(format(ate * 100, 2)) | \(format(aligned * 100, 2)) |")
                let figure = fixedBy == "sized posters" ? "metric_ate_cm" : "camera_height.metric_ate_cm"
                figures.record("tracking.\(Figures.slug(sequence.name)).\(figure)", ate * 100)
            }
            if let metric {
                let after = metric.run.poses.indices.map { $0 >= metric.fixedAt ? metric.run.poses[$0] : nil }
                for (gravity, session) in [("accelerometer", metric), ("estimated", sceneGravity)] {
                    guard let session else { continue }
                    let scored = surfaceErrors(session.anchors, poses: after, truth: truth, sequence: sequence)
                    surfaceLines += scored.map { "| \(sequence.name) | \(gravity) | " + $0.line }
                    let found = scored.filter { $0.degrees <= 3 && $0.centimetres <= 3 }.count
                    let name = "tracking.\(Figures.slug(sequence.name)).sparse_surfaces.\(gravity)"
                    figures.record("\(name).anchors_within_3deg_3cm", Double(found))
                    figures.record("\(name).anchors", Double(scored.count))
                    let first = session.firstHorizontal.map { format(times[$0] - times[0], 2) + " s" } ?? "never"
                    let downError = gravityError(session.down, poses: after, truth: truth)
                    figures.record("\(name).gravity_error_degrees", downError)
                    firstHorizontalLines.append("| \(sequence.name) | \(gravity) | \(format(downError, 2)) | \(first) | "
                                                + "\(found) of \(scored.count) |")
                }
            }
        }
        print()
        printTable("Frames with a pose in the stretches without scripted trouble (the scan and the return to the map; "
                   + "not the darkness, the shaking, the plain wall or the views after the interruption); and the same "
                   + "from the earliest frame a two-view start could use: the first whose rays to what the first frame "
                   + "sees (its rendered depth) meet the first frame's at a median of 1° (ORB-SLAM's rule, "
                   + "`TwoViewInitializationOptions.minimumParallaxDegrees`). The walk-through's legs start from rest, "
                   + "so the camera has moved a few centimetres by then:",
                   columns: ["sequence", "tracker", "frames with a pose", "%", "earliest two-view start (frame)",
                             "frames with a pose from it", "%"], rows: normalLines)
        printTable("The same frames through a `Session` with the walk-through's four posters as references (their physical "
                   + "widths known): the world becomes metric when five frames have measured a poster's plane against the "
                   + "map points on it (`scale_fixed`); or without posters, by the camera's height above the floor (the "
                   + "truth's mean, `--scale-from camera-height`) once five keyframes have measured it on the floor among "
                   + "the map's points, gravity estimated from the scene; the poses from that frame on, against the truth "
                   + "with a rigid alignment only (evo_ape -a, no scale), and with a similarity alignment for comparison.",
                   columns: ["sequence", "scale fixed by", "at frame", "metres per unit", "poses after", "metric ATE cm (rigid)",
                             "ATE cm (similarity)"], rows: metricLines)
        printTable("Its surfaces found among the map's points (plane anchors at the end, each against the true surface "
                   + "nearest in direction), both seen from the camera by the session's metric pose and the truth's (the "
                   + "median over the frames of the angle between their normals and of the difference of their distances); "
                   + "gravity from the walk-through's accelerometer log, or estimated from the map's planes "
                   + "(`SceneGravity`) where the frames carry none:",
                   columns: ["sequence", "gravity", "anchor", "alignment", "extent m", "observations", "nearest true surface",
                             "normal error °", "offset error cm"], rows: surfaceLines)
        printTable("The first horizontal surface (time from the first frame), and the anchors within 3° and 3 cm of a true "
                   + "surface, with the session's gravity against the truth's (seen from the camera, median over the "
                   + "metric poses):",
                   columns: ["sequence", "gravity", "gravity error °", "first horizontal anchor", "anchors within 3° and 3 cm"],
                   rows: firstHorizontalLines)
    }

    /// A Markdown table after its introduction, when it has rows.
    private func printTable(_ introduction: String, columns: [String], rows: [String]) {
        guard !rows.isEmpty else { return }
        print(introduction + "\n")
        print("| " + columns.joined(separator: " | ") + " |")
        print("|" + String(repeating: "---|", count: columns.count))
        rows.forEach { print($0) }
        print()
    }

    /// The median over the posed frames of the degrees between the session's gravity and the
    /// walk-through's, both seen from the camera (by the session's pose and the truth's): no
    /// alignment of the worlds enters it.
    private func gravityError(_ down: SIMD3<Double>, poses: [RigidTransform?], truth: [RigidTransform?]) -> Double {
        let errors = poses.indices.compactMap { k -> Double? in
            guard let pose = poses[k], let seen = truth[k] else { return nil }
            let (estimate, actual) = (pose.applyInverseRotation(down), seen.applyInverseRotation(SIMD3(0, -1, 0)))
            return acos(min(1, (estimate * actual).sum() / (estimate * estimate).sum().squareRoot())) * 180 / .pi
        }.sorted()
        return errors.isEmpty ? .nan : errors[errors.count / 2]
    }

    /// Each plane anchor against the true surface nearest it in direction (then in offset), both
    /// seen from the camera (by the session's metric pose and the truth's): the median over the
    /// posed frames of the angle between their normals and of the difference of their distances
    /// from the camera. No alignment of the worlds enters it (a rigid alignment of positions
    /// leaves the roll about a straight path free: on the scan it tilted the floor by 4°).
    private func surfaceErrors(_ anchors: [PlaneAnchor], poses: [RigidTransform?], truth: [RigidTransform?],
                               sequence: Sequence) -> [(line: String, degrees: Double, centimetres: Double)]
    {
        let posed = poses.indices.compactMap { k in poses[k].flatMap { p in truth[k].map { (p, $0) } } }
        guard !posed.isEmpty else { return [] }
        func seen(_ plane: Plane, from pose: RigidTransform) -> Plane {
            Plane(normal: pose.applyInverseRotation(plane.normal), offset: plane.offset + (plane.normal * pose.translationVector).sum())
        }
        func median(_ values: [Double]) -> Double { values.sorted()[values.count / 2] }
        return anchors.map { anchor in
            let scored = sequence.surfaces.map { surface -> (String, Double, Double) in
                var degrees: [Double] = []
                var metres: [Double] = []
                for (pose, actual) in posed {
                    let (estimate, truth) = (seen(anchor.surface.plane, from: pose), seen(surface.plane, from: actual))
                    let cosine = (estimate.normal * truth.normal).sum()
                    degrees.append(acos(min(1, abs(cosine))) * 180 / .pi)
                    metres.append(abs((cosine < 0 ? -1.0 : 1.0) * estimate.offset - truth.offset))
                }
                return (surface.name, median(degrees), median(metres))
            }
            let nearest = scored.min { ($0.1 < 3 ? 0 : $0.1, $0.2) < ($1.1 < 3 ? 0 : $1.1, $1.2) }!
            let line = "\(anchor.id) | \(anchor.surface.alignment) | "
                + "\(format(anchor.surface.extent.x, 2))×\(format(anchor.surface.extent.y, 2)) | \(anchor.observations) | "
                + "\(nearest.0) | \(format(nearest.1, 2)) | \(format(nearest.2 * 100, 1)) |"
            return (line, nearest.1, nearest.2 * 100)
        }
    }

    private struct MetricSession {
        var run: Run
        var fixedAt: Int
        var factor: Double
        var anchors: [PlaneAnchor]
        /// The frame the first horizontal plane anchor was there after.
        var firstHorizontal: Int?
        /// The world's gravity at the end.
        var down: SIMD3<Double>
    }

    /// The frames through a session with `posters` as references (with the frames' gravity, or
    /// without it, as a video without motion sensors; with the camera's height, when given): its
    /// poses, and the frame the scale was fixed at with the factor; nil when it never was.
    private func metricSession(_ source: ColorSequenceSource, _ sequence: Sequence, posters: [ReferenceImage],
                               framesCarryGravity: Bool, cameraHeight: Double? = nil) throws -> MetricSession?
    {
        var configuration = SessionConfiguration()
        configuration.coaching.goal = .tracking
        configuration.references = posters
        configuration.cameraHeight = cameraHeight
        // The truth the folder holds is for scoring only: the session sees a plain video.
        let session = try Session(configuration: configuration, input: SessionInput(
            width: source.info.width, height: source.info.height, hasDepth: false, intrinsics: sequence.intrinsics,
            hasGravity: framesCarryGravity && source.info.hasGravity))
        var run = Run(poses: [], ms: [])
        var fixed: (Int, Double)?
        var firstHorizontal: Int?
        while let frame = try source.next() {
            guard var sessionFrame = SessionFrame(frame) else { throw BenchError("\(sequence.name), frame \(frame.index) unreadable") }
            sessionFrame.recordedPose = nil
            if !framesCarryGravity { sessionFrame.gravity = nil }
            let (result, ms) = milliseconds { session.process(sessionFrame) }
            for case .scaleFixed(let factor, _) in result.tracking?.events ?? [] { fixed = (frame.index, factor) }
            if firstHorizontal == nil, session.planes.anchors.contains(where: { $0.surface.alignment == .horizontalUp }) {
                firstHorizontal = frame.index
            }
            run.poses.append(result.cameraToWorld)
            run.ms.append(ms)
        }
        return fixed.map { MetricSession(run: run, fixedAt: $0.0, factor: $0.1, anchors: session.planes.anchors,
                                         firstHorizontal: firstHorizontal, down: session.planes.options.down) }
    }

    /// The sequence as a colour-only TUM folder: its rgb.txt, images, truth and accelerometer
    /// log linked into a scratch folder without depth.
    private func colorOnly(_ sequence: Sequence) throws -> Sequence {
        let folder = scratch.appendingPathComponent("color-only-" + Figures.slug(sequence.name))
        let files = FileManager.default
        try files.createDirectory(at: folder, withIntermediateDirectories: true)
        for name in ["rgb.txt", "rgb", "groundtruth.txt", "accelerometer.txt"] {
            try files.createSymbolicLink(atPath: folder.appendingPathComponent(name).path,
                                         withDestinationPath: sequence.folder + "/" + name)
        }
        var colorOnly = sequence
        colorOnly.folder = folder.path
        return colorOnly
    }

    private func openColor(_ sequence: Sequence, decodesColor: Bool = false) throws -> ColorSequenceSource {
        var options = FrameSourceOptions()
        options.intrinsics = sequence.intrinsics
        options.decodesColor = decodesColor
        return try ColorSequenceSource(path: sequence.folder, options: options)
    }

    private func oursMonocular(_ source: ColorSequenceSource, _ sequence: Sequence) throws -> Run {
        try trackMonocular(source, sequence, options: MonocularTrackingOptions()).run
    }

    /// `source`'s frames tracked from their images alone (its depth, if any, unused): the
    /// poses, the loops closed (frame time) and the map's keyframes at the end.
    func trackMonocular(_ source: some FrameSource, _ sequence: Sequence, options: MonocularTrackingOptions) throws
        -> (run: Run, closures: [(time: Double, loop: LoopClosure)], keyframes: [Keyframe])
    {
        let tracker = MonocularTracker(intrinsics: sequence.intrinsics, options: options)
        var run = Run(poses: [], ms: [])
        var closures: [(time: Double, loop: LoopClosure)] = []
        while let frame = try source.next() {
            guard let gray = frame.gray else {
                throw BenchError("\(sequence.name), frame \(frame.index): \(frame.error?.message ?? "no image")")
            }
            let (update, ms) = milliseconds { tracker.track(TrackingFrame(timestamp: frame.timestamp, gray: gray, depth: nil)) }
            run.poses.append(update.cameraToWorld)
            run.ms.append(ms)
            for case .loopClosed(let loop) in update.events { closures.append((frame.timestamp, loop)) }
        }
        run.keyframes = tracker.map.keyframes.count
        return (run, closures, tracker.map.keyframes)
    }

    private func monocularTask(_ sequences: [Sequence], _ sources: [ColorSequenceSource]) -> [String: Any] {
        ["monocular": true, "sequences": zip(sequences, sources).map { sequence, source -> [String: Any] in
            let k = sequence.intrinsics
            let truth = source.frames.map(\.cameraToWorld)
            let steps: [Double] = truth.indices.dropLast().map { k in
                guard let a = truth[k], let b = truth[k + 1] else { return 0 }
                return pathLength([a, b])
            }
            return ["name": sequence.name, "K": [k.fx, k.fy, k.cx - 0.5, k.cy - 0.5], "steps": steps,
                    "frames": source.frames.map { ["timestamp": $0.timestamp, "image": $0.colorPath] }]
        }]
    }


    /// The length, metres, of the path through the poses' centres.
    private func pathLength(_ poses: [RigidTransform]) -> Double {
        var length = 0.0
        for k in poses.indices.dropFirst() {
            let d = poses[k].translationVector - poses[k - 1].translationVector
            length += (d * d).sum().squareRoot()
        }
        return length
    }
}

extension Walkthrough {
    /// The first frame (its position in `frames`) whose rays to what the first frame sees
    /// (every 8th pixel of its rendered depth) meet the first frame's at a median of `degrees`
    /// or more: no two-view start that asks that much parallax can come sooner. Nil if none does.
    func earliestTwoViewStart(degrees: Double = TwoViewInitializationOptions().minimumParallaxDegrees) -> Int? {
        guard let first = frames.first else { return nil }
        let depth = render(first, color: false).depth
        var seen: [SIMD3<Double>] = []
        for y in stride(from: 0, to: height, by: 8) {
            for x in stride(from: 0, to: width, by: 8) where depth[y * width + x] > 0 {
                let pixel = Point2(Double(x), Double(y))
                seen.append(first.cameraToWorld.apply(intrinsics.backproject(pixel, depth: Double(depth[y * width + x]))))
            }
        }
        guard !seen.isEmpty else { return nil }
        let origin = first.cameraToWorld.translationVector
        for (position, frame) in frames.enumerated().dropFirst() {
            let centre = frame.cameraToWorld.translationVector
            let angles = seen.map { point -> Double in
                let (a, b) = (point - origin, point - centre)
                return acos(max(-1, min(1, (a * b).sum() / ((a * a).sum() * (b * b).sum()).squareRoot()))) * 180 / .pi
            }.sorted()
            if angles[angles.count / 2] >= degrees { return position }
        }
        return nil
    }
}
