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

    /// Six keyframes along a bent path whose drift grew with the distance travelled (up to
    /// 30 cm and 6° at the last): with the last put where the first place says it is, every
    /// keyframe and point comes back to the truth (to 1e-9), the first keyframe stays, and a
    /// point two keyframes hold moves with the first of them.
    @Test func aDriftThatGrewAlongThePathIsUndoneExactly() {
        let drifted = (0..<6).map { k in
            RigidTransform(rotation: [1, 0, 0, 0, 1, 0, 0, 0, 1], translation: [0.4 * Double(k), 0, -0.1 * Double(k * k)])
        }
        var travelled = [0.0]
        for k in 1..<6 {
            let step = drifted[k].translationVector - drifted[k - 1].translationVector
            travelled.append(travelled[k - 1] + (step * step).sum().squareRoot())
        }
        let angle = 6 * Double.pi / 180
        let drift = RigidTransform(rotation: [cos(angle), 0, sin(angle), 0, 1, 0, -sin(angle), 0, cos(angle)],
                                   translation: [0.1, -0.2, 0.2])
        let corrections = travelled.map { drift.share($0 / travelled[5]) }
        let truePoses = zip(corrections, drifted).map { ($0 * $1).orthonormalized }
        var held = drifted.indices.map { Self.points(seenFrom: drifted[$0], seed: UInt64(10 + $0)) }
        // Keyframe 3 also holds ten of keyframe 2's points.
        held[3].replaceSubrange(0..<10, with: held[2][0..<10])
        var map = WorldMap(keyframes: drifted.indices.map { k in
            LocalAdjustmentTests.keyframe(k, pose: drifted[k], truePose: drifted[k], held: held[k], truth: held[k])
        })
        let reported = map.spreadCorrection(of: 5, to: truePoses[5], after: 0)
        #expect(reported.count == 6 && reported[0].correction == .identity)
        #expect(map.keyframes[0].cameraToWorld == drifted[0] && map.keyframes[0].points == held[0])
        for k in 1..<6 {
            let error = map.keyframes[k].cameraToWorld.difference(to: truePoses[k])
            #expect(error.translation < 1e-9 && error.rotationDegrees < 1e-7, "keyframe \(k): \(error)")
            let firstHolder = k == 3 ? [Int](repeating: 2, count: 10) + [Int](repeating: 3, count: 40) : [Int](repeating: k, count: 50)
            let truth = held[k].indices.map { corrections[firstHolder[$0]].apply(held[k][$0]) }
            #expect(Self.largestError(map.keyframes[k].points, truth) < 1e-9, "keyframe \(k)")
        }
        // Still one landmark: keyframes 2 and 3 share those ten points.
        #expect(map.covisible(with: 3).first { $0.keyframe == 2 }?.shared == 10)
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
