import Foundation
import Testing
import WaymarkCore
import WaymarkVision

/// Motion-only refinement on exact synthetic observations: 200 points 0.3–3 m in front of a
/// camera, some with depth, a fifth of them moved to wrong pixels.
@Suite struct PoseRefinementTests {
    static let intrinsics = Intrinsics(fx: 520, fy: 520, cx: 320, cy: 240)
    static let truth = RigidTransform(rotation: BundleAdjustmentTests.rotation(SIMD3(0.6, 0.8, 0), 0.4),
                                      translation: [0.3, -0.2, 0.5])

    static func observations(outliers: Bool) -> [PoseObservation] {
        var random = SeededGenerator(seed: 5)
        return (0..<200).map { i in
            let camera = SIMD3(Double.random(in: -1...1, using: &random), Double.random(in: -0.8...0.8, using: &random),
                               Double.random(in: 0.3...3, using: &random))
            let world = truth.inverse.apply(camera)
            var pixel = Point2(intrinsics.fx * camera.x / camera.z + intrinsics.cx,
                               intrinsics.fy * camera.y / camera.z + intrinsics.cy)
            if outliers, i % 5 == 0 { pixel = pixel + Point2(Double.random(in: 15...40, using: &random), -20) }
            return PoseObservation(world: world, pixel: pixel, depth: i % 2 == 0 ? camera.z : nil, sigma: 1)
        }
    }

    @Test func recoversThePoseFromAPerturbedGuessDespiteOutliers() {
        let guess = RigidTransform(rotation: BundleAdjustmentTests.rotation(SIMD3(0, 0, 1), 0.05), translation: [0.02, 0.01, -0.03])
            * Self.truth
        let observations = Self.observations(outliers: true)
        let refined = refinePose(guess, observations: observations, intrinsics: Self.intrinsics)
        let error = refined.worldToCamera.difference(to: Self.truth)
        #expect(error.translation < 1e-9)
        #expect(error.rotationDegrees < 1e-5)
        // Exactly the moved fifth is left out.
        #expect(refined.inliers == observations.indices.map { $0 % 5 != 0 })
    }

    @Test func theTruthStaysWhereItIs() {
        let refined = refinePose(Self.truth, observations: Self.observations(outliers: false), intrinsics: Self.intrinsics)
        #expect(refined.worldToCamera.difference(to: Self.truth).rotationDegrees < 1e-5)
        #expect(refined.inlierCount == 200)
    }
}
