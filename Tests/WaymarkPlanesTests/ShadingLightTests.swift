import Foundation
import Testing
import WaymarkCore
import WaymarkPlanes
import WaymarkVision

/// The main light's direction from exact shading: matte planes of one albedo under ambient light
/// and a distant light, seen a few at a time by a camera whose exposure changes every frame.
@Suite struct ShadingLightTests {
    /// Six sides of a room-sized box, normals into it, each 2 m from the origin.
    static let sides: [SIMD3<Double>] = [SIMD3(0, 1, 0), SIMD3(0, -1, 0), SIMD3(1, 0, 0), SIMD3(-1, 0, 0), SIMD3(0, 0, 1), SIMD3(0, 0, -1)]

    /// Frames of the given sides (indices), three at a time in turn, as a camera at the origin
    /// (turned by `turn` degrees about y, so camera and world axes differ) sees them.
    static func frames(of visible: [Int], light: SIMD3<Double>, ambient: Double) -> [(shading: [PlaneShading], pose: RigidTransform)] {
        var generator = SeededGenerator(seed: 7)
        return (0..<12).map { frame in
            let turn = Double(frame) * 30 * .pi / 180
            let pose = RigidTransform(rotation: [cos(turn), 0, sin(turn), 0, 1, 0, -sin(turn), 0, cos(turn)], translation: [0, 0, 0])
            let exposure = Double.random(in: 0.3...3, using: &generator)
            let shown = (0..<3).map { visible[(frame + $0) % visible.count] }
            return (shown.map { side in
                let normal = sides[side]
                let radiance = 0.4 * (ambient + max(0, (normal * light).sum()))
                // The plane in camera coordinates: the wall 2 m out along −normal, facing the camera.
                return PlaneShading(plane: Plane(normal: pose.applyInverseRotation(normal), offset: 2), luminance: exposure * radiance)
            }, pose)
        }
    }

    static func estimate(_ frames: [(shading: [PlaneShading], pose: RigidTransform)]) -> MainLight? {
        var estimator = ShadingLightEstimator()
        for frame in frames { estimator.add(frame.shading, cameraToWorld: frame.pose) }
        return estimator.mainLight
    }

    static func degrees(_ a: SIMD3<Double>, _ b: SIMD3<Double>) -> Double {
        acos(min(1, (a * b).sum() / ((a * a).sum() * (b * b).sum()).squareRoot())) * 180 / .pi
    }

    @Test func aDistantLightIsFoundThroughChangingExposure() throws {
        let light = SIMD3(0.5, 0.8, -0.3)
        let found = try #require(Self.estimate(Self.frames(of: [0, 1, 2, 3, 4, 5], light: light, ambient: 0.3)))
        #expect(Self.degrees(found.direction, light) < 0.01, "found \(found.direction)")
        #expect(found.confidence > 0.99)
    }

    /// Light on two orientations only (the others face away): its part along the third is not
    /// seen, so it is left out and the confidence is at most two thirds.
    @Test func lightSeenOnTwoOrientationsIsTrustedLess() throws {
        let light = SIMD3(0.6, 0.8, 0)
        let found = try #require(Self.estimate(Self.frames(of: [0, 2, 3, 4], light: light, ambient: 0.3)))
        #expect(Self.degrees(found.direction, light) < 0.01)
        #expect(found.confidence <= 2.0 / 3 + 1e-9)
    }

    /// Three orientations cannot separate the ambient light from the direct; even light has no direction.
    @Test func tooFewOrientationsOrEvenLightGiveNoTrustedDirection() {
        #expect(Self.estimate(Self.frames(of: [0, 2, 4], light: SIMD3(0.5, 0.8, -0.3), ambient: 0.3)) == nil)
        let even = Self.estimate(Self.frames(of: [0, 1, 2, 3, 4, 5], light: .zero, ambient: 1))
        #expect((even?.confidence ?? 0) < 0.01, "\(String(describing: even))")
    }
}
