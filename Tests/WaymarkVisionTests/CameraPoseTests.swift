import Foundation
import Testing
import WaymarkCore
import WaymarkVision

@Suite struct CameraPoseTests {
    /// 200 points seen by a known camera, a quarter of them replaced by points elsewhere: PnP
    /// in RANSAC recovers the pose to 1e-6 and flags exactly the outliers.
    @Test func recoversAKnownPoseAndItsOutliers() throws {
        var generator = SeededGenerator(seed: 3)
        let intrinsics = Intrinsics(fx: 520, fy: 515, cx: 321.5, cy: 238.5)
        // World-to-camera: turned 30° about y, translated by (0.4, -0.2, 1).
        let angle = 30.0 * .pi / 180
        let truth = RigidTransform(rotation: [cos(angle), 0, sin(angle), 0, 1, 0, -sin(angle), 0, cos(angle)],
                                   translation: [0.4, -0.2, 1])
        var world: [SIMD3<Double>] = []
        var image: [Point2] = []
        var outlier: [Bool] = []
        for i in 0..<200 {
            let camera = SIMD3(Double.random(in: -1.5...1.5, using: &generator), Double.random(in: -1...1, using: &generator),
                               Double.random(in: 2...6, using: &generator))
            let pixel = Point2(intrinsics.fx * camera.x / camera.z + intrinsics.cx, intrinsics.fy * camera.y / camera.z + intrinsics.cy)
            let isOutlier = i % 4 == 0
            let point = truth.inverse.apply(camera)
            world.append(isOutlier ? point + SIMD3(0.5, -0.4, 0.3) : point)
            image.append(pixel)
            outlier.append(isOutlier)
        }
        let estimate = try #require(estimateCameraPose(worldPoints: world, imagePoints: image, intrinsics: intrinsics))
        let error = estimate.worldToCamera.difference(to: truth)
        #expect(error.translation < 1e-6 && error.rotationDegrees < 1e-5, "\(error)")
        #expect(estimate.inliers == outlier.map { !$0 })
        // Image points cross the C ABI as 32-bit floats: 1e-5 px of rounding at 600 px.
        #expect(estimate.rmsReprojectionError < 1e-4)
    }

    @Test func fewerThanSixCorrespondencesFindNoPose() {
        let world = (0..<5).map { SIMD3(Double($0), 0, 3) }
        let image = (0..<5).map { Point2(Double($0) * 10, 5) }
        #expect(estimateCameraPose(worldPoints: world, imagePoints: image, intrinsics: Intrinsics(fx: 500, fy: 500, cx: 320, cy: 240)) == nil)
    }
}
