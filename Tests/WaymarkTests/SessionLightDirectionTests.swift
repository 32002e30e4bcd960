import Foundation
import Testing
import TestSupport
import Waymark

/// The main light's direction from the shading of the planes: the table-top walk-through (three
/// boxes on a table, circled once; 320×240 RGB-D at 2 fps, exact poses) under a distant light.
@Suite struct SessionLightDirectionTests {
    static func lastMainLight(sunlight: Walkthrough.Sunlight?) throws -> MainLight? {
        let folder = try #require(Walkthrough.debianPosterFolder)
        var walk = try Walkthrough(posterFolder: folder, width: 320, height: 240, framesPerSecond: 2, script: .tableTop)
        walk.sunlight = sunlight
        let session = try Session(configuration: SessionConfiguration(), input: SessionInput(
            width: 320, height: 240, hasDepth: true, hasRecordedPoses: true, intrinsics: walk.intrinsics))
        var last: MainLight?
        for frame in walk.frames {
            let rendering = walk.render(frame)
            last = session.process(SessionFrame(
                timestamp: frame.timestamp, image: Image(width: 320, height: 240, channels: 3, pixels: rendering.color!),
                depth: DepthImage(width: 320, height: 240, metres: rendering.depth), recordedPose: frame.cameraToWorld)).light.mainLight
        }
        return last
    }

    static func degrees(_ a: SIMD3<Double>, _ b: SIMD3<Double>) -> Double {
        acos(min(1, (a * b).sum() / ((a * a).sum() * (b * b).sum()).squareRoot())) * 180 / .pi
    }

    static let lights = [
        Walkthrough.Sunlight(direction: SIMD3(0.3, 0.9, 0.3), ambient: 0.4, evenAlbedo: true),
        Walkthrough.Sunlight(direction: SIMD3(-0.6, 0.5, -0.6), ambient: 0.3, evenAlbedo: true),
        Walkthrough.Sunlight(direction: SIMD3(0.7, 0.3, -0.2), ambient: 0.5, evenAlbedo: true),
    ]

    /// Surfaces of one albedo, as the estimate assumes: the light within 10°, confidence over 0.9.
    /// Measured at this commit: 1.1°, 5.8° and 5.8° off, confidences 0.95–0.99.
    @Test(.enabled(if: Walkthrough.debianPosterFolder != nil)) func aDistantLightIsFoundFromThePlanesShading() throws {
        for sun in Self.lights {
            let last = try Self.lastMainLight(sunlight: sun)
            let found = try #require(last)
            let off = Self.degrees(found.direction, sun.direction)
            #expect(off < 10, "found \(found.direction), \(off)° from \(sun.direction)")
            #expect(found.confidence > 0.9, "confidence \(found.confidence)")
        }
    }

    /// The boxes and the table as the script paints them, each its own albedo: the same light
    /// is misread (31–132° off), and the confidence says so (under 0.5), as it does in
    /// even light, where there is no direction to find.
    @Test(.enabled(if: Walkthrough.debianPosterFolder != nil))
    func unlikeAlbedosAndEvenLightGetALowConfidence() throws {
        var sun = Self.lights[1]
        sun.evenAlbedo = false
        for sunlight in [sun, nil] {
            let found = try Self.lastMainLight(sunlight: sunlight)
            #expect((found?.confidence ?? 0) < 0.5, "\(String(describing: sunlight)): \(String(describing: found))")
        }
    }
}
