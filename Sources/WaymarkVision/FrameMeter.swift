import CSupport
import WaymarkCore

/// What one frame shows about the conditions it was taken in (see `FrameMeter`).
public struct FrameMeasurement: Sendable, Equatable {
    /// Mean gray level, 0–255.
    public var brightness: Double
    /// Variance of the Laplacian of the half-size gray frame: small when blurred or plain.
    public var sharpness: Double
    /// FAST corners in the half-size frame, and the fraction of a 4×4 grid holding ≥ 3 of them.
    public var cornerCount: Int
    public var cornerSpread: Double
    /// The view's shift since the previous frame, full-frame pixels; nil on the first frame or
    /// when the phase correlation's peak is too weak to trust.
    public var motion: SIMD2<Double>?
}

/// Measures light, sharpness, detail and view motion on every frame, cheaply (a half-size copy;
/// its buffers are reused). Keeps a thumbnail of the last frame for the motion.
public final class FrameMeter {
    private let handle: OpaquePointer
    /// Phase-correlation peaks below this give no motion.
    public static let minimumMotionResponse = 0.05

    public init() {
        var out: OpaquePointer?
        checkInvariant { cs_frame_meter_create(&out, $0) }
        handle = out!
    }

    deinit { cs_frame_meter_destroy(handle) }

    public func measure(_ image: Image) -> FrameMeasurement {
        var signals = cs_frame_signals()
        checkInvariant { cs_frame_meter_measure(handle, image.handle, &signals, $0) }
        let trusted = signals.has_motion != 0 && signals.motion_response >= Self.minimumMotionResponse
        return FrameMeasurement(
            brightness: signals.brightness, sharpness: signals.sharpness, cornerCount: Int(signals.corner_count),
            cornerSpread: signals.corner_spread, motion: trusted ? SIMD2(signals.motion_x, signals.motion_y) : nil)
    }

    /// The last measured frame's sharpness inside each rectangle (x, y, width, height, full-frame
    /// pixels), as `FrameMeasurement.sharpness` is for the whole frame.
    public func sharpness(in regions: [SIMD4<Double>]) -> [Double] {
        let rects = regions.map { cs_rect(x: $0.x, y: $0.y, width: $0.z, height: $0.w) }
        return [Double](uninitializedCapacity: rects.count) { buffer, n in
            checkInvariant { cs_frame_meter_region_sharpness(handle, rects, rects.count, buffer.baseAddress, $0) }
            n = rects.count
        }
    }
}
