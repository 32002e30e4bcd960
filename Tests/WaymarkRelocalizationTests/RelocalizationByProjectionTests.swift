import Foundation
import Testing
import WaymarkCore
import WaymarkRelocalization
import WaymarkVision

/// A first pose from few matches, refined on the map's points matched by projection (ORB-SLAM2's
/// order), on an exact synthetic map: one keyframe holding 200 points, and a frame 15 cm and a
/// few degrees away that sees all of them, exactly, but whose descriptors match only 40 of
/// them closely enough for the unconstrained search (the others differ by 70 bits: past its 64,
/// within the search by projection's 80).
@Suite struct RelocalizationByProjectionTests {
    static let intrinsics = LocalAdjustmentTests.intrinsics
    static let framePose = RigidTransform(rotation: [cos(0.05), 0, sin(0.05), 0, 1, 0, -sin(0.05), 0, cos(0.05)],
                                          translation: [0.15, 0.02, 0.03])

    static func scene() -> (map: WorldMap, features: FeatureSet, depth: [Float]) {
        let points = LocalAdjustmentTests.points
        let keyframe = LocalAdjustmentTests.keyframe(0, pose: .identity, truePose: .identity, held: points, truth: points,
                                                     descriptorSeed: 21)
        var descriptors = keyframe.features.descriptors
        let bytes = FeatureSet.descriptorBytes
        var random = SeededGenerator(seed: 22)
        for i in 40..<points.count {
            // 70 different bits of the point's descriptor flipped.
            var bits = Array(0..<(8 * bytes))
            bits.shuffle(using: &random)
            for bit in bits.prefix(70) { descriptors[i * bytes + bit / 8] ^= UInt8(1 << (bit % 8)) }
        }
        var keypoints: [Keypoint] = []
        var depth = [Float](repeating: 0, count: 640 * 480)
        for point in points {
            let camera = framePose.applyInverse(point)
            let pixel = Point2(intrinsics.fx * camera.x / camera.z + intrinsics.cx, intrinsics.fy * camera.y / camera.z + intrinsics.cy)
            keypoints.append(Keypoint(location: pixel, size: 31, angle: 0, response: 1, octave: 0))
            for dy in -1...1 {
                for dx in -1...1 { depth[(Int(pixel.y) + dy) * 640 + Int(pixel.x) + dx] = Float(camera.z) }
            }
        }
        return (WorldMap(keyframes: [keyframe]), FeatureSet(keypoints: keypoints, descriptors: descriptors), depth)
    }

    /// With depth, 40 first inliers (≥ 30) are enough to look further: all 200 points are found
    /// by projection and the pose is exact. Without depth the first pose needs 50 and is refused.
    @Test func aFirstPoseOfFewInliersIsRefinedByProjectionOnlyWithDepth() throws {
        let (map, features, depth) = Self.scene()
        // Every frame point is inside the image.
        #expect(features.keypoints.allSatisfy { $0.location.x >= 1 && $0.location.x < 639 && $0.location.y >= 1 && $0.location.y < 479 })
        let relocalizer = Relocalizer(map: map)
        let withDepth = relocalizer.relocalize(features: features, width: 640, height: 480, depth: depth, intrinsics: Self.intrinsics)
        #expect(withDepth.isRelocalized, "\(withDepth.reason)")
        #expect(withDepth.inliers == 200)
        let pose = try #require(withDepth.cameraToWorld)
        let error = pose.difference(to: Self.framePose)
        #expect(error.translation < 1e-6 && error.rotationDegrees < 1e-4, "\(error)")

        // Without depth its 40 matches are short of a first pose's 50: no pose is tried.
        let withoutDepth = relocalizer.relocalize(features: features, width: 640, height: 480, intrinsics: Self.intrinsics)
        #expect(withoutDepth.reason == .tooFewInliers && withoutDepth.cameraToWorld == nil, "\(withoutDepth.reason)")
    }
}
