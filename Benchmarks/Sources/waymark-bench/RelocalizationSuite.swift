import Foundation
import TestSupport
import Waymark

/// `waymark-bench relocalization`: relocalizing after interruptions on the walk-through,
/// leave-one-out on Strecha's façades against metric ground truth, frames of places the map
/// does not hold, and the time per attempt with a 200-keyframe map.
struct RelocalizationSuite {
    var baseline: Baseline?
    var scratch: URL
    var parts: Set<String>
    static let allParts: Set<String> = ["walkthrough", "strecha", "unknown", "timing"]
    /// Within this of the truth a relocalization is right; outside it, it is wrong.
    static let tolerance = (metres: 0.05, degrees: 5.0)
    /// "Back near its pre-interruption viewpoint": within this of a keyframe's camera.
    static let nearness = (metres: 0.3, degrees: 20.0)

    struct Attempt {
        var result: Relocalization
        var ms: Double
        var error: (translation: Double, rotationDegrees: Double)?
        /// Whether the camera was near a keyframe's viewpoint (see `nearness`).
        var isNear = true
        var isRight: Bool { error.map { $0.translation <= tolerance.metres && $0.rotationDegrees <= tolerance.degrees } ?? false }
        var isWrong: Bool { result.isRelocalized && !isRight }
    }

    func run() throws {
        print("## Relocalization\n")
        print("Right: within \(format(Self.tolerance.metres * 100, 0)) cm and \(format(Self.tolerance.degrees, 0))° of the truth; "
              + "wrong: accepted but outside that. One thread.\n")
        if parts.contains("walkthrough") || parts.contains("timing") || parts.contains("unknown") {
            guard let folder = Walkthrough.installedPosterFolder() else { throw BenchError("the walk-through needs opencv-doc") }
            let walk = try Walkthrough(posterFolder: folder, width: 640, height: 480, framesPerSecond: 30)
            if parts.contains("walkthrough") { walkthrough(walk) }
            if parts.contains("unknown") { try unknownPlaces(walk) }
            if parts.contains("timing") { timing(walk) }
        }
        if parts.contains("strecha") { try strecha() }
    }

    func attempt(_ relocalizer: Relocalizer, gray: Image, depth: [Float]?, intrinsics: Intrinsics,
                 truth: RigidTransform?) -> Attempt
    {
        let (result, ms) = milliseconds { relocalizer.relocalize(gray: gray, depth: depth, intrinsics: intrinsics) }
        let error = result.cameraToWorld.flatMap { pose in truth.map { pose.difference(to: $0) } }
        return Attempt(result: result, ms: ms, error: error)
    }

    func walkthrough(_ walk: Walkthrough) {
        print("### Walk-through (640×480, 30 fps, rendered depth), after interruptions\n")
        print("The map is built from the frames before the gap (true poses, keyframes every 15 cm / 15°); each of the "
              + "first 30 frames after it tries to relocalize. Near frames: the camera within \(format(Self.nearness.metres * 100, 0)) cm "
              + "and \(format(Self.nearness.degrees, 0))° of a keyframe's.\n")
        print("| interruption | keyframes | right | near frames right | wrong | median error cm / ° | first relocalized: frames, ms | ms per attempt (median) |")
        print("|---|---|---|---|---|---|---|---|")
        for interruption in walk.interruptions {
            let map = walk.worldMap(frames: interruption.before)
            let relocalizer = Relocalizer(map: map)
            var attempts: [Attempt] = []
            for frame in walk.frames[interruption.after] {
                let (gray, depth) = walk.gray(frame)
                var a = attempt(relocalizer, gray: gray, depth: depth, intrinsics: walk.intrinsics, truth: frame.cameraToWorld)
                a.isNear = map.keyframes.contains {
                    let d = $0.cameraToWorld.difference(to: frame.cameraToWorld)
                    return d.translation <= Self.nearness.metres && d.rotationDegrees <= Self.nearness.degrees
                }
                attempts.append(a)
            }
            row(interruption.name, keyframes: map.keyframes.count, attempts)
            if ProcessInfo.processInfo.environment["WAYMARK_BENCH_DEBUG"] != nil {
                for (i, a) in attempts.enumerated() {
                    FileHandle.standardError.write(Data("\(i) \(a.result.reason) inl \(a.result.inliers) rms \(a.result.rmsReprojectionError ?? -1) sd \(a.result.centreUncertainty ?? -1) kf \(a.result.keyframe ?? -1) err \(a.error.map { "\($0.translation) \($0.rotationDegrees)" } ?? "-")\n".utf8))
                }
            }
        }
        print()
    }

    func row(_ name: String, keyframes: Int, _ attempts: [Attempt]) {
        let right = attempts.filter(\.isRight)
        let near = attempts.filter(\.isNear)
        let errors = attempts.compactMap(\.error)
        let first = attempts.firstIndex { $0.result.isRelocalized }
        let firstText = first.map { "\($0 + 1), \(format(attempts[...($0)].reduce(0) { $0 + $1.ms }, 1))" } ?? "never"
        let medianError = errors.isEmpty ? "–"
            : "\(format(Summary(errors.map { $0.translation * 100 }).median, 2)) / \(format(Summary(errors.map(\.rotationDegrees)).median, 2))"
        print("| \(name) | \(keyframes) | \(right.count)/\(attempts.count) (\(format(100 * Double(right.count) / Double(max(1, attempts.count)), 0)) %) "
              + "| \(near.filter(\.isRight).count)/\(near.count) | \(attempts.filter(\.isWrong).count) | \(medianError) | \(firstText) | \(format(Summary(attempts.map(\.ms)).median, 1))"
              + refusals(attempts) + " |")
    }

    func refusals(_ attempts: [Attempt]) -> String {
        let refused = attempts.filter { !$0.result.isRelocalized }
        guard !refused.isEmpty else { return "" }
        let reasons = Dictionary(grouping: refused, by: { $0.result.reason.rawValue })
            .map { "\($0.key) \($0.value.count) (inliers \($0.value.map { String($0.result.inliers) }.joined(separator: ", ")))" }
        return " (refused: \(reasons.sorted().joined(separator: "; ")))"
    }

    func strecha() throws {
        print("### Strecha façades, leave one out (1536×1024, metric LIDAR-registered cameras)\n")
        print("The map is triangulated from the other images' true poses (no depth); the left-out image relocalizes without depth.\n")
        print("| scene | keyframes per map | right | wrong | median error cm / ° | worst error cm / ° | ms per attempt (median) |")
        print("|---|---|---|---|---|---|---|")
        for name in StrechaScene.names {
            guard let scene = try StrechaScene(name) else { return }
            let views = try scene.views.map { view in
                PosedView(timestamp: 0, gray: try Image(contentsOf: view.imagePath, gray: true), cameraToWorld: view.cameraToWorld,
                          intrinsics: view.intrinsics)
            }
            var attempts: [Attempt] = []
            for left in scene.views.indices {
                let map = WorldMap(keyframes: Keyframe.triangulating(views.enumerated().filter { $0.offset != left }.map(\.element)))
                let relocalizer = Relocalizer(map: map, options: Self.strechaOptions)
                let gray = try Image(contentsOf: scene.views[left].imagePath, gray: true)
                attempts.append(attempt(relocalizer, gray: gray, depth: nil, intrinsics: scene.views[left].intrinsics,
                                        truth: scene.views[left].cameraToWorld))
            }
            let errors = attempts.compactMap(\.error)
            let worst = errors.max { $0.translation < $1.translation }
            print("| \(name) | \(scene.views.count - 1) | \(attempts.filter(\.isRight).count)/\(attempts.count) | \(attempts.filter(\.isWrong).count) "
                  + "| \(errors.isEmpty ? "–" : "\(format(Summary(errors.map { $0.translation * 100 }).median)) / \(format(Summary(errors.map(\.rotationDegrees)).median))") "
                  + "| \(worst.map { "\(format($0.translation * 100)) / \(format($0.rotationDegrees))" } ?? "–") "
                  + "| \(format(Summary(attempts.map(\.ms)).median, 1))\(refusals(attempts)) |")
        }
        print()
    }

    static var strechaOptions: RelocalizationOptions {
        var options = RelocalizationOptions()
        options.features = TriangulationOptions.defaultFeatures
        return options
    }

    func unknownPlaces(_ walk: Walkthrough) throws {
        print("### Places the map does not hold\n")
        print("| map | frames shown | relocalized (must be 0) | refused because |")
        print("|---|---|---|---|")
        let map = walk.worldMap(frames: 0..<walk.frames.count)
        let relocalizer = Relocalizer(map: map)
        var queries: [(String, Image, Intrinsics)] = []
        if let folder = SharedDatasets.path("tum_fr3_office_frames/rgb") {
            for file in try FileManager.default.contentsOfDirectory(atPath: folder).sorted() where file.hasSuffix(".png") {
                queries.append(("TUM fr3 office", try Image(contentsOf: "\(folder)/\(file)", gray: true),
                                Intrinsics(fx: 535.4, fy: 539.2, cx: 320.6, cy: 248.1)))
            }
        }
        for name in StrechaScene.names {
            guard let scene = try StrechaScene(name) else { break }
            for view in scene.views {
                queries.append(("Strecha \(name)", try Image(contentsOf: view.imagePath, gray: true).resized(width: 640, height: 427),
                                Intrinsics(fx: view.intrinsics.fx * 640 / 1536, fy: view.intrinsics.fy * 427 / 1024,
                                           cx: view.intrinsics.cx * 640 / 1536, cy: view.intrinsics.cy * 427 / 1024)))
            }
        }
        let results = queries.map { relocalizer.relocalize(gray: $0.1, intrinsics: $0.2) }
        let reasons = Dictionary(grouping: results, by: { $0.reason.rawValue }).map { "\($0.key) \($0.value.count)" }.sorted()
        print("| walk-through, all \(walk.frames.count) frames (\(map.keyframes.count) keyframes) | \(queries.count) (TUM fr3 office, Strecha) "
              + "| \(results.filter(\.isRelocalized).count) | \(reasons.joined(separator: ", ")) |")
        print()
    }

    func timing(_ walk: Walkthrough) {
        print("### Time per attempt with a 200-keyframe map\n")
        var policy = KeyframePolicy()
        policy.distance = 0.05
        policy.angleDegrees = 3
        var map = walk.worldMap(frames: 0..<walk.frames.count, policy: policy)
        if map.keyframes.count > 200 { map = WorldMap(keyframes: Array(map.keyframes.prefix(200))) }
        let (relocalizer, buildMs) = milliseconds { Relocalizer(map: map) }
        guard let resume = walk.frames.firstIndex(where: { $0.segment == .afterInterruption }) else { return }
        var attempts: [Attempt] = []
        for frame in walk.frames[resume..<min(walk.frames.count, resume + 60)] {
            let (gray, depth) = walk.gray(frame)
            attempts.append(attempt(relocalizer, gray: gray, depth: depth, intrinsics: walk.intrinsics, truth: frame.cameraToWorld))
        }
        let ms = Summary(attempts.map(\.ms))
        print("\(map.keyframes.count) keyframes, \(map.pointCount) points; indexing the map \(format(buildMs, 0)) ms. "
              + "Over the \(attempts.count) return-view frames: median \(format(ms.median, 1)) ms, p90 \(format(ms.p90, 1)) ms per attempt; "
              + "\(attempts.filter(\.isRight).count) right, \(attempts.filter(\.isWrong).count) wrong.\n")
    }
}
