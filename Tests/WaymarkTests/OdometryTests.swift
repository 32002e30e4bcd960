import Foundation
import Testing
import TestSupport
import WaymarkCore
import WaymarkVision

/// OpenCV's RGB-D odometry behind CSupport, on the walk-through's first three seconds.
@Suite struct OdometryTests {
    @Test(.enabled(if: Walkthrough.debianPosterFolder != nil)) func odometryFollowsTheWalkThroughWithLittleDrift() throws {
        let folder = try #require(Walkthrough.debianPosterFolder)
        let walk = try Walkthrough(posterFolder: folder, width: 320, height: 240, framesPerSecond: 10)
        let odometry = RGBDOdometry(intrinsics: walk.intrinsics, method: .rgbdICP)
        var pose = walk.frames[0].cameraToWorld
        var estimate: [Trajectory.Sample] = []
        var failures = 0
        for frame in walk.frames.prefix(30) {
            let rendering = walk.render(frame)
            let color = Image(width: walk.width, height: walk.height, channels: 3, pixels: rendering.color!)
            if let motion = odometry.track(gray: color.gray(), depth: rendering.depth) {
                pose = pose * motion.inverse
            } else if !estimate.isEmpty {
                failures += 1
            }
            estimate.append(Trajectory.Sample(timestamp: frame.timestamp, pose: pose))
        }
        let truth = Trajectory(samples: walk.frames.prefix(30).map { Trajectory.Sample(timestamp: $0.timestamp, pose: $0.cameraToWorld) })
        let drift = try AbsoluteTrajectoryError(estimate: Trajectory(samples: estimate), reference: truth, alignment: .none)
        // OpenCV refuses one frame of the 30 (its convergence check); the next one tracks again.
        #expect(failures <= 1)
        print("odometry drift over 3 s: rmse \(drift.rmse) m, max \(drift.maximum) m")
        // Exact depth and a textured room: under 2 cm RMSE and 5 cm at worst (measured 1.6 and 2.7 cm;
        // photometric alone drifts 7 cm, depth alone 4 cm).
        #expect(drift.rmse < 0.02 && drift.maximum < 0.05)
    }
}
