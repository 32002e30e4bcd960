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

    /// The case at 640×480: a map from the odd frames of a circle filmed at 2 fps (20
    /// frames, 1 s and 18° apart, true poses as the recorded source, as `map build` uses a
    /// ground truth) relocalizes at least 90 % of the even frames within 5 cm / 5°, none wrong;
    /// real photographs of an office are each refused.
    @Test(.enabled(if: Walkthrough.debianPosterFolder != nil && SharedDatasets.has("tum_fr3_office_frames/rgb")))
    func aMapOfTheOddFramesRelocalizesTheEvenOnesAndRefusesOtherPlaces() throws {
        let walk = try Self.tableTop(width: 640, height: 480, framesPerSecond: 2)
        let map = walk.mapOfOddFrames()
        #expect(map.keyframes.count >= 10, "\(map.keyframes.count) keyframes from 20 frames")
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
