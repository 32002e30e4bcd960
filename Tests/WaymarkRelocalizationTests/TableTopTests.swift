import Foundation
import TestData
import Testing
import TestSupport
import WaymarkCore
import WaymarkRelocalization
import WaymarkVision

/// The table-top scene (three small boxes and a lying poster, the camera circling at 0.3–0.6 m):
/// the scale a robot arm's camera or a phone over a desk sees, with the same defaults as a room.
@Suite struct TableTopTests {
    static func tableTop(width: Int, height: Int, framesPerSecond: Double) throws -> Walkthrough {
        let folder = try #require(Walkthrough.debianPosterFolder)
        return try Walkthrough(posterFolder: folder, width: width, height: height, framesPerSecond: framesPerSecond,
                               script: .tableTop)
    }

    /// The engine's own tracking over the whole circle at 320×240: every frame posed by the
    /// map's points, drifting under 5 mm RMSE from the true path. Keyframes come with what is
    /// seen, not with frames: filmed at 5 fps the circle has twice the frames of 2.5 fps but
    /// makes at most 1.6 times the keyframes (measured: 33 and 22; the benchmark's 30 fps
    /// circle, twelve times the frames, makes 61).
    @Test(.enabled(if: Walkthrough.debianPosterFolder != nil)) func theCircleIsTrackedThroughoutByTheMap() throws {
        var keyframes: [Double: Int] = [:]
        for fps in [2.5, 5] {
            let walk = try Self.tableTop(width: 320, height: 240, framesPerSecond: fps)
            let tracker = WorldTracker(intrinsics: walk.intrinsics)
            let first = walk.frames[0].cameraToWorld.inverse
            var estimate: [Trajectory.Sample] = []
            var truth: [Trajectory.Sample] = []
            for frame in walk.frames {
                let (gray, depth) = walk.gray(frame)
                let update = tracker.track(TrackingFrame(timestamp: frame.timestamp, gray: gray, depth: depth))
                let pose = try #require(update.cameraToWorld, "\(fps) fps, frame \(frame.index)")
                if frame.index > 0 {
                    #expect(update.poseSource == .localMap, "\(fps) fps, frame \(frame.index): \(String(describing: update.poseSource))")
                }
                estimate.append(.init(timestamp: frame.timestamp, pose: pose))
                truth.append(.init(timestamp: frame.timestamp, pose: first * frame.cameraToWorld))
            }
            let drift = try AbsoluteTrajectoryError(estimate: Trajectory(samples: estimate), reference: Trajectory(samples: truth),
                                                    alignment: .none)
            #expect(drift.rmse < 0.005, "\(fps) fps: rmse \(drift.rmse) m")
            keyframes[fps] = tracker.map.keyframes.count
        }
        let (sparse, dense) = (try #require(keyframes[2.5]), try #require(keyframes[5]))
        #expect(sparse > 1 && Double(dense) <= 1.6 * Double(sparse), "\(sparse) keyframes at 2.5 fps, \(dense) at 5 fps")
    }

    /// The circle from its colour alone at 640×480 with loop closure: coming back round, the
    /// camera closes a loop on the right place (the matched keyframe's true camera within 30 cm
    /// of the closing one's; the mirror poses a planar view allows were 1 m off, across the
    /// table) and the map's keyframes stay within 0.5 % of the circle's length of the truth after
    /// a similarity alignment (when written, at 10 fps: one loop, 0.53 cm over 2.93 m).
    @Test(.enabled(if: Walkthrough.debianPosterFolder != nil)) func aSingleCameraClosesTheCircleOnTheRightPlace() throws {
        let walk = try Self.tableTop(width: 640, height: 480, framesPerSecond: 10)
        var options = MonocularTrackingOptions()
        options.loopClosure = LoopClosureOptions()
        let tracker = MonocularTracker(intrinsics: walk.intrinsics, options: options)
        var loops: [LoopClosure] = []
        for frame in walk.frames {
            let update = tracker.track(TrackingFrame(timestamp: frame.timestamp, gray: walk.gray(frame).gray, depth: nil))
            for case .loopClosed(let loop) in update.events { loops.append(loop) }
        }
        let truthAt = Dictionary(walk.frames.map { ($0.timestamp, $0.cameraToWorld) }, uniquingKeysWith: { a, _ in a })
        let keyframes = tracker.map.keyframes
        #expect(!loops.isEmpty, "no loop closed over \(keyframes.count) keyframes")
        for loop in loops {
            let times = [loop.keyframe, loop.matched].map { id in keyframes.first { $0.id == id }?.timestamp }
            guard let closing = times[0].flatMap({ truthAt[$0] }), let matched = times[1].flatMap({ truthAt[$0] }) else { continue }
            let apart = closing.difference(to: matched).translation
            #expect(apart < 0.3, "keyframe \(loop.keyframe) closed on \(loop.matched), \(apart) m apart in truth")
        }
        let estimate = keyframes.map { Trajectory.Sample(timestamp: $0.timestamp, pose: $0.cameraToWorld) }
        let truth = keyframes.map { Trajectory.Sample(timestamp: $0.timestamp, pose: truthAt[$0.timestamp]!) }
        var length = 0.0
        for k in walk.frames.indices.dropFirst() {
            length += walk.frames[k].cameraToWorld.difference(to: walk.frames[k - 1].cameraToWorld).translation
        }
        let error = try AbsoluteTrajectoryError(estimate: Trajectory(samples: estimate), reference: Trajectory(samples: truth),
                                                alignment: .similarity)
        print("table-top from colour alone: \(loops.count) loops, keyframe ATE \(error.rmse) m over \(length) m")
        #expect(error.rmse < 0.005 * length)
    }

    /// The case at 640×480: a map from the odd frames of a circle filmed at 2 fps (20
    /// frames, 1 s and 18° apart, true poses as the recorded source, as `map build` uses a
    /// ground truth) relocalizes at least 90 % of the even frames within 5 cm / 5°, none wrong;
    /// real photographs of an office are each refused.
    @Test(.enabled(if: Walkthrough.debianPosterFolder != nil && SharedDatasets.has("tum_fr3_office_frames/rgb")))
    func aMapOfTheOddFramesRelocalizesTheEvenOnesAndRefusesOtherPlaces() throws {
        let walk = try Self.tableTop(width: 640, height: 480, framesPerSecond: 2)
        let map = walk.mapOfOddFrames()
        #expect(map.keyframes.count > 1, "\(map.keyframes.count) keyframes from 20 frames")
        let relocalizer = Relocalizer(map: map)
        var right = 0
        for frame in walk.evenFrames {
            let (gray, depth) = walk.gray(frame)
            let result = relocalizer.relocalize(gray: gray, depth: depth, intrinsics: walk.intrinsics)
            guard let pose = result.cameraToWorld else { continue }
            let error = pose.difference(to: frame.cameraToWorld)
            #expect(error.translation <= 0.05 && error.rotationDegrees <= 5, "frame \(frame.index): wrong by \(error)")
            if error.translation <= 0.05 && error.rotationDegrees <= 5 { right += 1 }
        }
        #expect(Double(right) >= 0.9 * Double(walk.evenFrames.count), "\(right) of \(walk.evenFrames.count)")
        let office = try #require(SharedDatasets.path("tum_fr3_office_frames/rgb"))
        for file in try FileManager.default.contentsOfDirectory(atPath: office).filter({ $0.hasSuffix(".png") }).sorted() {
            let result = relocalizer.relocalize(gray: try Image(contentsOf: "\(office)/\(file)", gray: true),
                                                intrinsics: Intrinsics(fx: 535.4, fy: 539.2, cx: 320.6, cy: 248.1))
            #expect(!result.isRelocalized, "\(file): \(result.reason), \(result.inliers) inliers")
        }
    }
}
