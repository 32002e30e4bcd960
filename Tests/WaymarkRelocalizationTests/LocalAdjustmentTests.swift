import Foundation
import Testing
import WaymarkCore
import WaymarkRelocalization
import WaymarkVision

/// Local bundle adjustment on exact synthetic maps: three keyframes 20 cm apart, 200 points
/// 2–4 m away seen by all three with exact pixels and depths.
@Suite struct LocalAdjustmentTests {
    static let intrinsics = Intrinsics(fx: 525, fy: 525, cx: 320, cy: 240)
    static let poses = (0..<3).map { k in
        RigidTransform(rotation: [1, 0, 0, 0, 1, 0, 0, 0, 1], translation: [0.2 * Double(k), 0, 0.05 * Double(k)])
    }
    static let points: [SIMD3<Double>] = {
        var random = SeededGenerator(seed: 3)
        return (0..<200).map { _ in
            SIMD3(Double.random(in: -1...1, using: &random), Double.random(in: -0.7...0.7, using: &random),
                  Double.random(in: 2...4, using: &random))
        }
    }()

    /// A keyframe at `pose` holding `held` (the positions the map has) for the true `truth`,
    /// which it sees exactly from `truePose`. Its descriptors are all zero, or random from
    /// `descriptorSeed` (the same seed gives the same descriptor to the same point index).
    static func keyframe(_ id: Int, pose: RigidTransform, truePose: RigidTransform, held: [SIMD3<Double>],
                         truth: [SIMD3<Double>], descriptorSeed: UInt64? = nil) -> Keyframe
    {
        var keypoints: [Keypoint] = []
        var depths: [Float] = []
        for point in truth {
            let camera = truePose.applyInverse(point)
            keypoints.append(Keypoint(location: Point2(intrinsics.fx * camera.x / camera.z + intrinsics.cx,
                                                       intrinsics.fy * camera.y / camera.z + intrinsics.cy),
                                      size: 31, angle: 0, response: 1, octave: 0))
            depths.append(Float(camera.z))
        }
        var random = SeededGenerator(seed: descriptorSeed ?? 0)
        let descriptors = (0..<(truth.count * FeatureSet.descriptorBytes)).map { _ in
            descriptorSeed == nil ? 0 : UInt8.random(in: 0...255, using: &random)
        }
        return Keyframe(id: id, timestamp: Double(id), cameraToWorld: pose, intrinsics: intrinsics, width: 640, height: 480,
                        features: FeatureSet(keypoints: keypoints, descriptors: descriptors), points: held, depths: depths)
    }

    static func largestPointError(_ keyframe: Keyframe, _ truth: [SIMD3<Double>]) -> Double {
        zip(keyframe.points, truth).map { (($0 - $1) * ($0 - $1)).sum().squareRoot() }.max() ?? .infinity
    }

    /// A point's parallax is the widest angle between the rays from the keyframes that hold
    /// it: seen from the three keyframes (0.2 m apart, stepping 5 cm forward), a point 2 m
    /// ahead of the middle one is at atan(0.2/2.05) + atan(0.2/1.95) from the outer two; a
    /// point the middle keyframe alone holds has none.
    @Test func aPointsParallaxIsTheWidestAngleBetweenItsRays() {
        let (seenByAll, seenOnce) = (SIMD3<Double>(0.2, 0, 2.05), SIMD3<Double>(0.1, 0.1, 3))
        let map = WorldMap(keyframes: Self.poses.enumerated().map { k, pose in
            let held = k == 1 ? [seenByAll, seenOnce] : [seenByAll]
            return Self.keyframe(k, pose: pose, truePose: pose, held: held, truth: held)
        })
        let expected = (atan(0.2 / 2.05) + atan(0.2 / 1.95)) * 180 / .pi
        #expect(abs(map.parallaxDegrees(of: seenByAll) - expected) < 1e-9)
        #expect(map.parallaxDegrees(of: seenOnce) == 0)
    }

    /// Points the map placed 2 cm off come back to the truth; no keyframe moves.
    @Test func pointsReturnToTheirExactPositions() throws {
        var random = SeededGenerator(seed: 8)
        let held = Self.points.map { $0 + 0.02 * SIMD3(random.nextGaussian(), random.nextGaussian(), random.nextGaussian()) }
        var map = WorldMap(keyframes: Self.poses.enumerated().map { k, pose in
            Self.keyframe(k, pose: pose, truePose: pose, held: held, truth: Self.points)
        })
        let adjustment = try #require(try map.adjustLocally(around: 2))
        #expect(adjustment.points == 200 && adjustment.observations == 600 && adjustment.outliers == 0)
        #expect(adjustment.movedKeyframes == 0 && adjustment.heldKeyframes == 3)
        for (k, keyframe) in map.keyframes.enumerated() {
            #expect(keyframe.cameraToWorld == Self.poses[k])
            // Depths are 32-bit floats: about 0.2 µm at 4 m.
            #expect(Self.largestPointError(keyframe, Self.points) < 1e-5)
        }
        // The points stay shared: one landmark each, seen from all three.
        #expect(map.pointCount == 200)
        #expect(map.covisible(with: 2).map(\.shared) == [200, 200])
    }

    /// With `movesKeyframes`, a keyframe placed 3 cm and 1° off returns to its pose, and a point
    /// only it holds (placed from its wrong pose, as tracking would) moves with it.
    @Test func aMisplacedKeyframeAndItsOwnPointsReturn() throws {
        let nudge = RigidTransform(rotation: [cos(0.017), 0, sin(0.017), 0, 1, 0, -sin(0.017), 0, cos(0.017)],
                                   translation: [0.03, -0.01, 0.02])
        let misplaced = Self.poses[2] * nudge
        let own = SIMD3(0.4, 0.1, 3.0)
        let ownAsPlaced = misplaced.apply(Self.poses[2].applyInverse(own))
        var keyframes = (0..<2).map { Self.keyframe($0, pose: Self.poses[$0], truePose: Self.poses[$0], held: Self.points, truth: Self.points) }
        keyframes.append(Self.keyframe(2, pose: misplaced, truePose: Self.poses[2], held: Self.points + [ownAsPlaced],
                                       truth: Self.points + [own]))
        var map = WorldMap(keyframes: keyframes)
        var options = LocalAdjustmentOptions()
        options.movesKeyframes = true
        options.solver.maximumIterations = 30
        let adjustment = try #require(try map.adjustLocally(around: 2, options: options))
        // Nothing else holds the points: the oldest keyframe is the gauge.
        #expect(adjustment.movedKeyframes == 2 && adjustment.heldKeyframes == 1)
        let error = map.keyframes[2].cameraToWorld.difference(to: Self.poses[2])
        #expect(error.translation < 1e-5 && error.rotationDegrees < 1e-4)
        #expect(Self.largestPointError(map.keyframes[2], Self.points + [own]) < 1e-5)
        #expect(map.keyframes[0].cameraToWorld == Self.poses[0])
    }

    /// A wrong match (30 px off in one keyframe) is forgotten by that keyframe alone and does
    /// not pull its point away.
    @Test func aWrongMatchIsForgottenByItsKeyframe() throws {
        var keyframes = Self.poses.enumerated().map { k, pose in
            Self.keyframe(k, pose: pose, truePose: pose, held: Self.points, truth: Self.points)
        }
        let honest = keyframes[1]
        var keypoints = honest.features.keypoints
        keypoints[17].location = Point2(keypoints[17].location.x + 30, keypoints[17].location.y)
        keyframes[1] = Keyframe(id: 1, timestamp: 1, cameraToWorld: honest.cameraToWorld, intrinsics: Self.intrinsics, width: 640,
                                height: 480, features: FeatureSet(keypoints: keypoints, descriptors: honest.features.descriptors),
                                points: honest.points, depths: honest.depths)
        var map = WorldMap(keyframes: keyframes)
        let adjustment = try #require(try map.adjustLocally(around: 2))
        #expect(adjustment.outliers == 1)
        #expect(map.keyframes.map(\.points.count) == [200, 199, 200])
        let moved = map.keyframes[0].points[17] - Self.points[17]
        #expect((moved * moved).sum().squareRoot() < 1e-5)
        #expect(map.holders(of: map.keyframes[0].points[17]).sorted() == [0, 2])
    }
}
