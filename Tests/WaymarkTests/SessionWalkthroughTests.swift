import Foundation
import Testing
import TestSupport
import Waymark

/// The whole Session on the first 9 s of the coaching walk-through (320×240 RGB-D at 5 fps,
/// exact poses): a scan that finds the room's surfaces, then 2.5 s of darkness, then light.
@Suite struct SessionWalkthroughTests {
    @Test(.enabled(if: Walkthrough.debianPosterFolder != nil)) func coachingFollowsTheDarknessAndTheGoalIsReachedOnce() throws {
        let folder = try #require(Walkthrough.debianPosterFolder)
        let walk = try Walkthrough(posterFolder: folder, width: 320, height: 240, framesPerSecond: 5, script: .coaching)
        var configuration = SessionConfiguration()
        configuration.coaching = CoachingOptions(goal: .anySurface, language: .simplifiedChinese)
        let session = try Session(configuration: configuration, input: SessionInput(
            width: 320, height: 240, hasDepth: true, hasRecordedPoses: true, intrinsics: walk.intrinsics))
        let frames = walk.frames.filter { $0.timestamp < 9 }
        let results = frames.map { frame in
            let rendering = walk.render(frame)
            return session.process(SessionFrame(
                timestamp: frame.timestamp, image: Image(width: 320, height: 240, channels: 3, pixels: rendering.color!),
                depth: DepthImage(width: 320, height: 240, metres: rendering.depth), recordedPose: frame.cameraToWorld))
        }
        let darkStart = try #require(frames.first { $0.segment == .dark }).timestamp
        let darkEnd = try #require(frames.last { $0.segment == .dark }).timestamp + 0.2

        let done = results.filter(\.coaching.goalReachedNow)
        #expect(done.count == 1 && done[0].timestamp < darkStart, "goal reached at \(done.map(\.timestamp))")
        #expect(session.planes.anchors.count >= 2)

        let dark = results.filter { $0.coaching.message?.code == .lowLight }
        let shown = try #require(dark.first).timestamp
        #expect(shown >= darkStart && shown <= darkStart + 1, "low light shown at \(shown) s, darkness from \(darkStart) s")
        let cleared = try #require(results.first { $0.timestamp > shown && $0.coaching.message?.code != .lowLight }).timestamp
        #expect(cleared >= darkEnd && cleared <= darkEnd + 2, "cleared at \(cleared) s, darkness until \(darkEnd) s")
        #expect(dark[0].coaching.message?.text == CoachingCatalogue.text(.lowLight, object: nil, language: .simplifiedChinese))
        #expect(frames.filter { $0.segment == .dark }.allSatisfy { frame in
            results.first { $0.timestamp == frame.timestamp }!.signals.ambientIntensity < configuration.coaching.darkBelow
        })

        let changes = results.filter(\.coaching.changed).map(\.timestamp)
        for (a, b) in zip(changes, changes.dropFirst()) { #expect(b - a >= 2 - 1e-9, "changes at \(a) and \(b) s") }
        #expect(results.last?.tracking?.state == .normal)
        #expect(results.last?.coaching.message == nil)
    }

    /// A person's tap and buttons, on the library itself: after the scan a tap places a named
    /// anchor where the rendered depth says the wall or floor is; pause hides every anchor
    /// once (pausing again while paused does nothing); the following frames relocalize and
    /// restore the tapped anchor where it was; reset removes every anchor.
    @Test(.enabled(if: Walkthrough.debianPosterFolder != nil)) func placePauseResumeAndResetThroughTheLibrary() throws {
        let folder = try #require(Walkthrough.debianPosterFolder)
        let walk = try Walkthrough(posterFolder: folder, width: 320, height: 240, framesPerSecond: 5, script: .coaching)
        let session = try Session(configuration: SessionConfiguration(), input: SessionInput(
            width: 320, height: 240, hasDepth: true, hasRecordedPoses: true, intrinsics: walk.intrinsics))
        func process(_ frame: Walkthrough.Frame) -> FrameResult {
            let rendering = walk.render(frame)
            return session.process(SessionFrame(
                timestamp: frame.timestamp, image: Image(width: 320, height: 240, channels: 3, pixels: rendering.color!),
                depth: DepthImage(width: 320, height: 240, metres: rendering.depth), recordedPose: frame.cameraToWorld))
        }
        func distance(_ a: SIMD3<Double>, _ b: SIMD3<Double>) -> Double { ((a - b) * (a - b)).sum().squareRoot() }
        // The scan, up to a second before the darkness.
        let scan = walk.frames.filter { $0.timestamp < 4 }
        for frame in scan { _ = process(frame) }
        #expect(session.planes.anchors.count >= 2)

        // Tap the centre of the last frame: the anchor lies where that pixel's depth puts it.
        let last = try #require(scan.last)
        let (u, v) = (160, 120)
        let z = Double(walk.render(last).depth[v * 320 + u])
        let k = walk.intrinsics
        let seen = last.cameraToWorld.apply(SIMD3((Double(u) + 0.5 - k.cx) / k.fx * z, (Double(v) + 0.5 - k.cy) / k.fy * z, z))
        let placed = try #require(session.place("lamp", pixel: SIMD2(Double(u) + 0.5, Double(v) + 0.5)))
        #expect(placed.kind == .named && placed.name == "lamp")
        let placedAt = SIMD3(placed.transform.translation[0], placed.transform.translation[1], placed.transform.translation[2])
        // Tolerance: the surface is a plane fitted to the depth (millimetres), not the pixel's own depth.
        #expect(distance(placedAt, seen) < 0.02, "placed \(placedAt), depth says \(seen)")
        #expect(session.anchors.contains(placed))

        let paused = session.pause()
        #expect(paused.events == [.interrupted(.paused)])
        let hidden = Set(paused.anchorEvents.compactMap { event -> Int? in if case .hidden(let id) = event { id } else { nil } })
        #expect(hidden == Set(session.anchors.map(\.id)) && hidden.contains(placed.id))
        #expect(session.pause().events.isEmpty && session.pause().anchorEvents.isEmpty)

        // The camera goes on from where it was: the next frames find it in the map again.
        var restored: WorldAnchor?
        for frame in walk.frames.filter({ $0.timestamp > last.timestamp }).prefix(10) where restored == nil {
            let result = process(frame)
            restored = result.anchorEvents.lazy.compactMap { event -> WorldAnchor? in
                if case .restored(let anchor) = event, anchor.id == placed.id { anchor } else { nil }
            }.first
        }
        let back = try #require(restored, "the tapped anchor was not restored within 10 frames")
        let backAt = SIMD3(back.transform.translation[0], back.transform.translation[1], back.transform.translation[2])
        #expect(distance(backAt, placedAt) < 1e-9)
        #expect(session.relocalizations == 1 && session.interruptions == 1)

        let anchorsBefore = Set(session.anchors.map(\.id))
        let reset = session.reset()
        #expect(reset.events.contains(.reset))
        let removed = Set(reset.anchorEvents.compactMap { event -> Int? in if case .removed(let id) = event { id } else { nil } })
        #expect(removed == anchorsBefore && removed.contains(placed.id))
        #expect(session.anchors.isEmpty)
    }

    /// With the engine's own tracking, surfaces join the world only where tracking is normal:
    /// through the coaching walk-through's turn of 240° in 1.5 s (320×240 at 10 fps), the
    /// frames whose tracking is limited find surfaces but anchor none of them.
    @Test(.enabled(if: Walkthrough.debianPosterFolder != nil)) func surfacesJoinTheWorldOnlyWhereTrackingIsNormal() throws {
        let folder = try #require(Walkthrough.debianPosterFolder)
        let walk = try Walkthrough(posterFolder: folder, width: 320, height: 240, framesPerSecond: 10, script: .coaching)
        let session = try Session(configuration: SessionConfiguration(), input: SessionInput(
            width: 320, height: 240, hasDepth: true, hasRecordedPoses: false, intrinsics: walk.intrinsics))
        let turnEnd = try #require(walk.frames.last { $0.segment == .fast }).timestamp
        var limitedWithSurfaces = 0
        for frame in walk.frames where frame.timestamp <= turnEnd + 0.5 {
            let rendering = walk.render(frame)
            let result = session.process(SessionFrame(
                timestamp: frame.timestamp, image: Image(width: 320, height: 240, channels: 3, pixels: rendering.color!),
                depth: DepthImage(width: 320, height: 240, metres: rendering.depth)))
            guard let tracking = result.tracking, tracking.cameraToWorld != nil, tracking.state != .normal else { continue }
            if !result.planes.isEmpty { limitedWithSurfaces += 1 }
            #expect(result.planeAnchorIDs.allSatisfy { $0 == nil } && result.planeEvents.isEmpty,
                    "\(frame.timestamp) s, \(tracking.state): \(result.planeEvents.count) plane events")
        }
        #expect(limitedWithSurfaces >= 2, "frames with limited tracking and surfaces: \(limitedWithSurfaces)")
        #expect(session.planes.anchors.count >= 2)
    }
}
