import CSupport
import Foundation
import WaymarkCore

/// A camera's intrinsics and lens distortion, as OpenCV's calibration sample writes them
/// (`camera_matrix`, `distortion_coefficients` in OpenCV's model, `image_width`, `image_height`).
public struct CameraCalibration: Equatable, Sendable {
    public var intrinsics: Intrinsics
    /// k1, k2, p1, p2[, k3[, k4, k5, k6[, s1…s4[, τx, τy]]]]: 0, 4, 5, 8, 12 or 14 values.
    public var distortion: [Double]
    public var width: Int
    public var height: Int

    public init(intrinsics: Intrinsics, distortion: [Double], width: Int, height: Int) {
        precondition([0, 4, 5, 8, 12, 14].contains(distortion.count), "OpenCV's distortion models have 0, 4, 5, 8, 12 or 14 values")
        self.intrinsics = intrinsics
        self.distortion = distortion
        self.width = width
        self.height = height
    }

    /// A calibration file is a few hundred bytes; anything past this is not one.
    static let maximumFileBytes = 1 << 20

    /// Reads a calibration file (YAML, XML or JSON).
    public init(contentsOf path: String) throws(WaymarkError) {
        let size = try regularFileSize(path)
        guard size <= Self.maximumFileBytes else {
            throw WaymarkError(.badData, "\(path) is \(size) bytes: too large for a camera calibration")
        }
        var k = [Double](repeating: 0, count: 4)
        var coefficients = [Double](repeating: 0, count: 14)
        var count = 0
        var (width, height): (Int32, Int32) = (0, 0)
        try check { cs_calibration_read(path, &k, &coefficients, coefficients.count, &count, &width, &height, $0) }
        guard k.allSatisfy(\.isFinite), k[0] > 0, k[1] > 0, coefficients.prefix(count).allSatisfy(\.isFinite) else {
            throw WaymarkError(.badData, "\(path): the camera matrix needs positive focal lengths and finite values")
        }
        self.init(intrinsics: Intrinsics(fx: k[0], fy: k[1], cx: k[2], cy: k[3]), distortion: Array(coefficients.prefix(count)),
                  width: Int(width), height: Int(height))
    }

    /// Whether the lens model bends anything (all coefficients zero or none: a pinhole).
    public var hasDistortion: Bool { distortion.contains { $0 != 0 } }

    /// The same camera for frames of another size with the same aspect (a video recorded at a
    /// lower resolution than the calibration's images): the intrinsics scale with the pixels,
    /// the distortion (of normalized coordinates) stays.
    public func scaled(toWidth newWidth: Int, height newHeight: Int) throws(WaymarkError) -> CameraCalibration {
        let (sx, sy) = (Double(newWidth) / Double(width), Double(newHeight) / Double(height))
        guard abs(sx / sy - 1) < 0.01 else {
            throw WaymarkError(.usage, "the calibration is for \(width)×\(height) images, the frames are \(newWidth)×\(newHeight): "
                               + "not the same shape, so not the same camera setting")
        }
        let k = intrinsics
        return CameraCalibration(intrinsics: Intrinsics(fx: k.fx * sx, fy: k.fy * sy, cx: k.cx * sx, cy: k.cy * sy),
                                 distortion: distortion, width: newWidth, height: newHeight)
    }
}

/// Removes a calibration's lens distortion from frames of its size, keeping its intrinsics:
/// each output pixel is where the same pinhole camera would see it (bilinear; black where
/// the lens shows nothing).
public final class Undistorter {
    private let handle: OpaquePointer
    public let calibration: CameraCalibration

    public init(_ calibration: CameraCalibration) {
        let k = calibration.intrinsics
        var out: OpaquePointer?
        checkInvariant {
            cs_undistorter_create([k.fx, k.fy, k.cx, k.cy], calibration.distortion, calibration.distortion.count,
                                  Int32(calibration.width), Int32(calibration.height), &out, $0)
        }
        handle = out!
        self.calibration = calibration
    }

    deinit { cs_undistorter_destroy(handle) }

    /// The image without the lens's distortion; it must be the calibration's size.
    public func undistort(_ image: Image) -> Image {
        precondition(image.width == calibration.width && image.height == calibration.height, "an image of the calibration's size")
        let out = Image.output(channels: image.channels)
        checkInvariant { cs_undistorter_apply(handle, image.handle, out.handle, $0) }
        out.refreshSize()
        return out
    }
}
