import Foundation
import TestSupport
import Waymark

/// `waymark-bench tracking --part loop`: the camera coming back to a place it mapped, with
/// loop closure and without, in the same run. The keyframes' trajectory (the map's, as it
/// stands at the end: what a loop corrects) and the frames' poses as tracked (online, so a
/// correction shows only after it) against the truth.
extension TrackingSuite {
    struct LoopRun {
        var poses: [RigidTransform?] = []
        var ms: [Double] = []
        var closures: [(time: Double, loop: LoopClosure)] = []
        var keyframes: [Keyframe] = []
        /// Surfaces anchored from the tracked poses (moved with each loop closed, as a session moves them).
        var planes: PlaneMap
    }

    func loopClosure() throws {
        guard let posters = Walkthrough.installedPosterFolder() else { throw BenchError("the walk-through needs opencv-doc") }
        print("### Loop closure\n")
        print("Paths that come back to where they started: the table-top circle (20 s, one turn; development), the same "
              + "circle in another seed's textures and shake (validation: measured, not tuned on), and the coaching "
              + "walk-through up to its interruption (24 s: a scan, darkness, a full turn in place, the plain east wall "
              + "with odometry alone, then back to the north view it began at). The tracker with loop closure and without, "
              + "on the same frames, with depth (RGB-D) and from their colour alone (a single camera). Keyframe ATE: the "
              + "map's keyframes at the end against the truth at their times; frame ATE: each frame's pose as tracked; both "
              + "after a rigid alignment (a similarity one from a single camera, its scale free), cm. Anchors (RGB-D only): the plane anchors made from "
              + "each frame's surfaces at its tracked pose where tracking is normal (as a session makes them; moved by "
              + "each loop closed as a session moves them), each anchor's centre against the nearest true surface of its orientation (within 10°) in "
              + "the first camera's world, no alignment: how many lie within 5 cm of one, and the median offset, cm.\n")
        let table = try Walkthrough(posterFolder: posters, width: 640, height: 480, framesPerSecond: 30, script: .tableTop)
        let otherTable = try Walkthrough(posterFolder: posters, width: 640, height: 480, framesPerSecond: 30, seed: 2,
                                         script: .tableTop)
        let coaching = try Walkthrough(posterFolder: posters, width: 640, height: 480, framesPerSecond: 30, script: .coaching)
        let untilGap = coaching.frames.firstIndex { $0.segment == .afterInterruption } ?? coaching.frames.count
        let sequences = [try write(table, name: "loop table-top"), try write(otherTable, name: "loop table-top, seed 2 (validation)"),
                         try write(coaching, name: "loop coaching", frameLimit: untilGap)]
        print("| path | camera | loop closure | keyframe ATE cm | frame ATE cm | keyframes | loops closed (time s: keyframe → matched, "
              + "correction cm / °, scale, inliers, points joined) | plane anchors | within 5 cm of a true surface | median offset cm | ms per frame, median | max |")
        print("|---|---|---|---|---|---|---|---|---|---|---|---|")
        for (sequence, walk) in zip(sequences, [table, otherTable, coaching]) {
            let truth = try open(sequence).frames
            let first = walk.frames[0].cameraToWorld.inverse
            let trueSurfaces = walk.surfaces.map { surface in
                let normal = first.applyRotation(surface.normal)
                return Plane(normal: normal, offset: -(normal * first.apply(surface.origin)).sum())
            }
            let truthAt = Dictionary(truth.map { ($0.timestamp, $0.cameraToWorld!) }, uniquingKeysWith: { a, _ in a })
            for (singleCamera, closing) in [(false, false), (false, true), (true, false), (true, true)] {
                let run: LoopRun
                if singleCamera {
                    var options = MonocularTrackingOptions()
                    options.loopClosure = closing ? LoopClosureOptions() : nil
                    // The same frames' colour alone (no surfaces: they need a metric map).
                    let tracked = try trackMonocular(try open(sequence), sequence, options: options)
                    run = LoopRun(poses: tracked.run.poses, ms: tracked.run.ms, closures: tracked.closures,
                                  keyframes: tracked.keyframes, planes: PlaneMap())
                } else {
                    var options = WorldTrackingOptions()
                    options.loopClosure = closing ? LoopClosureOptions() : nil
                    run = try track(try open(sequence), sequence, options: options, down: first.applyRotation(SIMD3(0, -1, 0)))
                }
                // A single camera's map has its own scale: ATE after a similarity alignment.
                let alignment: AbsoluteTrajectoryError.Alignment = singleCamera ? .similarity : .rigid
                let offsets = run.planes.anchors.map { anchor in
                    trueSurfaces.filter { $0.angle(to: anchor.surface.plane) <= 10 * .pi / 180 }
                        .map { abs($0.signedDistance(to: anchor.surface.center)) }.min() ?? .infinity
                }
                let keyframePoses = run.keyframes.compactMap { k in truthAt[k.timestamp].map { (k.cameraToWorld, $0, k.timestamp) } }
                let keyframeATE = try errors(keyframePoses.map(\.0), truth: keyframePoses.map(\.1),
                                             times: keyframePoses.map(\.2), alignment: alignment).ate
                let frameATE = try errors(run.poses, truth: truth.map(\.cameraToWorld), times: truth.map(\.timestamp),
                                          alignment: alignment).ate
                let loops = run.closures.map { c in
                    "\(format(c.time, 1)): \(c.loop.keyframe) → \(c.loop.matched), \(format(c.loop.correction.translation * 100, 2)) / "
                        + "\(format(c.loop.correction.rotationDegrees, 2)), \(format(c.loop.scaleCorrection, 3)), \(c.loop.inliers), "
                        + "\(c.loop.joinedPoints)"
                }
                let summary = Summary(run.ms)
                print("| \(sequence.name) | \(singleCamera ? "colour only" : "RGB-D") | \(closing ? "on" : "off") | \(format(keyframeATE * 100, 3)) | \(format(frameATE * 100, 3)) | "
                      + "\(run.keyframes.count) | \(loops.isEmpty ? "none" : loops.joined(separator: "; ")) | "
                      + "\(singleCamera ? "–" : String(offsets.count)) | \(singleCamera ? "–" : String(offsets.filter { $0 <= 0.05 }.count)) | "
                      + "\(offsets.isEmpty ? "–" : format(offsets.sorted()[offsets.count / 2] * 100, 1)) | "
                      + "\(format(summary.median, 1)) | \(format(run.ms.max() ?? .nan, 1)) |")
                let name = "tracking.loop.\(Figures.slug(sequence.name))\(singleCamera ? ".monocular" : "").\(closing ? "closing" : "open")"
                figures.record("\(name).keyframe_ate_cm", keyframeATE * 100)
                figures.record("\(name).loops", Double(run.closures.count))
                if !singleCamera { figures.record("\(name).anchors_on_true_surfaces", Double(offsets.filter { $0 <= 0.05 }.count)) }
            }
        }
        print()
    }

    /// `down`: gravity in the first camera's world (the tracker's).
    private func track(_ source: RGBDRecordingSource, _ sequence: Sequence, options: WorldTrackingOptions,
                       down: SIMD3<Double>) throws -> LoopRun
    {
        let tracker = WorldTracker(intrinsics: sequence.intrinsics, options: options)
        let detector = try PlaneDetector()
        var planeOptions = PlaneMapOptions()
        planeOptions.down = down
        var run = LoopRun(planes: PlaneMap(options: planeOptions))
        var identifiers = AnchorIdentifiers()
        while let frame = try source.next() {
            guard let gray = frame.gray, let depth = frame.depth else {
                throw BenchError("\(sequence.name), frame \(frame.index): \(frame.error?.message ?? "no image or depth")")
            }
            let (update, ms) = milliseconds {
                tracker.track(TrackingFrame(timestamp: frame.timestamp, gray: gray, depth: depth.metres))
            }
            run.poses.append(update.cameraToWorld)
            run.ms.append(ms)
            for case .loopClosed(let loop) in update.events {
                run.closures.append((frame.timestamp, loop))
                run.planes.correct { loop.correction(near: $0) }
            }
            if let pose = update.anchoringPose {
                let detection = detector.detect(in: depth, intrinsics: sequence.intrinsics, down: pose.applyInverseRotation(down))
                _ = run.planes.integrate(detection, cameraToWorld: pose, identifiers: &identifiers)
            }
        }
        run.keyframes = tracker.map.keyframes
        return run
    }
}
