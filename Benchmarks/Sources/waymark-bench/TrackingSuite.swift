import Foundation
import TestData
import TestSupport
import Waymark

/// `waymark-bench tracking`: how far the engine's own camera tracking (no recorded poses)
/// drifts from the truth, at room scale (the walk-through's scan), table-top scale (the
/// table-top script) and on real Kinect data (the TUM fr1/xyz excerpt, motion-capture truth),
/// side by side with OpenCV's RGB-D odometry chained frame to frame as a user would write it
/// (Benchmarks/baselines/tracking_baseline.py).
struct TrackingSuite {
    var baseline: Baseline?
    var scratch: URL
    var parts: Set<String>
    var figures: Figures
    static let allParts: Set<String> = ["walkthrough", "table-top", "tum", "loop", "monocular"]
    /// TUM's published calibration of the fr1 Kinect, OpenCV's pixel convention.
    static let fr1 = (fx: 517.3, fy: 516.5, cx: 318.6, cy: 255.3)

    struct Sequence {
        var name: String
        var folder: String
        var intrinsics: Intrinsics
        var depthScale: Double
        /// Development (tuned on: the synthetic sequences) or validation (only measured: TUM, and the
        /// monocular part's walk-through scan with another seed).
        var split: String
        /// Reference images of known width in view (the walk-through's posters), for a metric run,
        /// and the surfaces it should find (name and plane, in the truth's world).
        var posters: [ReferenceImage]? = nil
        var surfaces: [(name: String, plane: Plane)] = []
        /// Per frame, whether it is in a stretch without scripted trouble, where tracking is expected.
        var normalFrames: [Bool]? = nil
        /// The first frame a two-view start could use (`Walkthrough.earliestTwoViewStart`).
        var earliestStart: Int? = nil
    }

    /// One tracker's run over a sequence.
    struct Run {
        var poses: [RigidTransform?]
        var ms: [Double]
        /// Ours: frames per pose source, and keyframes made.
        var sources: [PoseSource: Int] = [:]
        var keyframes: Int?
    }

    struct Reply: Decodable {
        struct Track: Decodable {
            var poses: [[Double]?]
            var ms: [Double]
        }
        var opencv: String
        var sequences: [String: Track]
    }

    func run() throws {
        defer { try? FileManager.default.removeItem(at: scratch) }
        print("## Tracking\n")
        print("The engine's own tracking, no recorded poses: ATE RMSE after a rigid alignment (evo_ape -a), RPE as the "
              + "RMSE of the translation error over 1 s, frames with a pose. Ours is `WorldTracker.track` (ORB features "
              + "matched by projection against the map's points around the reference keyframe and a motion-only bundle "
              + "adjustment with depth, then RGB-D odometry from the anchor keyframe to the frame at half size, started from "
              + "the predicted pose and again from the features' pose where the two disagree; the odometry alone where a view "
              + "has too little detail for features; a detailed view that misses the map points in it is relocalized in "
              + "the whole map), one thread, its features included, next to "
              + "itself with the opt-in local adjustment (each new keyframe's neighbourhood of points, with Ceres) and "
              + "with keyframes moved by it too. Development sequences are the "
              + "ones its settings were chosen on; validation is only measured. The "
              + "baseline is `cv2.rgbd.RgbdICPOdometry` chained "
              + "at full size, one thread, its call alone timed.\n")
        var sequences: [Sequence] = []
        if !parts.isDisjoint(with: ["walkthrough", "table-top"]) {
            guard let posters = Walkthrough.installedPosterFolder() else { throw BenchError("the walk-through needs opencv-doc") }
            if parts.contains("walkthrough") {
                let walk = try Walkthrough(posterFolder: posters, width: 640, height: 480, framesPerSecond: 30)
                let scan = walk.frames.prefix { $0.segment == .scan }.map(\.cameraToWorld)
                sequences.append(try write(walk.along(scan), name: "walk-through scan"))
            }
            if parts.contains("table-top") {
                let walk = try Walkthrough(posterFolder: posters, width: 640, height: 480, framesPerSecond: 30, script: .tableTop)
                sequences.append(try write(walk, name: "table-top"))
            }
        }
        if parts.contains("tum"), let folder = SharedDatasets.path(BookCoverVideo.folder) {
            let k = Self.fr1
            sequences.append(Sequence(name: "TUM fr1/xyz excerpt", folder: folder,
                                      intrinsics: Intrinsics(fx: k.fx, fy: k.fy, cx: k.cx + 0.5, cy: k.cy + 0.5),
                                      depthScale: WalkthroughWriter.depthScale, split: "validation"))
        }
        if !sequences.isEmpty { try depthTracking(sequences) }
        if parts.contains("loop") { try loopClosure() }
        if parts.contains("monocular") { try monocular() }
    }

    /// The RGB-D sequences' table, with the baseline's runs.
    private func depthTracking(_ sequences: [Sequence]) throws {
        let sources = try sequences.map(open)
        let reply = try baseline.map { try $0.run(task: task(sequences, sources), as: Reply.self) }
        if let reply { print("Baseline: OpenCV \(reply.opencv) (Debian's python3-opencv).\n") }
        print("| sequence | split | frames | tracker | ATE RMSE cm | RPE cm/s | frames with a pose | tracked by map / odometry | keyframes | ms per frame, median | p90 |")
        print("|---|---|---|---|---|---|---|---|---|---|---|")
        var timingChecks: [String] = []
        for (sequence, source) in zip(sequences, sources) {
            let truth = source.frames.map(\.cameraToWorld)
            let times = source.frames.map(\.timestamp)
            let atColorTime = try truthAtColorTime(sequence, source)
            var runs: [(String, Run)] = []
            for (tracker, options) in Self.variants {
                runs.append((tracker, try ours(try open(sequence), sequence, options: options)))
            }
            if let track = reply?.sequences[sequence.name] { runs.append(("OpenCV odometry chained", theirs(track))) }
            for (tracker, run) in runs {
                let (ate, rpe) = try errors(run.poses, truth: truth, times: times)
                let posed = run.poses.compactMap { $0 }.count
                let sources = run.keyframes == nil ? "" : "\(run.sources[.localMap, default: 0]) / \(run.sources[.odometry, default: 0])"
                print("| \(sequence.name) | \(sequence.split) | \(truth.count) | \(tracker) | \(format(ate * 100, 3)) | \(format(rpe * 100, 3)) | "
                      + "\(posed)/\(truth.count) | \(sources) | \(run.keyframes.map(String.init) ?? "") | \(format(Summary(run.ms).median, 1)) | \(format(Summary(run.ms).p90, 1)) |")
                let name = "tracking.\(Figures.slug(sequence.name)).\(Figures.slug(tracker))"
                figures.record("\(name).ate_cm", ate * 100)
                figures.record("\(name).rpe_cm_per_s", rpe * 100)
                if let atColorTime {
                    let (ateAtColorTime, _) = try errors(run.poses, truth: atColorTime, times: times)
                    timingChecks.append("| \(sequence.name) | \(tracker) | \(format(ate * 100, 3)) | \(format(ateAtColorTime * 100, 3)) |")
                }
            }
        }
        print()
        if !timingChecks.isEmpty {
            print("The same poses against the truth at the colour image's time instead of the depth image's (a Kinect's "
                  + "two streams are not synchronized; the frame's time is the depth image's, as above): how much the "
                  + "figure depends on a choice the recording leaves open.\n")
            print("| sequence | tracker | ATE cm, truth at the depth image's time | at the colour image's time |")
            print("|---|---|---|---|")
            timingChecks.forEach { print($0) }
            print()
        }
    }

    func open(_ sequence: Sequence) throws(WaymarkError) -> RGBDRecordingSource {
        var options = FrameSourceOptions()
        options.intrinsics = sequence.intrinsics
        options.decodesColor = false
        return try RGBDRecordingSource(path: sequence.folder, options: options)
    }

    /// Renders `walk` in the TUM layout under the scratch folder.
    func write(_ walk: Walkthrough, name: String, frameLimit: Int? = nil) throws -> Sequence {
        let folder = scratch.appendingPathComponent(Figures.slug(name))
        try WalkthroughWriter.write(walk, to: folder, frameLimit: frameLimit)
        return Sequence(name: name, folder: folder.path, intrinsics: walk.intrinsics, depthScale: WalkthroughWriter.depthScale,
                        split: "development")
    }

    /// Ours as it is, and with the local bundle adjustment of each new keyframe's points (opt-in),
    /// or of its points and keyframes: what the adjustment gives, in the same run.
    static let variants: [(String, WorldTrackingOptions)] = [
        ("Waymark", WorldTrackingOptions()),
        ("Waymark, local adjustment", { var o = WorldTrackingOptions(); o.localAdjustment = LocalAdjustmentOptions(); return o }()),
        ("Waymark, local adjustment moving keyframes", {
            var o = WorldTrackingOptions()
            o.localAdjustment = LocalAdjustmentOptions()
            o.localAdjustment?.movesKeyframes = true
            return o
        }()),
    ]

    private func ours(_ source: RGBDRecordingSource, _ sequence: Sequence, options: WorldTrackingOptions) throws -> Run {
        let tracker = WorldTracker(intrinsics: sequence.intrinsics, options: options)
        var run = Run(poses: [], ms: [])
        while let frame = try source.next() {
            guard let gray = frame.gray, let depth = frame.depth else {
                throw BenchError("\(sequence.name), frame \(frame.index): \(frame.error?.message ?? "no image or depth")")
            }
            let input = TrackingFrame(timestamp: frame.timestamp, gray: gray, depth: depth.metres)
            let (update, ms) = milliseconds { tracker.track(input) }
            run.poses.append(update.cameraToWorld)
            run.ms.append(ms)
            if let source = update.poseSource { run.sources[source, default: 0] += 1 }
        }
        run.keyframes = tracker.map.keyframes.count
        return run
    }

    /// The recorded truth nearest each frame's colour image (within 10 ms, the ground truth's
    /// own spacing at 100 Hz), or nil when the sequence has no colour times or no truth file.
    private func truthAtColorTime(_ sequence: Sequence, _ source: RGBDRecordingSource) throws -> [RigidTransform?]? {
        let colorTimes = source.frames.compactMap(\.colorTimestamp)
        let path = sequence.folder + "/groundtruth.txt"
        guard colorTimes.count == source.frames.count, FileManager.default.fileExists(atPath: path) else { return nil }
        let samples = try Trajectory(tumFile: path).samples
        return TimestampAssociation.partners(of: colorTimes, in: samples.map(\.timestamp), tolerance: 0.01).map {
            $0.map { samples[$0].pose }
        }
    }

    private func task(_ sequences: [Sequence], _ sources: [RGBDRecordingSource]) -> [String: Any] {
        ["sequences": zip(sequences, sources).map { sequence, source -> [String: Any] in
            let k = sequence.intrinsics
            return ["name": sequence.name, "K": [k.fx, k.fy, k.cx - 0.5, k.cy - 0.5], "scale": sequence.depthScale,
                    "frames": source.frames.map { ["timestamp": $0.timestamp, "image": $0.colorPath ?? "", "depth": $0.depthPath] }]
        }]
    }

    private func theirs(_ track: Reply.Track) -> Run { Run(poses: poses(track.poses), ms: track.ms) }

    /// The baseline's rows (timestamp, then 16 numbers row-major camera-to-world) as poses.
    func poses(_ rows: [[Double]?]) -> [RigidTransform?] {
        rows.map { values in
            values.map { v in RigidTransform(rotation: [v[1], v[2], v[3], v[5], v[6], v[7], v[9], v[10], v[11]],
                                             translation: [v[4], v[8], v[12]]) }
        }
    }

    /// ATE RMSE (rigid alignment unless told) and RPE over 1 s (translation RMSE), metres, over
    /// the frames that have both a pose and a truth.
    func errors(_ poses: [RigidTransform?], truth: [RigidTransform?], times: [Double],
                alignment: AbsoluteTrajectoryError.Alignment = .rigid) throws -> (ate: Double, rpe: Double) {
        let pairs = poses.indices.compactMap { k in poses[k].flatMap { p in truth[k].map { (k, p, $0) } } }
        let estimate = Trajectory(samples: pairs.map { Trajectory.Sample(timestamp: times[$0.0], pose: $0.1) })
        let reference = Trajectory(samples: pairs.map { Trajectory.Sample(timestamp: times[$0.0], pose: $0.2) })
        let ate = try AbsoluteTrajectoryError(estimate: estimate, reference: reference, alignment: alignment, byIndex: true).rmse
        var squares: [Double] = []
        for (i, a) in pairs.enumerated() {
            guard let b = pairs[(i + 1)...].first(where: { times[$0.0] >= times[a.0] + 1 }) else { break }
            let error = (a.2.inverse * b.2).inverse * (a.1.inverse * b.1)
            squares.append((error.translationVector * error.translationVector).sum())
        }
        let rpe = squares.isEmpty ? Double.nan : (squares.reduce(0, +) / Double(squares.count)).squareRoot()
        return (ate, rpe)
    }
}
