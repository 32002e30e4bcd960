import Foundation
import Testing
import WaymarkCore
import WaymarkRelocalization
import WaymarkVision

/// Closing a loop on exact synthetic maps: the correction spread along the path, and the
/// keyframe's points joined to the place it came back to.
@Suite struct LoopClosureTests {
    static let intrinsics = LocalAdjustmentTests.intrinsics

    /// 50 random points 2–4 m in front of a camera at `pose`.
    static func points(seenFrom pose: RigidTransform, seed: UInt64) -> [SIMD3<Double>] {
        var random = SeededGenerator(seed: seed)
        return (0..<50).map { _ in
            pose.apply(SIMD3(Double.random(in: -1...1, using: &random), Double.random(in: -0.7...0.7, using: &random),
                             Double.random(in: 2...4, using: &random)))
        }
    }

    static func largestError(_ a: [SIMD3<Double>], _ b: [SIMD3<Double>]) -> Double {
        zip(a, b).map { (($0 - $1) * ($0 - $1)).sum().squareRoot() }.max() ?? .infinity
    }

    /// Six keyframes along a bent path, keyframe k holding `shared[k]` of the points of the one
    /// before (as tracking from one to the next leaves them; none: tracking broke there).
    static func bentPath(shared: [Int]) -> (poses: [RigidTransform], held: [[SIMD3<Double>]]) {
        let poses = (0..<6).map { k in
            RigidTransform(rotation: [1, 0, 0, 0, 1, 0, 0, 0, 1], translation: [0.4 * Double(k), 0, -0.1 * Double(k * k)])
        }
        var held = poses.indices.map { Self.points(seenFrom: poses[$0], seed: UInt64(10 + $0)) }
        // The points keyframe k takes are among the last of k − 1's, which it did not take itself.
        for k in 1..<6 { held[k].replaceSubrange(0..<shared[k], with: held[k - 1][(50 - shared[k])..<50]) }
        return (poses, held)
    }

    static let drift: RigidTransform = {
        let angle = 6 * Double.pi / 180
        return RigidTransform(rotation: [cos(angle), 0, sin(angle), 0, 1, 0, -sin(angle), 0, cos(angle)],
                              translation: [0.1, -0.2, 0.2])
    }()

    /// The last keyframe, drifted 30 cm and 6°, put where the first place says it is: each
    /// link between keyframes takes a part of the correction in inverse proportion to the
    /// points it shares plus one (a link held by few points is a weak one), a link that shares
    /// none the most. Every keyframe and point comes back to the truth (to 1e-9), the first
    /// keyframe stays, and a point two keyframes hold moves with the first.
    @Test func theCorrectionGoesWhereTheLinksAreWeakest() {
        let shared = [0, 10, 20, 0, 40, 10]
        let path = Self.bentPath(shared: shared)
        var weight = [0.0]
        for k in 1..<6 { weight.append(weight[k - 1] + 1 / Double(shared[k] + 1)) }
        let corrections = weight.map { Self.drift.share($0 / weight[5]) }
        var map = WorldMap(keyframes: path.poses.indices.map { k in
            LocalAdjustmentTests.keyframe(k, pose: path.poses[k], truePose: path.poses[k], held: path.held[k], truth: path.held[k])
        })
        let reported = map.spreadCorrection(of: 5, to: (Self.drift * path.poses[5]).orthonormalized, after: 0)
        #expect(reported.count == 6 && reported[0].correction == .identity)
        // The break after keyframe 2 took more than half of it.
        #expect(weight[3] - weight[2] > weight[5] / 2)
        for k in 0..<6 {
            let error = map.keyframes[k].cameraToWorld.difference(to: (corrections[k] * path.poses[k]).orthonormalized)
            #expect(error.translation < 1e-9 && error.rotationDegrees < 1e-7, "keyframe \(k): \(error)")
            let truth = path.held[k].indices.map { corrections[$0 < shared[k] ? k - 1 : k].apply(path.held[k][$0]) }
            #expect(Self.largestError(map.keyframes[k].points, truth) < 1e-9, "keyframe \(k)")
        }
        #expect(map.keyframes[0].points == path.held[0])
        // Still one landmark: keyframes 3 and 4 share those forty points.
        #expect(map.covisible(with: 4).first { $0.keyframe == 3 }?.shared == 40)
    }

    /// A single camera's map whose scale drifted along the path, each link's step and the points
    /// its keyframe placed shrunk by the part of a 1.25 that link takes (the same parts as the
    /// rigid correction's): told that the place measures 1.25 times longer at the last
    /// keyframe, the correction grows each step back, and every keyframe and point returns to
    /// the truth (to 1e-9), the first keyframe staying. An anchor near the last keyframe comes
    /// back with it.
    @Test func aDriftedScaleIsSpreadBackAlongThePath() {
        let shared = [0, 10, 20, 0, 40, 10]
        let path = Self.bentPath(shared: shared)
        var taken = [0.0]
        for k in 1..<6 { taken.append(taken[k - 1] + 1 / Double(shared[k] + 1)) }
        let scale = 1.25
        let shrink = taken.map { pow(scale, $0 / taken[5]) }
        let centres = path.poses.map(\.translationVector)
        var drifted = centres
        for k in 1..<6 { drifted[k] = drifted[k - 1] + (centres[k] - centres[k - 1]) / shrink[k] }
        // A point moves with the first keyframe that holds it.
        var firstHolder: [SIMD3<Double>: Int] = [:]
        for k in 0..<6 { for point in path.held[k] where firstHolder[point] == nil { firstHolder[point] = k } }
        func drift(_ point: SIMD3<Double>) -> SIMD3<Double> {
            let k = firstHolder[point]!
            return drifted[k] + (point - centres[k]) / shrink[k]
        }
        var map = WorldMap(keyframes: path.poses.indices.map { k in
            var pose = path.poses[k]
            pose.translation = [drifted[k].x, drifted[k].y, drifted[k].z]
            return LocalAdjustmentTests.keyframe(k, pose: pose, truePose: path.poses[k], held: path.held[k].map(drift),
                                                 truth: path.held[k])
        })
        let reported = map.spreadCorrection(of: 5, to: path.poses[5], after: 0, scale: scale)
        #expect(abs(reported[5].scale - scale) < 1e-12 && reported[0].scale == 1)
        for k in 0..<6 {
            let error = map.keyframes[k].cameraToWorld.difference(to: path.poses[k])
            #expect(error.translation < 1e-9 && error.rotationDegrees < 1e-7, "keyframe \(k): \(error)")
            #expect(Self.largestError(map.keyframes[k].points, path.held[k]) < 1e-9, "keyframe \(k)")
        }
        // An anchor 10 cm from the last camera, whose offset from it was shrunk as its points were.
        let loop = LoopClosure(keyframe: 5, matched: 0, inliers: 50, corrections: reported, joinedPoints: 0)
        let offset = SIMD3(0.06, -0.08, 0.0)
        let anchor = drifted[5] + offset / shrink[5]
        #expect(Self.largestError([loop.correction(near: anchor).apply(anchor)], [centres[5] + offset]) < 1e-9)
    }

    /// A keyframe back at an earlier place, its 50 points placed 1 cm off the place's own: all
    /// of them join the place's points, and the two keyframes become covisible.
    @Test func aKeyframeBackAtAPlaceJoinsItsPoints() {
        let pose = RigidTransform(rotation: [1, 0, 0, 0, 1, 0, 0, 0, 1], translation: [0.3, 0.1, -0.2])
        let place = Self.points(seenFrom: pose, seed: 4)
        var random = SeededGenerator(seed: 5)
        let offset = place.map { $0 + 0.01 * SIMD3(random.nextGaussian(), random.nextGaussian(), random.nextGaussian()) / 3 }
        let far = Self.points(seenFrom: .identity, seed: 6).map { $0 + SIMD3(10, 0, 0) }
        var map = WorldMap(keyframes: [
            LocalAdjustmentTests.keyframe(0, pose: pose, truePose: pose, held: place, truth: place, descriptorSeed: 7),
            LocalAdjustmentTests.keyframe(1, pose: .identity, truePose: .identity, held: far, truth: far, descriptorSeed: 8),
            LocalAdjustmentTests.keyframe(2, pose: pose, truePose: pose, held: offset, truth: place, descriptorSeed: 7),
        ])
        #expect(map.covisible(with: 2).isEmpty)
        let joined = map.joinPoints(of: 2, toPlaceOf: 0, options: LocalMapOptions())
        #expect(joined == 50)
        #expect(map.keyframes[2].points == place)
        #expect(map.covisible(with: 2).map(\.keyframe) == [0] && map.covisible(with: 2)[0].shared == 50)
        #expect(map.pointCount == 100)
    }

    /// A keyframe back at an earlier place whose points lie along the same rays as the place's:
    /// all at 0.8 of their depth (a single camera's map that shrank) agree with the place at the
    /// scale their depths measure, 1.25, and none at a scale of 1 (depth measured both); at
    /// depths 0.6–1.4 times the place's, one by one (points matched by projection that lie
    /// elsewhere, as from a wrong place), fewer than half agree.
    @Test func aPlaceMustAgreeInSpace() throws {
        let pose = RigidTransform(rotation: [1, 0, 0, 0, 1, 0, 0, 0, 1], translation: [0.3, 0.1, -0.2])
        let place = Self.points(seenFrom: pose, seed: 4)
        let centre = pose.translationVector
        var random = SeededGenerator(seed: 9)
        let shrunk = place.map { centre + 0.8 * ($0 - centre) }
        let scattered = place.map { centre + Double.random(in: 0.6...1.4, using: &random) * ($0 - centre) }
        for (held, agreesAtOwnScale) in [(shrunk, true), (scattered, false)] {
            let map = WorldMap(keyframes: [
                LocalAdjustmentTests.keyframe(0, pose: pose, truePose: pose, held: place, truth: place, descriptorSeed: 7),
                LocalAdjustmentTests.keyframe(1, pose: pose, truePose: pose, held: held, truth: place, descriptorSeed: 7),
            ])
            let measured = try #require(map.alignment(of: 1, at: pose, withPlaceOf: 0, options: LocalMapOptions(),
                                                      withScale: true, tolerance: 0.05))
            #expect(measured.matched == 50)
            if agreesAtOwnScale {
                #expect(abs(measured.scale - 1.25) < 1e-9 && measured.agreeing == 50)
                let unscaled = try #require(map.alignment(of: 1, at: pose, withPlaceOf: 0, options: LocalMapOptions(),
                                                          withScale: false, tolerance: 0.05))
                #expect(unscaled.agreeing == 0)
            } else {
                #expect(2 * measured.agreeing < measured.matched, "\(measured)")
            }
        }
    }

    /// A keyframe back at an earlier place, its pose and points drifted 30 cm and 6° together,
    /// relocalized 0.1° off the truth (as a frame's relocalization is): its pose by the place
    /// comes from fitting its points to the place's, exact to 1e-9 in the drift and the scale,
    /// with and without a scale to fit.
    @Test func theLoopsPoseComesFromThePoints() throws {
        let pose = RigidTransform(rotation: [1, 0, 0, 0, 1, 0, 0, 0, 1], translation: [0.3, 0.1, -0.2])
        let place = Self.points(seenFrom: pose, seed: 4)
        let drifted = (Self.drift * pose).orthonormalized
        let angle = 0.1 * Double.pi / 180
        let relocalized = pose * RigidTransform(rotation: [cos(angle), -sin(angle), 0, sin(angle), cos(angle), 0, 0, 0, 1],
                                                translation: [0, 0, 0])
        let map = WorldMap(keyframes: [
            LocalAdjustmentTests.keyframe(0, pose: pose, truePose: pose, held: place, truth: place, descriptorSeed: 7),
            LocalAdjustmentTests.keyframe(1, pose: drifted, truePose: pose, held: place.map(Self.drift.apply), truth: place,
                                          descriptorSeed: 7),
        ])
        for withScale in [false, true] {
            let found = try #require(map.alignment(of: 1, at: relocalized, withPlaceOf: 0, options: LocalMapOptions(),
                                                   withScale: withScale, tolerance: 0.05))
            let error = found.cameraToWorld.difference(to: pose)
            #expect(found.agreeing == 50 && error.translation < 1e-9 && error.rotationDegrees < 1e-7, "\(error)")
            #expect(abs(found.scale - 1) < 1e-9)
        }
    }

    /// A share of a transform: all of it is itself, none the identity, and two halves make the whole.
    @Test func sharesOfATransformComposeToIt() {
        let angle = 0.4
        let whole = (RigidTransform(rotation: [1, 0, 0, 0, cos(angle), -sin(angle), 0, sin(angle), cos(angle)],
                                    translation: [0.3, -0.1, 0.2])
            * RigidTransform(rotation: [cos(angle), -sin(angle), 0, sin(angle), cos(angle), 0, 0, 0, 1], translation: [0, 0, 0]))
        #expect(whole.share(1).difference(to: whole).rotationDegrees < 1e-9)
        #expect(whole.share(0) == RigidTransform(rotation: RigidTransform.identity.rotation, translation: [0, 0, 0]))
        let half = whole.share(0.5)
        #expect((half * half).difference(to: whole).rotationDegrees < 1e-9)
        #expect(abs(half.difference(to: .identity).rotationDegrees * 2 - whole.difference(to: .identity).rotationDegrees) < 1e-9)
    }
}
