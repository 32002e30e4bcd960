import Foundation
import TestData
import Testing
import WaymarkCore
import WaymarkInput

@Suite struct AccelerometerLogTests {
    static let tum = RGBDRecordingSourceTests.tum

    /// TUM's Kinect accelerometer, read as gravity in the colour camera's coordinates and carried
    /// into the motion-capture world by the recorded orientations: every frame of the fr1/xyz
    /// excerpt points within 6° of the world's −z, which is up in TUM's motion-capture rooms
    /// (measured: 4.9°, the whole 30 s sequence 4.2°: the sensor is not quite square to the
    /// camera), and within 7° of the frames' mean (the hand's own acceleration: measured 5.0°).
    /// (With y not reversed they point along a horizontal axis; with x not reversed the whole
    /// sequence's samples spread 6° instead of 4°.)
    @Test(.enabled(if: SharedDatasets.has("\(tum)/accelerometer.txt", "\(tum)/depth.txt", "\(tum)/groundtruth.txt")))
    func aTUMRecordingsFramesCarryGravityThatPointsDownInTheWorld() throws {
        let source = try RGBDRecordingSourceTests.openExcerpt().source
        #expect(source.info.hasGravity)
        var down: [SIMD3<Double>] = []
        for files in source.frames {
            let gravity = try #require(files.gravity)
            #expect(abs((gravity * gravity).sum() - 1) < 1e-9)
            down.append(try #require(files.cameraToWorld).applyRotation(gravity))
        }
        let sum = down.reduce(.zero, +)
        let mean = sum / (sum * sum).sum().squareRoot()
        #expect(degrees(between: mean, SIMD3(0, 0, -1)) < 6)
        #expect(down.allSatisfy { degrees(between: $0, mean) < 7 })
        #expect(try #require(try source.next()).gravity == source.frames[0].gravity)
    }

    /// Samples within 50 ms are averaged (the reading's y and x reversed, a specific force
    /// turned into gravity); a time with no sample that near has none; an unreadable row is
    /// refused with its line.
    @Test func samplesNearAFramesTimeAreAveragedAsGravity() throws {
        let scratch = try Scratch()
        let path = scratch.path("accelerometer.txt")
        try "# timestamp ax ay az\n10.00 0 9.8 0\n10.04 0 9.8 -9.8\n10.20 3 4 0\n".write(toFile: path, atomically: true, encoding: .utf8)
        let log = try AccelerometerLog(contentsOf: path)
        let both = try #require(log.gravity(at: 10.02))
        #expect(degrees(between: both, SIMD3(0, 2, 1)) < 1e-9)
        #expect(try #require(log.gravity(at: 10.2)) == SIMD3(0.6, 0.8, 0))
        #expect(log.gravity(at: 10.1) == nil)
        try "1.0 0 9.8\n".write(toFile: path, atomically: true, encoding: .utf8)
        #expect { try AccelerometerLog(contentsOf: path) } throws: { error in
            (error as? WaymarkError).map { $0.kind == .badData && $0.message.contains("line 1") } ?? false
        }
    }

    private func degrees(between a: SIMD3<Double>, _ b: SIMD3<Double>) -> Double {
        let cosine = (a * b).sum() / ((a * a).sum() * (b * b).sum()).squareRoot()
        return acos(min(1, max(-1, cosine))) * 180 / .pi
    }
}
