import Foundation
import TestData
import Testing
import TestSupport
import WaymarkCore
import WaymarkRelocalization
import WaymarkVision

/// The monocular tracker over the walk-through's colour frames alone (320×240, 30 fps): the
/// rendered views are exact, so what it gets wrong is its own.
@Suite struct MonocularTrackerTests {
    static func walkthrough() throws -> Walkthrough {
        let folder = try #require(Walkthrough.debianPosterFolder)
        return try Walkthrough(posterFolder: folder, width: 320, height: 240, framesPerSecond: 30)
    }

    /// The scan from the first frame: a map within 2 s (the scan's slow start gives little
    /// parallax before), every later frame posed, and the path within 3 % of its length of the
    /// truth after a similarity alignment (the scale is the initialization's, so only the shape
    /// can be compared). At this size the features are coarse: 1.8 % when written; the issue's
    /// 1 % is for 640×480, which the tracking bench measures (0.5 %).
    @Test(.enabled(if: Walkthrough.debianPosterFolder != nil)) func theScanIsTrackedFromColourAloneUpToScale() throws {
        let walk = try Self.walkthrough()
        let tracker = MonocularTracker(intrinsics: walk.intrinsics)
        var firstPosed: Int?
        var estimate: [Trajectory.Sample] = []
        var truth: [Trajectory.Sample] = []
        let scan = walk.frames.indices.prefix { walk.frames[$0].segment == .scan }
        for i in scan {
            let frame = walk.frames[i]
            let update = tracker.track(TrackingFrame(timestamp: frame.timestamp, gray: walk.gray(frame).gray, depth: nil))
            guard let pose = update.cameraToWorld else {
                #expect(firstPosed == nil, "frame \(i) lost after the map started: \(update.state)")
                #expect(update.state == .limited(.initializing))
                continue
            }
            if firstPosed == nil { firstPosed = i }
            estimate.append(.init(timestamp: frame.timestamp, pose: pose))
            truth.append(.init(timestamp: frame.timestamp, pose: frame.cameraToWorld))
        }
        let started = try #require(firstPosed)
        #expect(walk.frames[started].timestamp - walk.frames[0].timestamp <= 2)
        var length = 0.0
        for k in truth.indices.dropFirst() {
            let d = truth[k].pose.translationVector - truth[k - 1].pose.translationVector
            length += (d * d).sum().squareRoot()
        }
        let error = try AbsoluteTrajectoryError(estimate: Trajectory(samples: estimate), reference: Trajectory(samples: truth),
                                                alignment: .similarity)
        print("monocular scan: map at frame \(started) of \(scan.count), ATE \(error.rmse) m over a \(length) m path, "
              + "\(tracker.map.keyframes.count) keyframes")
        #expect(error.rmse <= 0.03 * length)
    }

    /// Frames without parallax (the camera turning in place) never start a map, and say so.
    @Test(.enabled(if: Walkthrough.debianPosterFolder != nil)) func aCameraTurningInPlaceStartsNoMap() throws {
        let walk = try Self.walkthrough()
        let start = walk.frames[0].cameraToWorld
        let turning = walk.along((0..<20).map { k in
            start * RigidTransform(rotation: RigidTransform.rotation(rotationVector: [0, Double(k) * 0.5 * .pi / 180, 0]),
                                   translation: [0, 0, 0])
        })
        let tracker = MonocularTracker(intrinsics: walk.intrinsics)
        for (k, frame) in turning.frames.enumerated() {
            let update = tracker.track(TrackingFrame(timestamp: frame.timestamp, gray: turning.gray(frame).gray, depth: nil))
            #expect(update.cameraToWorld == nil && update.state == .limited(.initializing), "frame \(k)")
        }
        #expect(tracker.map.keyframes.isEmpty)
        #expect(tracker.initializationRefusal != nil)
    }
}
