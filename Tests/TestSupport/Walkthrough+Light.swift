import Foundation
import Waymark
import WaymarkSamples

extension Walkthrough {
    /// Distant lights the main light's direction is measured under (the table top painted in one
    /// albedo, as the estimate assumes): high and to the side, low from behind, low from the side.
    public static let measuredSunlights = [
        Sunlight(direction: SIMD3(0.3, 0.9, 0.3), ambient: 0.4, evenAlbedo: true),
        Sunlight(direction: SIMD3(-0.6, 0.5, -0.6), ambient: 0.3, evenAlbedo: true),
        Sunlight(direction: SIMD3(0.7, 0.3, -0.2), ambient: 0.5, evenAlbedo: true),
    ]

    /// The session's main light after the table-top walk-through (three boxes on a table, circled
    /// once; 320×240 RGB-D at 2 fps, exact poses) under `sunlight` (nil: evenly lit).
    public static func mainLightAfterTableTop(posterFolder: URL, sunlight: Sunlight?) throws -> MainLight? {
        var walk = try Walkthrough(posterFolder: posterFolder, width: 320, height: 240, framesPerSecond: 2, script: .tableTop)
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

    /// Degrees between two directions.
    public static func degrees(_ a: SIMD3<Double>, _ b: SIMD3<Double>) -> Double {
        acos(min(1, (a * b).sum() / ((a * a).sum() * (b * b).sum()).squareRoot())) * 180 / .pi
    }
}
