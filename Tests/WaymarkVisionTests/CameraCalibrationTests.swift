import Foundation
import TestData
import Testing
import WaymarkCore
import WaymarkVision

@Suite struct CameraCalibrationTests {
    static let sample = "opencv_samples/left_intrinsics.yml"

    /// OpenCV's calibration sample's own output for its chessboard images, read as written
    /// (the principal point moved by +0.5 into this library's pixels).
    @Test(.enabled(if: SharedDatasets.has(sample)))
    func readsWhatOpenCVsCalibrationSampleWrites() throws {
        let calibration = try CameraCalibration(contentsOf: #require(SharedDatasets.path(Self.sample)))
        #expect(calibration.width == 640 && calibration.height == 480)
        #expect(calibration.intrinsics == Intrinsics(fx: 5.3591573396163199e+02, fy: 5.3591573396163199e+02,
                                                      cx: 3.4228315473308373e+02 + 0.5, cy: 2.3557082909788173e+02 + 0.5))
        #expect(calibration.distortion == [-2.6637260909660682e-01, -3.8588898922304653e-02, 1.7831947042852964e-03,
                                           -2.8122100441115472e-04, 2.3839153080878486e-01])
    }

    /// A stereo calibration (M1, D1, …) and a file that is no calibration are refused as bad data, saying why.
    @Test(.enabled(if: SharedDatasets.has("opencv_samples/intrinsics.yml")))
    func otherFilesAreRefusedWithTheReason() throws {
        let scratch = try Scratch()
        let garbage = scratch.path("garbage.yml")
        try Data("not: [a, calibration".utf8).write(to: URL(fileURLWithPath: garbage))
        for (path, reason) in [(try #require(SharedDatasets.path("opencv_samples/intrinsics.yml")), "camera_matrix"),
                               (garbage, "not an OpenCV calibration file")]
        {
            #expect {
                try CameraCalibration(contentsOf: path)
            } throws: { error in
                guard let error = error as? WaymarkError else { return false }
                return error.kind == .badData && error.message.contains(reason)
            }
        }
        #expect(throws: WaymarkError.self) { try CameraCalibration(contentsOf: scratch.path("absent.yml")) }
    }

    @Test func aCalibrationScalesToFramesOfTheSameShapeOnly() throws {
        let calibration = CameraCalibration(intrinsics: Intrinsics(fx: 1000, fy: 1002, cx: 640, cy: 480),
                                            distortion: [-0.2, 0.05, 0, 0, 0], width: 1280, height: 960)
        let half = try calibration.scaled(toWidth: 640, height: 480)
        #expect(half.intrinsics == Intrinsics(fx: 500, fy: 501, cx: 320, cy: 240) && half.distortion == calibration.distortion)
        #expect(throws: WaymarkError.self) { try calibration.scaled(toWidth: 640, height: 360) }
    }

    /// Bright dots drawn where a distorting lens puts a grid of points: once undistorted, each
    /// dot lies where the pinhole camera of the same intrinsics sees its point, within 0.1 px.
    @Test func undistortionPutsEachPointWhereThePinholeCameraSeesIt() {
        let k = Intrinsics(fx: 500, fy: 500, cx: 320, cy: 240)
        let calibration = CameraCalibration(intrinsics: k, distortion: [-0.25, 0.08, 0.001, -0.0005, 0.01],
                                            width: 640, height: 480)
        let grid = (0..<5).flatMap { i in (0..<4).map { j in Point2(80 + Double(i) * 120, 60 + Double(j) * 120) } }
        let dots = grid.map { Self.distorted($0, calibration) }
        var pixels = [UInt8](repeating: 0, count: 640 * 480)
        for y in 0..<480 {
            for x in 0..<640 {
                let centre = Point2(Double(x) + 0.5, Double(y) + 0.5)
                let brightest = dots.map { dot in 250 * exp(-((centre.x - dot.x) * (centre.x - dot.x) + (centre.y - dot.y) * (centre.y - dot.y)) / (2 * 1.5 * 1.5)) }.max()!
                pixels[y * 640 + x] = UInt8(brightest.rounded())
            }
        }
        let undistorted = Undistorter(calibration).undistort(Image(width: 640, height: 480, channels: 1, pixels: pixels))
        let values = undistorted.pixels
        for point in grid {
            var (sum, sx, sy) = (0.0, 0.0, 0.0)
            for y in (Int(point.y) - 8)...(Int(point.y) + 8) {
                for x in (Int(point.x) - 8)...(Int(point.x) + 8) {
                    let v = Double(values[y * 640 + x])
                    (sum, sx, sy) = (sum + v, sx + v * (Double(x) + 0.5), sy + v * (Double(y) + 0.5))
                }
            }
            let found = Point2(sx / sum, sy / sum)
            #expect(found.distance(to: point) < 0.1, "the dot for \(point) is at \(found)")
        }
    }

    /// Where OpenCV's lens model (k1, k2, p1, p2, k3) puts the pixel a pinhole camera sees at `p`.
    static func distorted(_ p: Point2, _ c: CameraCalibration) -> Point2 {
        let (k, d) = (c.intrinsics, c.distortion)
        let (x, y) = ((p.x - k.cx) / k.fx, (p.y - k.cy) / k.fy)
        let r2 = x * x + y * y
        let radial = 1 + d[0] * r2 + d[1] * r2 * r2 + d[4] * r2 * r2 * r2
        let xd = x * radial + 2 * d[2] * x * y + d[3] * (r2 + 2 * x * x)
        let yd = y * radial + d[2] * (r2 + 2 * y * y) + 2 * d[3] * x * y
        return Point2(xd * k.fx + k.cx, yd * k.fy + k.cy)
    }
}
