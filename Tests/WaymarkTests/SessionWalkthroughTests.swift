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
            results.first { $0.timestamp == frame.timestamp }!.signals.brightness < configuration.coaching.darkBelow
        })

        let changes = results.filter(\.coaching.changed).map(\.timestamp)
        for (a, b) in zip(changes, changes.dropFirst()) { #expect(b - a >= 2 - 1e-9, "changes at \(a) and \(b) s") }
        #expect(results.last?.tracking?.state == .normal)
        #expect(results.last?.coaching.message == nil)
    }
}
