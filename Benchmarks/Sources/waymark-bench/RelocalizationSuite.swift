import Foundation
import TestData
import TestSupport
import Waymark

/// `waymark-bench relocalization`: relocalizing after interruptions on the walk-through and
/// the time per attempt with a 200-keyframe map, side by side with an OpenCV pipeline a user
/// would assemble (Benchmarks/baselines/relocalization_baseline.py); leave-one-out on
/// Strecha's façades against metric ground truth; frames of places the map does not hold.
struct RelocalizationSuite {
    var baseline: Baseline?
    var scratch: URL
    var parts: Set<String>
    var figures: Figures
    static let allParts: Set<String> = ["walkthrough", "odd-even", "strecha", "unknown", "timing", "drift", "tum"]
    /// Within this of the truth a relocalization is right; outside it, it is wrong.
    static let tolerance = (metres: 0.05, degrees: 5.0)
    /// "Back near its pre-interruption viewpoint": within this of a keyframe's camera.
    static let nearness = (metres: 0.3, degrees: 20.0)
    /// The baseline matches against every keyframe: this many of the timing frames are enough.
    static let baselineTimingFrames = 20

    struct Attempt {
        var accepted: Bool
        var reason: String
        var inliers: Int
        var ms: Double
        var error: (translation: Double, rotationDegrees: Double)?
        /// Whether the camera was near a keyframe's viewpoint (see `nearness`).
        var isNear = true
        var isRight: Bool { error.map { $0.translation <= tolerance.metres && $0.rotationDegrees <= tolerance.degrees } ?? false }
        var isWrong: Bool { accepted && !isRight }
    }

    /// A map of walk-through keyframes and the frames that try to relocalize in it.
    struct Case {
        var name: String
        var map: WorldMap
        var queries: [Walkthrough.Frame]
        var ours: [Attempt] = []
        var theirs: [Attempt]?
        /// Building the relocalizer's index of the map (vocabulary, postings, matcher).
        var indexMs = 0.0
        /// The timing case again, indexed with a vocabulary trained on the map's first keyframes.
        var withKeptVocabulary: (attempts: [Attempt], indexMs: Double, trainedOn: Int)?
    }

    struct Reply: Decodable {
        struct Result: Decodable {
            var pose: [Double]?
            var inliers: Int
            var ms: Double
        }
        var opencv: String
        var maps: [[Result]]
    }

    func run() throws {
        print("## Relocalization\n")
        print("Right: within \(format(Self.tolerance.metres * 100, 0)) cm and \(format(Self.tolerance.degrees, 0))° of the truth; "
              + "wrong: accepted but outside that. One thread; times are per attempt (features, retrieval, matching, PnP, "
              + "verification), the frame already decoded.\n")
        if parts.contains("odd-even") { try oddEven() }
        if !parts.isDisjoint(with: ["walkthrough", "timing", "unknown", "drift"]) {
            guard let folder = Walkthrough.installedPosterFolder() else { throw BenchError("the walk-through needs opencv-doc") }
            let walk = try Walkthrough(posterFolder: folder, width: 640, height: 480, framesPerSecond: 30)
            var cases: [Case] = []
            if parts.contains("walkthrough") {
                cases += walk.interruptions.map { interruption in
                    let map = walk.worldMap(frames: interruption.before)
                    let keyframeTimes = Set(map.keyframes.map(\.timestamp))
                    let queries = walk.frames[interruption.after].filter {
                        !interruption.excludingKeyframes || !keyframeTimes.contains($0.timestamp)
                    }
                    return Case(name: interruption.name, map: map, queries: queries)
                }
            }
            if parts.contains("timing") { cases.append(timingCase(walk)) }
            for k in cases.indices { (cases[k].ours, cases[k].indexMs) = ours(cases[k], walk) }
            if let k = cases.firstIndex(where: { $0.name == Self.timingName }) {
                // As a tracker indexes its grown map: with the vocabulary of an earlier index, at
                // most `vocabularyGrowth` times smaller.
                let trainedOn = Int((Double(cases[k].map.keyframes.count) / WorldTracker.vocabularyGrowth).rounded(.up))
                let earlier = Relocalizer(map: WorldMap(keyframes: Array(cases[k].map.keyframes.prefix(trainedOn))))
                let (attempts, indexMs) = ours(cases[k], walk, vocabulary: earlier.vocabulary)
                cases[k].withKeptVocabulary = (attempts, indexMs, trainedOn)
            }
            if let baseline {
                let reply = try baseline.run(task: try task(cases, walk), as: Reply.self)
                for k in cases.indices { cases[k].theirs = theirs(reply.maps[k], cases[k], walk) }
                // The odd-even part's tables end with the same description.
                if !parts.contains("odd-even") {
                    print("Baseline: OpenCV \(reply.opencv) (Debian's python3-opencv), ORB 1000 + brute-force matching against every "
                          + "keyframe + solvePnPRansac, 50 inliers to accept.\n")
                }
            }
            if parts.contains("walkthrough") { printInterruptions(cases.filter { $0.name != Self.timingName }) }
            if let timing = cases.first(where: { $0.name == Self.timingName }) { printTiming(timing) }
            if parts.contains("unknown") { try unknownPlaces(walk) }
            if parts.contains("drift") { try drift(walk) }
        }
        if parts.contains("strecha") { try strecha() }
        if parts.contains("tum") { try tumOffice() }
    }

    // MARK: Waymark and the baseline on the walk-through

    func ours(_ c: Case, _ walk: Walkthrough, vocabulary: Vocabulary? = nil) -> (attempts: [Attempt], indexMs: Double) {
        let (relocalizer, indexMs) = milliseconds { Relocalizer(map: c.map, vocabulary: vocabulary) }
        return (c.queries.map { frame in
            let (gray, depth) = walk.gray(frame)
            let (result, ms) = milliseconds { relocalizer.relocalize(gray: gray, depth: depth, intrinsics: walk.intrinsics) }
            return Attempt(accepted: result.isRelocalized, reason: result.reason.rawValue, inliers: result.inliers, ms: ms,
                           error: result.cameraToWorld.map { $0.difference(to: frame.cameraToWorld) },
                           isNear: isNear(frame, c.map))
        }, indexMs)
    }

    func isNear(_ frame: Walkthrough.Frame, _ map: WorldMap) -> Bool {
        map.keyframes.contains {
            let d = $0.cameraToWorld.difference(to: frame.cameraToWorld)
            return d.translation <= Self.nearness.metres && d.rotationDegrees <= Self.nearness.degrees
        }
    }

    /// The keyframes' and queries' images written for the baseline (gray PNG, depth in 0.2 mm units).
    func task(_ cases: [Case], _ walk: Walkthrough) throws -> [String: Any] {
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        var written: [Int: (image: String, depth: String)] = [:]
        func write(_ frame: Walkthrough.Frame) throws -> (image: String, depth: String) {
            if let paths = written[frame.index] { return paths }
            let (gray, depth) = walk.gray(frame)
            let paths = (scratch.appendingPathComponent("\(frame.index).png").path, scratch.appendingPathComponent("\(frame.index)-depth.png").path)
            try gray.write(to: paths.0)
            try Raster.writeUInt16(depth.map { UInt16(max(0, min(65535, ($0 / 0.0002).rounded()))) }, width: walk.width,
                                   height: walk.height, to: paths.1)
            written[frame.index] = paths
            return paths
        }
        var maps: [[String: Any]] = []
        for c in cases {
            let keyframes = try c.map.keyframes.map { keyframe -> [String: Any] in
                let frame = walk.frames.first { $0.timestamp == keyframe.timestamp }!
                let paths = try write(frame)
                return ["image": paths.image, "depth": paths.depth, "pose": keyframe.cameraToWorld.matrix]
            }
            let queries = try c.queries.prefix(c.name == Self.timingName ? Self.baselineTimingFrames : c.queries.count).map {
                ["image": try write($0).image]
            }
            maps.append(["keyframes": keyframes, "queries": queries])
        }
        let k = walk.intrinsics
        return ["K": [k.fx, k.fy, k.cx - 0.5, k.cy - 0.5], "scale": 0.0002, "maps": maps]
    }

    func theirs(_ results: [Reply.Result], _ c: Case, _ walk: Walkthrough) -> [Attempt] {
        zip(results, c.queries).map { result, frame in
            let pose = result.pose.map { m in RigidTransform(rotation: [m[0], m[1], m[2], m[4], m[5], m[6], m[8], m[9], m[10]],
                                                               translation: [m[3], m[7], m[11]]) }
            return Attempt(accepted: pose != nil, reason: pose == nil ? "refused" : "relocalized", inliers: result.inliers,
                           ms: result.ms, error: pose.map { $0.difference(to: frame.cameraToWorld) }, isNear: isNear(frame, c.map))
        }
    }

    func printInterruptions(_ cases: [Case]) {
        print("### Walk-through (640×480, 30 fps, rendered depth), after interruptions\n")
        print("The map is built from the frames before the gap (true poses, keyframes every 15 cm / 15°); each of the "
              + "first 30 frames after it tries to relocalize (for \"back where it was\", the last second's frames before the gap "
              + "that are not keyframes). Near frames: the camera within \(format(Self.nearness.metres * 100, 0)) cm "
              + "and \(format(Self.nearness.degrees, 0))° of a keyframe's.\n")
        print("| interruption | keyframes | method | right | near frames right | wrong | median error cm / ° | first relocalized: frames, ms | ms per attempt (median) |")
        print("|---|---|---|---|---|---|---|---|---|")
        for c in cases {
            row(c.name, keyframes: c.map.keyframes.count, method: "Waymark", c.ours)
            if let theirs = c.theirs { row("", keyframes: nil, method: "OpenCV baseline", theirs) }
        }
        print()
        let all = cases.flatMap(\.ours)
        let near = all.filter(\.isNear)
        figures.record("relocalization.walkthrough.right_share", Double(all.filter(\.isRight).count) / Double(max(1, all.count)))
        figures.record("relocalization.walkthrough.near_right_share",
                       Double(near.filter(\.isRight).count) / Double(max(1, near.count)))
        figures.record("relocalization.walkthrough.wrong", Double(all.filter(\.isWrong).count))
        print("Waymark over all \(all.count) post-interruption frames: \(all.filter(\.isRight).count) right, \(all.filter(\.isWrong).count) wrong; "
              + "over the \(near.count) near a keyframe: \(near.filter(\.isRight).count) right "
              + "(\(format(100 * Double(near.filter(\.isRight).count) / Double(max(1, near.count)), 0)) %).")
        if let theirs = Optional(cases.compactMap(\.theirs).flatMap { $0 }), !theirs.isEmpty {
            let theirNear = theirs.filter(\.isNear)
            print(" Baseline: \(theirs.filter(\.isRight).count) right, \(theirs.filter(\.isWrong).count) wrong; near: "
                  + "\(theirNear.filter(\.isRight).count) of \(theirNear.count).")
        }
        print()
    }

    func row(_ name: String, keyframes: Int?, method: String, _ attempts: [Attempt]) {
        let right = attempts.filter(\.isRight)
        let near = attempts.filter(\.isNear)
        let errors = attempts.compactMap(\.error)
        let first = attempts.firstIndex { $0.accepted }
        let firstText = first.map { "\($0 + 1), \(format(attempts[...($0)].reduce(0) { $0 + $1.ms }, 1))" } ?? "never"
        let medianError = errors.isEmpty ? "–"
            : "\(format(Summary(errors.map { $0.translation * 100 }).median, 2)) / \(format(Summary(errors.map(\.rotationDegrees)).median, 2))"
        print("| \(name) | \(keyframes.map(String.init) ?? "") | \(method) | \(right.count)/\(attempts.count) "
              + "| \(near.filter(\.isRight).count)/\(near.count) | \(attempts.filter(\.isWrong).count) | \(medianError) | \(firstText) "
              + "| \(format(Summary(attempts.map(\.ms)).median, 1))" + refusals(attempts) + " |")
    }

    func refusals(_ attempts: [Attempt]) -> String {
        let refused = attempts.filter { !$0.accepted }
        guard !refused.isEmpty else { return "" }
        let reasons = Dictionary(grouping: refused, by: \.reason).map { "\($0.key) \($0.value.count)" }
        return " (refused: \(reasons.sorted().joined(separator: ", ")))"
    }

    // MARK: Maps from the odd frames, the even frames relocalized

    /// Each sequence's odd frames build a map as `waymark map build` does from ground truth
    /// (the tracker, true poses as the recorded source); every even frame then relocalizes in
    /// it on its own. The table top at the issue's density (2 fps: odd frames 1 s and 18° apart
    /// around the table) and denser; the room the same way.
    func oddEven() throws {
        guard let posters = Walkthrough.installedPosterFolder() else { throw BenchError("the walk-through needs opencv-doc") }
        print("### Maps from the odd frames, the even frames relocalized (640×480, rendered depth)\n")
        print("The map: the tracker over the odd frames with their true poses as the recorded source (as `waymark map build` "
              + "with a ground truth), keyframes where a frame tracks under 75 % of its reference keyframe's trackable points, redundant ones culled. Each even frame "
              + "then relocalizes on its own. Table-top: the camera circles the table once in 20 s at 0.3–0.6 m; room: the "
              + "walk-through's scan.\n")
        print("| sequence | scale | odd / even frames | keyframes | method | right | wrong | median error cm / ° | ms per attempt, median | p90 |")
        print("|---|---|---|---|---|---|---|---|---|---|")
        var all: [String: [Attempt]] = [:]
        var opencv = ""
        for (scale, script) in [("table-top", Walkthrough.Script.tableTop), ("room", .standard)] {
            for fps in [2.0, 10] {
                var walk = try Walkthrough(posterFolder: posters, width: 640, height: 480, framesPerSecond: fps, script: script)
                if script == .standard { walk = walk.along(walk.frames.prefix { $0.segment == .scan }.map(\.cameraToWorld)) }
                let map = walk.mapOfOddFrames()
                let relocalizer = Relocalizer(map: map)
                let attempts = walk.evenFrames.map { frame in
                    let (gray, depth) = walk.gray(frame)
                    let (result, ms) = milliseconds { relocalizer.relocalize(gray: gray, depth: depth, intrinsics: walk.intrinsics) }
                    return Attempt(accepted: result.isRelocalized, reason: result.reason.rawValue, inliers: result.inliers, ms: ms,
                                   error: result.cameraToWorld.map { $0.difference(to: frame.cameraToWorld) })
                }
                all[scale, default: []] += attempts
                let name = "\(script == .standard ? "walk-through scan" : "table-top"), \(format(fps, 0)) fps"
                func row(_ method: String, _ attempts: [Attempt], first: Bool) {
                    let errors = attempts.compactMap(\.error)
                    let median = errors.isEmpty ? "–"
                        : "\(format(Summary(errors.map { $0.translation * 100 }).median, 2)) / \(format(Summary(errors.map(\.rotationDegrees)).median, 2))"
                    let times = Summary(attempts.map(\.ms))
                    print((first ? "| \(name) | \(scale) | \(walk.frames.count - attempts.count) / \(attempts.count) | \(map.keyframes.count) " : "|  |  |  |  ")
                          + "| \(method) | \(attempts.filter(\.isRight).count)/\(attempts.count) | \(attempts.filter(\.isWrong).count) | \(median) "
                          + "| \(format(times.median, 1))" + refusals(attempts) + " | \(format(times.p90, 1)) |")
                }
                row("Waymark", attempts, first: true)
                if let baseline {
                    let c = Case(name: name, map: map, queries: walk.evenFrames)
                    let reply = try baseline.run(task: try task([c], walk), as: Reply.self)
                    opencv = reply.opencv
                    row("OpenCV baseline", theirs(reply.maps[0], c, walk), first: false)
                }
            }
        }
        if baseline != nil {
            print("\nBaseline: OpenCV \(opencv) (Debian's python3-opencv) on the same keyframes and frames, ORB 1000 + brute-force matching "
                  + "against every keyframe + solvePnPRansac, 50 inliers to accept.")
        }
        print()
        for (scale, attempts) in all {
            figures.record("relocalization.odd_even.\(Figures.slug(scale)).right_share",
                           Double(attempts.filter(\.isRight).count) / Double(max(1, attempts.count)))
            figures.record("relocalization.odd_even.\(Figures.slug(scale)).wrong", Double(attempts.filter(\.isWrong).count))
        }
    }

    // MARK: A 200-keyframe map

    static let timingName = "200 keyframes"

    func timingCase(_ walk: Walkthrough) -> Case {
        let resume = walk.frames.firstIndex { $0.segment == .afterInterruption }!
        var map = walk.worldMap(frames: 0..<resume, metres: 0.01, degrees: 1)
        if map.keyframes.count > 200 {
            let stride = Double(map.keyframes.count) / 200
            map = WorldMap(keyframes: (0..<200).map { map.keyframes[Int(Double($0) * stride)] })
        }
        return Case(name: Self.timingName, map: map, queries: Array(walk.frames[resume..<min(walk.frames.count, resume + 60)]))
    }

    func printTiming(_ c: Case) {
        print("### Time per attempt with a \(c.map.keyframes.count)-keyframe map\n")
        let ours = Summary(c.ours.map(\.ms))
        figures.record("relocalization.timing.median_ms", ours.median)
        figures.record("relocalization.timing.wrong", Double(c.ours.filter(\.isWrong).count))
        print("\(c.map.keyframes.count) keyframes (every 1 cm / 1° of the path before the return, evenly thinned to 200), "
              + "\(c.map.pointCount) points; indexing the map (vocabulary, postings, matcher) \(format(c.indexMs, 0)) ms once. "
              + "Queries: the return view's frames.\n")
        print("| method | frames | median ms | p90 ms | right | wrong |")
        print("|---|---|---|---|---|---|")
        print("| Waymark | \(c.ours.count) | \(format(ours.median, 1)) | \(format(ours.p90, 1)) | \(c.ours.filter(\.isRight).count) | \(c.ours.filter(\.isWrong).count) |")
        if let kept = c.withKeptVocabulary {
            let summary = Summary(kept.attempts.map(\.ms))
            figures.record("relocalization.timing.kept_vocabulary_index_ms", kept.indexMs)
            print("| Waymark, vocabulary of its first \(kept.trainedOn) keyframes (as a tracker keeps it; indexing \(format(kept.indexMs, 0)) ms) "
                  + "| \(kept.attempts.count) | \(format(summary.median, 1)) | \(format(summary.p90, 1)) "
                  + "| \(kept.attempts.filter(\.isRight).count) | \(kept.attempts.filter(\.isWrong).count) |")
        }
        if let theirs = c.theirs {
            let summary = Summary(theirs.map(\.ms))
            print("| OpenCV baseline | \(theirs.count) | \(format(summary.median, 1)) | \(format(summary.p90, 1)) | \(theirs.filter(\.isRight).count) | \(theirs.filter(\.isWrong).count) |")
            figures.record("relocalization.timing.time_share_of_opencv", ours.median / summary.median)
            print("\nMedian per attempt: the baseline takes \(format(summary.median / ours.median, 1))× Waymark's time.")
        }
        print()
    }

    // MARK: Places outside the map

    func unknownPlaces(_ walk: Walkthrough) throws {
        print("### Places the map does not hold\n")
        print("| map | frames shown | relocalized (must be 0) | refused because |")
        print("|---|---|---|---|")
        let map = walk.worldMap(frames: 0..<walk.frames.count)
        let relocalizer = Relocalizer(map: map)
        var queries: [(Image, Intrinsics)] = []
        if let folder = SharedDatasets.path("tum_fr3_office_frames/rgb") {
            for file in try FileManager.default.contentsOfDirectory(atPath: folder).sorted() where file.hasSuffix(".png") {
                queries.append((try Image(contentsOf: "\(folder)/\(file)", gray: true), Intrinsics(fx: 535.4, fy: 539.2, cx: 320.6, cy: 248.1)))
            }
        }
        for name in StrechaScene.names {
            guard let scene = try StrechaScene(name) else { break }
            for view in scene.views {
                let k = view.intrinsics
                queries.append((try Image(contentsOf: view.imagePath, gray: true).resized(width: 640, height: 427),
                                Intrinsics(fx: k.fx * 640 / 1536, fy: k.fy * 427 / 1024, cx: k.cx * 640 / 1536, cy: k.cy * 427 / 1024)))
            }
        }
        let results = queries.map { relocalizer.relocalize(gray: $0.0, intrinsics: $0.1) }
        let reasons = Dictionary(grouping: results, by: { $0.reason.rawValue }).map { "\($0.key) \($0.value.count)" }.sorted()
        figures.record("relocalization.unknown.relocalized", Double(results.filter(\.isRelocalized).count))
        print("| walk-through, all \(walk.frames.count) frames (\(map.keyframes.count) keyframes) | \(queries.count) (17 TUM fr3 office, 19 Strecha) "
              + "| \(results.filter(\.isRelocalized).count) | \(reasons.joined(separator: ", ")) |")
        print()
    }

    // MARK: Tracking drift

    /// The tracker with the engine's odometry over the whole walk-through, against the true
    /// path in the first camera's world; beside it the odometry alone, chained frame to frame
    /// as a user of OpenCV's rgbd module would, which has no way back after the gap.
    func drift(_ walk: Walkthrough) throws {
        print("### Tracking drift over the walk-through (640×480, 30 fps, \(walk.frames.count) frames)\n")
        let first = walk.frames[0].cameraToWorld.inverse
        let truth = Trajectory(samples: walk.frames.map { .init(timestamp: $0.timestamp, pose: first * $0.cameraToWorld) })
        let tracker = WorldTracker(intrinsics: walk.intrinsics)
        let odometry = RGBDOdometry(intrinsics: walk.intrinsics)
        var tracked = Trajectory(samples: [])
        var chained = Trajectory(samples: [])
        var chainedPose = RigidTransform.identity
        var states: [String: Int] = [:]
        var ms: [Double] = []
        for frame in walk.frames {
            let (gray, depth) = walk.gray(frame)
            let (update, elapsed) = milliseconds { tracker.track(TrackingFrame(timestamp: frame.timestamp, gray: gray, depth: depth)) }
            ms.append(elapsed)
            states[update.state.reason?.rawValue ?? update.state.name, default: 0] += 1
            if let pose = update.cameraToWorld { tracked.samples.append(.init(timestamp: frame.timestamp, pose: pose)) }
            if let motion = odometry.track(gray: gray, depth: depth) { chainedPose = chainedPose * motion.inverse }
            chained.samples.append(.init(timestamp: frame.timestamp, pose: chainedPose))
        }
        func ate(_ estimate: Trajectory, _ segments: Set<Walkthrough.Segment>) throws -> String {
            let times = Set(walk.frames.filter { segments.contains($0.segment) }.map(\.timestamp))
            let part = Trajectory(samples: estimate.samples.filter { times.contains($0.timestamp) })
            guard part.samples.count >= 3 else { return "–" }
            let error = try AbsoluteTrajectoryError(estimate: part, reference: truth, alignment: .none)
            return "\(format(error.rmse * 100, 1)) (\(part.samples.count))"
        }
        let segments: [(String, Set<Walkthrough.Segment>)] = [
            ("scan", [.scan]), ("dark", [.dark]), ("fast turn", [.fast]),
            ("textureless wall (after a 2 m jump)", [.textureless]), ("after the 4 s gap", [.afterInterruption, .returnView]),
            ("whole walk", Set(Walkthrough.Segment.allCases)),
        ]
        print("ATE RMSE, cm (frames with a pose), no alignment: both start at the first camera. The error code matches evo's "
              + "stored results (WaymarkVisionTests).\n")
        print("| method | " + segments.map(\.0).joined(separator: " | ") + " |")
        print("|---|" + segments.map { _ in "---|" }.joined())
        print("| Waymark WorldTracker (odometry, keyframes, relocalization) | "
              + (try segments.map { try ate(tracked, $0.1) }).joined(separator: " | ") + " |")
        print("| OpenCV RgbdICPOdometry chained (no way back after a gap) | "
              + (try segments.map { try ate(chained, $0.1) }).joined(separator: " | ") + " |")
        let summary = Summary(ms)
        print("\nTracker states over the walk: \(states.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", ")). "
              + "Per frame: median \(format(summary.median, 1)) ms, p90 \(format(summary.p90, 1)) ms (odometry, features, keyframes, "
              + "relocalization after the gap).\n")
    }

    // MARK: TUM fr3 office, consistency

    /// 17 real frames about 1 s apart, without ground truth and with depth for the first only.
    /// Their poses are reconstructed from the data alone (`Reconstruction`: the first frame's
    /// depth gives metric points, every frame that PnP places against them joins, its points
    /// triangulated with the frames it shares most with, all bundle-adjusted after each join).
    /// Then each posed frame is relocalized against the map of the others' keyframes and
    /// compared with its reconstructed pose.
    func tumOffice() throws {
        guard let folder = SharedDatasets.path("tum_fr3_office_frames/rgb"),
            let depthPath = SharedDatasets.path("open3d_testdata_rgbd/RGBD/other_formats/TUM_depth.png")
        else { return }
        print("### TUM fr3 office frames, consistency (640×480, about 1 s apart, no ground truth)\n")
        let intrinsics = Intrinsics(fx: 535.4, fy: 539.2, cx: 320.6, cy: 248.1)
        let files = try FileManager.default.contentsOfDirectory(atPath: folder).filter { $0.hasSuffix(".png") }.sorted()
        let features = try files.map {
            FeatureSet(detectingIn: try Image(contentsOf: "\(folder)/\($0)", gray: true), options: TriangulationOptions.defaultFeatures)
        }
        let depth = try DepthImage(contentsOf: depthPath, scale: 0.0002)
        let reconstruction = Reconstruction(features: features, timestamps: files.map { Double($0.dropLast(4)) ?? 0 },
                                            width: depth.width, height: depth.height, firstDepth: depth.metres,
                                            intrinsics: intrinsics)
        let (_, reconstructionMs) = try milliseconds { try reconstruction.joinAll() }
        let poses = reconstruction.poses
        var options = RelocalizationOptions()
        options.features = TriangulationOptions.defaultFeatures
        var attempts: [Attempt] = []
        for k in poses.indices where poses[k] != nil {
            let others = WorldMap(keyframes: reconstruction.keyframes(leavingOut: k))
            guard others.hasPoints else {
                attempts.append(Attempt(accepted: false, reason: "no map without it", inliers: 0, ms: 0, error: nil))
                continue
            }
            let relocalizer = Relocalizer(map: others, options: options)
            let (result, ms) = milliseconds {
                relocalizer.relocalize(features: features[k], width: depth.width, height: depth.height, intrinsics: intrinsics)
            }
            attempts.append(Attempt(accepted: result.isRelocalized, reason: result.reason.rawValue, inliers: result.inliers, ms: ms,
                                    error: result.cameraToWorld.map { $0.difference(to: poses[k]!) }))
        }
        let errors = attempts.compactMap(\.error)
        let notJoined = files.indices.filter { poses[$0] == nil }.map { String(files[$0].prefix(13)) }
        print("\(reconstruction.joinedCount) of \(files.count) frames joined the reconstruction (metric through frame 1341847980.72's depth; "
              + "\(reconstruction.pointCount) points, \(format(reconstructionMs / 1000, 1)) s). "
              + "Each relocalized against the others' map: \(attempts.filter(\.accepted).count) of \(attempts.count) relocalized, "
              + "\(attempts.filter(\.isRight).count) within 5 cm / 5° of its reconstructed pose"
              + (errors.isEmpty ? "" : ", median difference \(format(Summary(errors.map { $0.translation * 100 }).median)) cm / "
                 + "\(format(Summary(errors.map(\.rotationDegrees)).median))°, largest "
                 + "\(format((errors.map(\.translation).max() ?? 0) * 100)) cm")
              + "; \(format(Summary(attempts.map(\.ms)).median, 1)) ms per attempt (features already detected)\(refusals(attempts))."
              + (notJoined.isEmpty ? "" : " Not joined: \(notJoined.joined(separator: ", ")).") + "\n")
        figures.record("relocalization.tum_office.joined", Double(reconstruction.joinedCount))
        if let baseline {
            try compareWithFivePoint(poses, images: files.map { "\(folder)/\($0)" }, intrinsics: intrinsics, python: baseline.python)
        }
    }

    /// The reconstruction's motion between consecutive joined frames against OpenCV's
    /// five-point estimate from the same two images (Benchmarks/baselines/relative_pose_baseline.py):
    /// without ground truth, an independent check of the rotations and directions of travel.
    private func compareWithFivePoint(_ poses: [RigidTransform?], images: [String], intrinsics k: Intrinsics, python: String)
        throws
    {
        struct Reply: Decodable {
            struct Motion: Decodable {
                var rotation: [Double]
                var direction: [Double]
            }
            var opencv: String
            var pairs: [Motion?]
        }
        let joined = poses.indices.filter { poses[$0] != nil }
        let pairs = zip(joined, joined.dropFirst()).map { [$0, $1] }
        let script = SharedDatasets.repositoryRoot.appendingPathComponent("Benchmarks/baselines/relative_pose_baseline.py").path
        let reply = try Baseline(python: python, script: script).run(
            task: ["K": [k.fx, k.fy, k.cx - 0.5, k.cy - 0.5], "images": images, "pairs": pairs], as: Reply.self)
        var rotationDegrees: [Double] = []
        var directionDegrees: [Double] = []
        for (pair, motion) in zip(pairs, reply.pairs) {
            guard let motion else { continue }
            let ours = poses[pair[1]]!.inverse * poses[pair[0]]!
            rotationDegrees.append(RigidTransform(rotation: ours.rotation, translation: [0, 0, 0])
                .difference(to: RigidTransform(rotation: motion.rotation, translation: [0, 0, 0])).rotationDegrees)
            let (a, b) = (ours.translationVector, SIMD3(motion.direction[0], motion.direction[1], motion.direction[2]))
            let cosine = (a * b).sum() / ((a * a).sum() * (b * b).sum()).squareRoot()
            directionDegrees.append(acos(min(1, max(-1, cosine))) * 180 / .pi)
        }
        guard !rotationDegrees.isEmpty else { return }
        let (rotation, direction) = (Summary(rotationDegrees), Summary(directionDegrees))
        print("Against OpenCV \(reply.opencv)'s five-point relative pose of each consecutive pair (SIFT, essential matrix; an "
              + "independent estimate, with no depth and two views only), \(rotationDegrees.count) of \(pairs.count) pairs: "
              + "the rotation differs by a median \(format(rotation.median))°, at most \(format(rotationDegrees.max()!))°; "
              + "the direction of travel by a median \(format(direction.median))°, at most \(format(directionDegrees.max()!))°.\n")
        figures.record("relocalization.tum_office.rotation_vs_five_point_max_degrees", rotationDegrees.max()!)
    }

    // MARK: Strecha

    func strecha() throws {
        print("### Strecha façades, leave one out (1536×1024, metric LIDAR-registered cameras)\n")
        print("The map is triangulated from the other images' true poses (no depth, 2000 ORB features each, 4 nearest views); "
              + "the left-out image relocalizes without depth.\n")
        print("| scene | keyframes per map | right | wrong | median error cm / ° | worst error cm / ° | ms per attempt (median) |")
        print("|---|---|---|---|---|---|---|")
        var options = RelocalizationOptions()
        options.features = TriangulationOptions.defaultFeatures
        for name in StrechaScene.names {
            guard let scene = try StrechaScene(name) else { return }
            let grays = try scene.views.map { try Image(contentsOf: $0.imagePath, gray: true) }
            let views = zip(grays, scene.views).map { gray, view in
                PosedView(timestamp: 0, gray: gray, cameraToWorld: view.cameraToWorld, intrinsics: view.intrinsics)
            }
            var attempts: [Attempt] = []
            for left in scene.views.indices {
                let map = WorldMap(keyframes: Keyframe.triangulating(views.enumerated().filter { $0.offset != left }.map(\.element)))
                let relocalizer = Relocalizer(map: map, options: options)
                let (result, ms) = milliseconds { relocalizer.relocalize(gray: grays[left], intrinsics: scene.views[left].intrinsics) }
                attempts.append(Attempt(accepted: result.isRelocalized, reason: "\(result.reason.rawValue) (\(result.inliers) inliers)",
                                        inliers: result.inliers, ms: ms,
                                        error: result.cameraToWorld.map { $0.difference(to: scene.views[left].cameraToWorld) }))
            }
            let errors = attempts.compactMap(\.error)
            let worst = errors.max { $0.translation < $1.translation }
            figures.record("relocalization.strecha.\(Figures.slug(name)).right", Double(attempts.filter(\.isRight).count))
            figures.record("relocalization.strecha.\(Figures.slug(name)).wrong", Double(attempts.filter(\.isWrong).count))
            print("| \(name) | \(scene.views.count - 1) | \(attempts.filter(\.isRight).count)/\(attempts.count) | \(attempts.filter(\.isWrong).count) "
                  + "| \(errors.isEmpty ? "–" : "\(format(Summary(errors.map { $0.translation * 100 }).median)) / \(format(Summary(errors.map(\.rotationDegrees)).median))") "
                  + "| \(worst.map { "\(format($0.translation * 100)) / \(format($0.rotationDegrees))" } ?? "–") "
                  + "| \(format(Summary(attempts.map(\.ms)).median, 1))\(refusals(attempts)) |")
        }
        print()
    }
}
