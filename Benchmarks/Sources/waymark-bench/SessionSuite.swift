import Foundation
import TestSupport
import Waymark

/// `waymark-bench session`: the whole Session on the coaching walk-through (640×480 RGB-D,
/// 30 fps, 25 active references, planes and relocalization on). For each scripted trouble:
/// how soon the right coaching message shows and clears, whether anything flickers, and the
/// text's language; frames per second end to end; memory over a 10-minute input.
struct SessionSuite {
    var datasets: URL
    var parts: Set<String>
    var figures: Figures
    static let allParts: Set<String> = ["coaching", "speed", "memory", "light"]
    static let languages = CoachingLanguage.allCases
    /// The trouble, its message, and the limits the HIG's "shown only when needed" asks of it.
    static let expected: [(Walkthrough.Segment, CoachingCode)] = [
        (.dark, .lowLight), (.fast, .excessiveMotion), (.textureless, .insufficientFeatures),
        (.afterInterruption, .relocalizingReturn),
    ]
    static let appearWithin = 1.0, clearWithin = 2.0, changesApart = 2.0

    /// A rendered frame, kept so that rendering is never timed.
    struct Rendered {
        var frame: Walkthrough.Frame
        var image: Image
        var depth: DepthImage
        /// Share of the view the plain east wall fills.
        var plainShare: Double
    }

    struct Step {
        var time: Double
        var segment: Walkthrough.Segment
        var signals: GuidanceSignals
        var message: CoachingMessage?
        var relocalized: Bool
        var ms: Double
        var plainShare: Double
    }

    /// The textureless trouble is the plain wall filling this much of the view or more (as
    /// rendered), whatever the script's segment says: the approach and the turn away show it too.
    static let fillingShare = 0.75

    func run() throws {
        guard let folder = Walkthrough.installedPosterFolder() else { throw BenchError("the walk-through needs opencv-doc") }
        let walk = try Walkthrough(posterFolder: folder, width: 640, height: 480, framesPerSecond: 30, script: .coaching)
        print("## Session\n")
        if parts.contains("light") { reportLightFollowing(walk) }
        guard !parts.isDisjoint(with: ["coaching", "speed", "memory"]) else { return }
        let references = try self.references(walk)
        let (rendered, renderMs) = milliseconds { walk.frames.map { render($0, walk) } }
        print("The coaching walk-through (Sources/WaymarkSamples/Walkthrough.swift, script `coaching`): \(walk.frames.count) frames "
              + "of 640×480 RGB-D at 30 fps, \(format(walk.frames.last!.timestamp, 1)) s with a 2 s interruption; "
              + "25 active references (its 4 posters with their sizes, 21 of the detection suite's), horizontal and vertical "
              + "surfaces, relocalization on, goal `any_surface`. The session runs its steps on both cores (two at a time); "
              + "OpenCV's own loops on one thread. Rendering (\(format(renderMs / 1000, 0)) s) "
              + "is done first and not timed.\n")
        if !parts.isDisjoint(with: ["coaching", "speed"]) {
            let steps = try runSession(rendered, walk, references, recordedPoses: true)
            // The same frames as a plain video whose camera is known: no depth, tracked from the
            // images alone, goal `tracking` (surfaces need depth).
            let video = try runSession(rendered, walk, references, recordedPoses: false, depth: false)
            if parts.contains("coaching") {
                reportCoaching(steps, input: "recorded poses", goal: .anySurface)
                reportCoaching(video, input: "the colour frames alone, as a plain video with its intrinsics", goal: .tracking)
                // Without intrinsics a video is not tracked: coaching has the frame's signals alone.
                let untracked = try runSession(rendered, walk, references, recordedPoses: false, depth: false, camera: false)
                reportCoaching(untracked, input: "the colour frames alone, a plain video without intrinsics (not tracked)",
                               goal: .image)
            }
            if parts.contains("speed") {
                let odometry = try runSession(rendered, walk, references, recordedPoses: false)
                let videoSurfaces = try runSession(rendered, walk, references, recordedPoses: false, depth: false,
                                                   sparseSurfaces: true)
                reportSpeed([("recorded poses (groundtruth.txt)", steps), ("the engine's own tracking", odometry),
                             ("a plain video: monocular tracking, goal tracking", video),
                             ("a plain video with surfaces among the map's points (--surfaces)", videoSurfaces)])
                try reportLightCost(rendered, intrinsics: walk.intrinsics)
            }
        }
        if parts.contains("memory") { try reportMemory(rendered, walk, references) }
    }

    private func render(_ frame: Walkthrough.Frame, _ walk: Walkthrough) -> Rendered {
        let r = walk.render(frame)
        let plain = UInt16(walk.surfaces.first { $0.name == "east wall" }!.id)
        return Rendered(frame: frame, image: Image(width: walk.width, height: walk.height, channels: 3, pixels: r.color!),
                        depth: DepthImage(width: walk.width, height: walk.height, metres: r.depth),
                        plainShare: Double(r.labels.filter { $0 == plain }.count) / Double(r.labels.count))
    }

    /// The walk-through's four posters (physical widths known) and 21 others.
    private func references(_ walk: Walkthrough) throws -> [ReferenceImage] {
        let posters = try walk.posters.map {
            try ReferenceImage(entry: ReferenceEntry(name: $0.name, path: $0.imagePath, physicalWidth: $0.physicalWidth))
        }
        // Oxford's graf img1 is the graf1 poster itself: left out.
        let others = try ReferenceSets.activeSetPaths(in: datasets).filter { !$0.contains("/graf/") }.prefix(21)
        return posters + (try others.enumerated().map { i, path in try ReferenceImage(entry: ReferenceEntry(name: "r\(i)", path: path)) })
    }

    /// Without depth, surfaces only when `sparseSurfaces` (among a monocular map's points,
    /// gravity estimated from its planes: the frames here carry none).
    private func configuration(_ references: [ReferenceImage], depth: Bool = true, camera: Bool = true,
                               sparseSurfaces: Bool = false) -> SessionConfiguration
    {
        var configuration = SessionConfiguration()
        configuration.references = references
        configuration.coaching = CoachingOptions(goal: depth ? .anySurface : camera ? .tracking : .image, language: .english)
        if !depth {
            configuration.surfaces = sparseSurfaces ? .all : []
            configuration.relocalization = camera
        }
        return configuration
    }

    private func runSession(_ frames: [Rendered], _ walk: Walkthrough, _ references: [ReferenceImage], recordedPoses: Bool,
                            depth: Bool = true, camera: Bool = true, sparseSurfaces: Bool = false) throws -> [Step]
    {
        let settings = configuration(references, depth: depth, camera: camera, sparseSurfaces: sparseSurfaces)
        let session = try Session(configuration: settings, input: SessionInput(
            width: walk.width, height: walk.height, hasDepth: depth, hasRecordedPoses: recordedPoses,
            intrinsics: camera ? walk.intrinsics : nil))
        // Warm-up on a copy: first-use costs (OpenCV's lazy initialisation) stay out of the figures.
        let warm = try Session(configuration: settings, input: session.input)
        for f in frames.prefix(5) {
            _ = warm.process(SessionFrame(timestamp: f.frame.timestamp, image: f.image, depth: depth ? f.depth : nil))
        }
        return frames.map { f in
            let (result, ms) = milliseconds {
                session.process(SessionFrame(timestamp: f.frame.timestamp, image: f.image, depth: depth ? f.depth : nil,
                                             recordedPose: recordedPoses ? f.frame.cameraToWorld : nil))
            }
            let relocalized = result.tracking?.events.contains {
                switch $0 {
                case .relocalized, .relocalizedOnAnchor: true
                default: false
                }
            } ?? false
            return Step(time: f.frame.timestamp, segment: f.frame.segment, signals: result.signals,
                        message: result.coaching.message, relocalized: relocalized, ms: ms, plainShare: f.plainShare)
        }
    }

    // MARK: Coaching

    /// Where each trouble starts and ends: its segment's frames; the textureless wall, the
    /// stretch around its segment where it fills the view (`fillingShare`); an interruption,
    /// from the first frame after the gap until the camera is relocalized.
    private func troubles(_ steps: [Step]) -> [(segment: Walkthrough.Segment, code: CoachingCode, start: Double, end: Double?)] {
        Self.expected.map { segment, code in
            var inside = steps.filter { $0.segment == segment }
            if segment == .textureless, let middle = steps.firstIndex(where: { $0.segment == segment }) {
                let filling = { (k: Int) in steps[k].plainShare >= Self.fillingShare }
                var (first, last) = (middle, middle)
                while first > 0, filling(first - 1) { first -= 1 }
                while last + 1 < steps.count, filling(last + 1) { last += 1 }
                inside = Array(steps[first...last])
            }
            let start = inside.first!.time
            if segment == .afterInterruption {
                return (segment, code, start, steps.first { $0.time >= start && $0.relocalized }?.time)
            }
            return (segment, code, start, inside.last!.time + 1 / 30)
        }
    }

    private func reportCoaching(_ steps: [Step], input: String, goal: CoachingGoal) {
        print("### Coaching through scripted trouble (\(input))\n")
        print("Per trouble: the textureless wall is where the plain wall fills \(Int(Self.fillingShare * 100)) % of the "
              + "view or more (from the rendering's labels); the interruption lasts until the camera is relocalized. "
              + "The right message must be on screen within \(format(Self.appearWithin, 0)) s of its start and "
              + "gone within \(format(Self.clearWithin, 0)) s of its end; the message on screen may change at most once per "
              + "\(format(Self.changesApart, 0)) s. The English run is the session's own; zh-Hans and zh-Hant replay the "
              + "session's measured signals through a coach in that language.\n")
        print("| language | trouble | seconds | message | shown after | cleared after | text on screen |")
        print("|---|---|---|---|---|---|---|")
        var failures = 0
        for language in Self.languages {
            var coach = Coach(options: CoachingOptions(goal: goal, language: language))
            let messages = language == .english ? steps.map(\.message) : steps.map { coach.update($0.signals).message }
            // An untracked video has no interruption to come back from: it only starts again.
            for trouble in troubles(steps) where goal != .image || trouble.segment != .afterInterruption {
                let shown = zip(steps, messages).first { $0.0.time >= trouble.start && $0.1?.code == trouble.code }
                let appear = shown.map { $0.0.time - trouble.start }
                let cleared = trouble.end.flatMap { end in
                    zip(steps, messages).first { $0.0.time >= end && $0.1?.code != trouble.code }.map { $0.0.time - end }
                }
                let textRight = shown.map { $0.1!.language == language
                    && $0.1!.text == CoachingCatalogue.text(trouble.code, object: nil, language: language) } ?? false
                let ok = (appear ?? .infinity) <= Self.appearWithin && (cleared ?? .infinity) <= Self.clearWithin && textRight
                if !ok { failures += 1 }
                let span = trouble.end.map { "\(format(trouble.start, 2))–\(format($0, 2))" } ?? "\(format(trouble.start, 2))–never"
                print("| \(language.rawValue) | \(trouble.segment.rawValue) | \(span) | `\(trouble.code.rawValue)` | "
                      + "\(appear.map { format($0, 2) + " s" } ?? "never") | \(cleared.map { format($0, 2) + " s" } ?? "never") | "
                      + "\(shown?.1?.text ?? "—")\(ok ? "" : " **(fails)**") |")
            }
            let changes = zip(steps, messages).enumerated().filter { k, pair in k == 0 ? pair.1 != nil : pair.1 != messages[k - 1] }
                .map { $0.1.0.time }
            let closest = zip(changes, changes.dropFirst()).map { $1 - $0 }.min() ?? .infinity
            let flickers = zip(changes, changes.dropFirst()).filter { $1 - $0 < Self.changesApart - 1e-9 }.count
            if flickers > 0 { failures += 1 }
            print("| \(language.rawValue) | whole run | | \(changes.count) changes | closest two \(format(closest, 2)) s apart | "
                  + "\(flickers) closer than \(format(Self.changesApart, 0)) s | |")
        }
        let slug = goal == .anySurface ? "" : goal == .tracking ? "video." : "untracked_video."
        figures.record("session.coaching.\(slug)limits_missed", Double(failures))
        print("\n\(failures == 0 ? "Every trouble met its limits in every language." : "\(failures) limits missed.")\n")
        print("Messages over the run (English): "
              + runs(steps).map { "\(format($0.start, 1))–\(format($0.end, 1)) s `\($0.code?.rawValue ?? "none")`" }.joined(separator: ", ")
              + ".\n")
        print("Signals per segment (medians): ambient intensity (1000: exposed for middle gray), corners (FAST, half size), spread, sharpness, view motion (widths/s), "
              + "directionality (0–1), and the frames whose directionality says the view is smeared:\n")
        print("| segment | frames | ambient intensity | corners | spread | sharpness | view motion | directionality | smeared |")
        print("|---|---|---|---|---|---|---|---|---|")
        for segment in Walkthrough.Segment.allCases {
            let inside = steps.filter { $0.segment == segment }.map(\.signals)
            guard !inside.isEmpty else { continue }
            func median(_ values: [Double]) -> String { values.isEmpty ? "—" : format(Summary(values).median, 1) }
            print("| \(segment.rawValue) | \(inside.count) | \(median(inside.map(\.ambientIntensity))) | "
                  + "\(median(inside.map { Double($0.featureCount) })) | \(median(inside.map(\.featureSpread))) | "
                  + "\(median(inside.map(\.sharpness))) | \(median(inside.compactMap(\.imageMotion))) | "
                  + "\(format(Summary(inside.map(\.directionality)).median, 2)) | "
                  + "\(inside.count { $0.directionality > CoachingOptions().maximumDirectionality }) |")
        }
        print("")
    }

    /// Stretches of one message (or none).
    private func runs(_ steps: [Step]) -> [(start: Double, end: Double, code: CoachingCode?)] {
        var out: [(start: Double, end: Double, code: CoachingCode?)] = []
        for step in steps {
            if let last = out.last, last.code == step.message?.code {
                out[out.count - 1].end = step.time
            } else {
                out.append((step.time, step.time, step.message?.code))
            }
        }
        return out
    }

    // MARK: Speed

    private func reportSpeed(_ runs: [(String, [Step])]) {
        print("### End to end, per frame\n")
        print("`Session.process` on decoded frames: tracking, image detection and following among 25 references, "
              + "surfaces and their world anchors, keyframes, relocalization after the gap, signals and coaching.\n")
        print("| poses from | median ms | p90 ms | mean ms | frames/s (mean) |")
        print("|---|---|---|---|---|")
        for (name, steps) in runs {
            let times = steps.map(\.ms)
            let summary = Summary(times)
            let mean = times.reduce(0, +) / Double(times.count)
            figures.record("session.speed.\(Figures.slug(name)).median_ms", summary.median)
            print("| \(name) | \(format(summary.median, 1)) | \(format(summary.p90, 1)) | \(format(mean, 1)) | \(format(1000 / mean, 1)) |")
        }
        print("")
    }

    /// The first 5 s of the walk-through with the light changed over 2–3 s: ×0.3 and as warm as a
    /// 3000 K lamp (gains in linear light). The session's light path (`FrameMeter.measureLight`,
    /// then `LightSmoother`, as `Session.process` runs them) against each frame's own estimate,
    /// and the change's true effect on the temperature: each frame after it rendered also unchanged,
    /// the colour found there times the change's gains (so that the view's moving on drops out).
    private func reportLightFollowing(_ walk: Walkthrough) {
        let change = (start: 2.0, end: 3.0)
        let warm = ColorTemperature.linearRGB(kelvin: 3000)
        let target = 0.3 * warm / warm.max()
        let frames = walk.frames.prefix { $0.timestamp < 5 }.map { frame -> Walkthrough.Frame in
            var lit = frame
            let share = min(max((frame.timestamp - change.start) / (change.end - change.start), 0), 1)
            lit.light = SIMD3(1, 1, 1) + share * (target - SIMD3(1, 1, 1))
            return lit
        }
        let meter = FrameMeter()
        var smoother = LightSmoother()
        func image(of frame: Walkthrough.Frame) -> Image {
            Image(width: walk.width, height: walk.height, channels: 3, pixels: walk.render(frame).color!)
        }
        let estimates = frames.map { frame -> (time: Double, own: LightEstimate, smoothed: LightEstimate, frame: Walkthrough.Frame) in
            let own = LightEstimate(meter.measureLight(image(of: frame)))
            return (frame.timestamp, own, smoother.update(own, at: frame.timestamp), frame)
        }
        func median(_ values: [Double]) -> Double { Summary(values).median }
        let before = estimates.filter { $0.time >= 1 && $0.time < change.start }
        let after = estimates.filter { $0.time >= change.end + 1 }
        // The light's true change moves the colour found on the same view unchanged by its gains.
        let expected = after.compactMap { estimate -> (expected: Double, found: Double)? in
            var unchanged = estimate.frame
            unchanged.light = SIMD3(1, 1, 1)
            guard let colour = meter.measureLight(image(of: unchanged)).illuminant, let found = estimate.own.colorTemperature
            else { return nil }
            return (ColorTemperature.kelvin(ofLinearRGB: colour * target), found)
        }
        let expectedAfter = median(expected.map(\.expected))
        let errorAfter = median(expected.map { abs($0.found - $0.expected) })
        figures.record("session.light.temperature_error_after_change_k", errorAfter)
        // Followed: the smoothed estimate within 5 % (intensity) and 5 mireds of the frame's own.
        // The view moves on meanwhile, and the frames' own estimates with it, so both when it first
        // is after the change and from when on it stays.
        let close = estimates.map { e -> Bool in
            guard let own = e.own.colorTemperature, let smooth = e.smoothed.colorTemperature else { return false }
            return abs(log(e.smoothed.ambientIntensity / e.own.ambientIntensity)) < 0.05 && abs(1e6 / smooth - 1e6 / own) < 5
        }
        let firstClose = estimates.indices.first { estimates[$0].time >= change.end && close[$0] }.map { estimates[$0].time } ?? .infinity
        let followed = close.lastIndex(of: false).map { estimates[min($0 + 1, estimates.count - 1)].time } ?? 0
        figures.record("session.light.close_after_change_s", firstClose - change.end)
        figures.record("session.light.follow_after_change_s", followed - change.end)
        print("### Light through a scripted change\n")
        print("The coaching walk-through's first 5 s (its first scan, 640×480, 30 fps) with its light changed over "
              + "\(format(change.start, 1))–\(format(change.end, 1)) s to ×0.3 and as warm as a 3000 K lamp. Medians "
              + "over 1–2 s and 4–5 s of each frame's own estimate; the expected temperature after is, frame by frame, "
              + "the colour found on the same view unchanged times the change's gains.\n")
        print("| | ambient intensity | colour temperature K |")
        print("|---|---|---|")
        print("| before | \(format(median(before.map(\.own.ambientIntensity)), 0)) | "
              + "\(format(median(before.compactMap(\.own.colorTemperature)), 0)) |")
        print("| after | \(format(median(after.map(\.own.ambientIntensity)), 0)) | "
              + "\(format(median(after.compactMap(\.own.colorTemperature)), 0)) (expected \(format(expectedAfter, 0)); "
              + "median error a frame \(format(errorAfter, 0))) |")
        print("\nThe smoothed estimate (the records') is within 5 % and 5 mireds of the frame's own "
              + "\(format(firstClose - change.end, 2)) s after the change ends (target: within 0.5 s), and stays so from "
              + "\(format(followed - change.end, 2)) s on (the view, and with it the frames' own estimate, moves on meanwhile).\n")
    }

    /// The light estimate's share of a frame: `FrameMeter.measureLight` (its luminance and chroma
    /// histogram, the search about the locus, the clusters' modes) and the smoothing; then the
    /// main light's direction (each plane's shading, the session's estimator fed and fitted), on
    /// every third frame's planes (detected first, not timed), seen from its true pose.
    private func reportLightCost(_ rendered: [Rendered], intrinsics: Intrinsics) throws {
        let meter = FrameMeter()
        var smoother = LightSmoother()
        let times = rendered.map { frame in
            milliseconds { _ = smoother.update(LightEstimate(meter.measureLight(frame.image)), at: frame.frame.timestamp) }.1
        }
        let summary = Summary(times)
        figures.record("session.speed.light_estimate.median_ms", summary.median)
        let detector = try PlaneDetector()
        var estimator = ShadingLightEstimator()
        let directionTimes = stride(from: 0, to: rendered.count, by: 3).map { index -> Double in
            let frame = rendered[index]
            let detection = detector.detect(in: frame.depth, intrinsics: intrinsics)
            return milliseconds {
                estimator.add(detection.shading(in: frame.image, labelsWidth: frame.depth.width, labelsHeight: frame.depth.height),
                              cameraToWorld: frame.frame.cameraToWorld)
            }.1
        }
        let direction = Summary(directionTimes)
        figures.record("session.speed.light_direction.median_ms", direction.median)
        print("The light estimate alone (measured and smoothed, one thread, 640×480 colour): median "
              + "\(format(summary.median, 3)) ms, p90 \(format(summary.p90, 3)) ms a frame (target: under 0.5 ms). "
              + "The main light's direction from the planes (their shading, the estimator fed and fitted): median "
              + "\(format(direction.median, 3)) ms, p90 \(format(direction.p90, 3)) ms a frame.\n")
    }

    // MARK: Memory

    /// Ten minutes of stream: the walk-through looped at 10 fps (every third frame), time
    /// running on, each loop after a 2 s gap (an interruption and a relocalization); with
    /// recorded poses, with the engine's own RGB-D tracking, whose map grows from what it sees,
    /// and with the colour frames alone as a plain video (monocular tracking).
    private func reportMemory(_ frames: [Rendered], _ walk: Walkthrough, _ references: [ReferenceImage]) throws {
        let loop = stride(from: 0, to: frames.count, by: 3).map { frames[$0] }
        let loopSeconds = frames.last!.frame.timestamp + 2
        print("### Memory over a 10-minute input\n")
        for (recorded, depth) in [(true, true), (false, true), (false, false)] {
            let session = try Session(configuration: configuration(references, depth: depth), input: SessionInput(
                width: walk.width, height: walk.height, hasDepth: depth, hasRecordedPoses: recorded, intrinsics: walk.intrinsics))
            var samples: [(minutes: Double, megabytes: Double, trimmed: Double, keyframes: Int, anchors: Int, posed: Int,
                           errors: [Double])] = []
            var offset = 0.0
            var processed = 0
            // Own RGB-D tracking's world is the first camera's; a monocular world's is the frame its map
            // started from, in its own unit until a poster fixes it: its poses are not scored here.
            let world = recorded ? RigidTransform.identity : loop[0].frame.cameraToWorld.inverse
            while offset < 600 {
                var errors: [Double] = []
                var posed = 0
                for f in loop {
                    let result = session.process(SessionFrame(timestamp: offset + f.frame.timestamp, image: f.image,
                                                              depth: depth ? f.depth : nil,
                                                              recordedPose: recorded ? f.frame.cameraToWorld : nil))
                    processed += 1
                    posed += result.cameraToWorld == nil ? 0 : 1
                    if depth, let pose = result.cameraToWorld {
                        errors.append(pose.difference(to: world * f.frame.cameraToWorld).translation)
                    }
                }
                offset += loopSeconds
                let resident = residentMegabytes()
                returnFreedMemory()
                samples.append((offset / 60, resident, residentMegabytes(), session.keyframeCount, session.anchors.count,
                                posed, errors.sorted()))
            }
            let source = recorded ? "recorded poses" : depth ? "the engine's own tracking" : "monocular tracking of the colour frames alone"
            print("Poses from \(source). The walk-through looped \(samples.count) times at 10 fps (\(processed) frames, "
                  + "\(format(offset / 60, 1)) minutes of stream), each loop after a 2 s gap. Resident memory of the whole process "
                  + "(the rendered frames, \(format(Double(frames.count) * 2.1, 0)) MB, are in it from the start) after each loop:\n")
            print("| after (min) | resident MB | after malloc_trim, MB | keyframes | anchors | frames with a pose | "
                  + "position error in the loop, cm: median, p90, max |")
            print("|---|---|---|---|---|---|---|")
            for s in samples {
                let e = s.errors
                let error = e.isEmpty ? "–" : "\(format(100 * e[e.count / 2], 1)), \(format(100 * e[e.count * 9 / 10], 1)), "
                    + format(100 * e.last!, 1)
                print("| \(format(s.minutes, 1)) | \(format(s.megabytes, 0)) | \(format(s.trimmed, 0)) | \(s.keyframes) | "
                      + "\(s.anchors) | \(s.posed)/\(loop.count) | \(error) |")
            }
            let half = samples.count / 2
            let growth = samples.last!.megabytes - samples[half - 1].megabytes
            let prefix = recorded ? "session.memory." : depth ? "session.memory.own_tracking." : "session.memory.monocular."
            figures.record(prefix + "second_half_growth_mb", growth)
            if !recorded {
                figures.record(prefix + "second_half_keyframes_added", Double(samples.last!.keyframes - samples[half - 1].keyframes))
            }
            if !recorded, depth {
                let lastErrors = samples.last!.errors
                figures.record(prefix + "last_loop_median_error_cm",
                               lastErrors.isEmpty ? .infinity : 100 * lastErrors[lastErrors.count / 2])
            }
            let liveGrowth = samples.last!.trimmed - samples[half - 1].trimmed
            figures.record(prefix + "second_half_trimmed_growth_mb", liveGrowth)
            print("\nGrowth over the second half (\(format(samples[half - 1].minutes, 1))–\(format(samples.last!.minutes, 1)) min): "
                  + "\(format(growth, 1)) MB resident, \(format(liveGrowth, 1)) MB after malloc_trim (glibc keeps freed memory "
                  + "for reuse; trimmed after each sample, so the resident figure is what the allocator kept over one loop).\n")
        }
    }

    /// glibc's malloc_trim(0): free memory the allocator kept goes back to the system (looked
    /// up at run time; the Glibc module does not declare it).
    private func returnFreedMemory() {
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "malloc_trim") else { return }
        _ = unsafeBitCast(symbol, to: (@convention(c) (Int) -> Int32).self)(0)
    }

    private func residentMegabytes() -> Double {
        guard let text = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8) else { return .nan }
        let fields = text.split(separator: " ")
        return fields.count > 1 ? (Double(fields[1]) ?? .nan) * Double(sysconf(Int32(_SC_PAGESIZE))) / 1_048_576 : .nan
    }
}
