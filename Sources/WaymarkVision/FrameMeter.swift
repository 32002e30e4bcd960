import Foundation
import CSupport
import WaymarkCore

/// What one frame shows about the conditions it was taken in (see `FrameMeter`).
public struct FrameMeasurement: Sendable, Equatable {
    /// Variance of the Laplacian of the half-size gray frame: small when blurred or plain.
    public var sharpness: Double
    /// How much of the frame's detail runs across one direction, 0–1: the coherence of the
    /// half-size frame's mean structure tensor. A sharp view has edges every way (real
    /// photographs measure below 0.5); a view smeared by the camera's motion keeps only the edges
    /// across the motion (a 20-pixel smear measures above 0.6), where a defocused or dark view
    /// loses edges in every direction alike. 0 when the frame has too little gradient to tell.
    public var directionality: Double
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
    private var chroma = [Int32](repeating: 0, count: IlluminantSearch.bins * IlluminantSearch.bins)
    /// Phase-correlation peaks below this give no motion.
    public static let minimumMotionResponse = 0.05
    /// Below this mean squared gradient a frame is plain or dark, and its one direction may be a
    /// smooth fall of light across a wall: about twice what sensor noise of 2 gray levels gives
    /// the half-size frame's Sobel gradients (12σ² per direction after the halving's averaging).
    public static let minimumGradientEnergy = 50.0

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
        let (xx, yy, xy) = (signals.gradient_xx, signals.gradient_yy, signals.gradient_xy)
        let energy = xx + yy
        let anisotropy = ((xx - yy) * (xx - yy) + 4 * xy * xy).squareRoot()
        return FrameMeasurement(
            sharpness: signals.sharpness,
            directionality: energy >= Self.minimumGradientEnergy ? anisotropy / energy : 0,
            cornerCount: Int(signals.corner_count),
            cornerSpread: signals.corner_spread, motion: trusted ? SIMD2(signals.motion_x, signals.motion_y) : nil)
    }

    /// The light of a colour frame (its mean luminance and its light's colour) or of a gray one
    /// (its mean luminance alone), on every fourth pixel of every fourth row; its buffer is reused.
    public func measureLight(_ image: Image) -> LightMeasurement {
        var signals = cs_light_signals()
        chroma.withUnsafeMutableBufferPointer { buffer in
            checkInvariant { cs_frame_meter_measure_light(handle, image.handle, buffer.baseAddress, &signals, $0) }
        }
        // Each candidate cluster followed to its densest point; the densest of those is the light.
        let candidates = signals.has_chroma != 0 ? IlluminantSearch.candidates(in: chroma, pixels: Int(signals.pixels)) : []
        let found = candidates.map { (mode: chromaMode(from: $0.start), share: $0.share) }.max { $0.mode.density < $1.mode.density }
        return LightMeasurement(
            meanLuminance: signals.mean_luminance, illuminant: found?.mode.colour, illuminantShare: found?.share ?? 0)
    }

    /// The densest point of the gray pixels' cluster near `start` (log(R/G), log(B/G)), as a
    /// linear RGB colour, found on the samples themselves, not the histogram's bins: a change of
    /// light moves every sample by the same log gains, and this point and its density with them,
    /// wherever the bins' edges fall. `density`: the samples' kernel weight there.
    private func chromaMode(from start: SIMD2<Double>) -> (colour: SIMD3<Double>, density: Double) {
        var u = 0.0, v = 0.0, weight = 0.0
        checkInvariant {
            cs_frame_meter_chroma_mode(handle, start.x, start.y, IlluminantSearch.modeSigma, &u, &v, &weight, $0)
        }
        return (SIMD3(exp(u), 1, exp(v)), weight)
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

extension Image {
    /// The mean luminance, in linear light, of each labelled region (labels: `width`×`height`,
    /// scaled over the image; 0 for none, k for region k of `regions`), on the light's samples
    /// (every fourth pixel of every fourth row), clipped pixels left out; 0 with no samples.
    public func regionLuminance(labels: [UInt16], width: Int, height: Int, regions: Int)
        -> [(luminance: Double, samples: Int)]
    {
        precondition(labels.count == width * height, "label count does not match the size")
        var sums = [Double](repeating: 0, count: regions), counts = [Int32](repeating: 0, count: regions)
        checkInvariant {
            cs_region_luminance(handle, labels, Int32(width), Int32(height), Int32(regions), &sums, &counts, $0)
        }
        return zip(sums, counts).map { sum, count in (count > 0 ? sum / Double(count) : 0, Int(count)) }
    }
}
