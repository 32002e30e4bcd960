import CSupport
import Foundation

/// The light of one frame as its pixels show it (`FrameMeter.measureLight`), in linear light.
public struct LightMeasurement: Sendable, Equatable {
    /// Mean luminance, 0–1 (Rec. 709 weights). A frame exposed for middle gray has 0.18.
    public var meanLuminance: Double
    /// The light's colour: linear RGB, green 1, at the densest point of the cluster of pixels that
    /// are gray under it; nil for a gray frame, or when too few pixels are neither clipped nor dark.
    public var illuminant: SIMD3<Double>?
    /// The fraction of the frame's pixels in the search's window around the illuminant's cluster.
    public var illuminantShare: Double

    public init(meanLuminance: Double, illuminant: SIMD3<Double>?, illuminantShare: Double) {
        self.meanLuminance = meanLuminance
        self.illuminant = illuminant
        self.illuminantShare = illuminantShare
    }
}

/// What a renderer needs to light virtual content as the scene is lit, on the scales ARKit and
/// ARCore use.
public struct LightEstimate: Sendable, Equatable {
    /// ARKit's `ambientIntensity` scale, 1000 for a frame exposed for middle gray: 1000 × its
    /// mean luminance / 0.18. From the pixels alone, so it says how bright the image is; a camera's automatic
    /// exposure keeps that near 1000 in most light, as it keeps the image viewable.
    public var ambientIntensity: Double
    /// The correlated colour temperature of the light, kelvin (6500 neutral); nil without colour.
    public var colorTemperature: Double?
    /// ARCore's colour correction: per-channel gains, linear RGB, green 1, by which a virtual
    /// object's linear colour is multiplied to look lit by this light; nil without colour.
    public var colorCorrection: SIMD3<Double>?

    /// Where the scene's main light comes from, where the shading of its surfaces tells (ARCore's
    /// HDR mode's main light direction); nil without depth or before enough surfaces were seen.
    public var mainLight: MainLight?

    public static let middleGray = 0.18

    public init(ambientIntensity: Double, colorTemperature: Double?, colorCorrection: SIMD3<Double>?,
                mainLight: MainLight? = nil) {
        self.ambientIntensity = ambientIntensity
        self.colorTemperature = colorTemperature
        self.colorCorrection = colorCorrection
        self.mainLight = mainLight
    }

    public init(_ measurement: LightMeasurement) {
        self.init(
            ambientIntensity: 1000 * measurement.meanLuminance / Self.middleGray,
            colorTemperature: measurement.illuminant.map(ColorTemperature.kelvin(ofLinearRGB:)),
            colorCorrection: measurement.illuminant)
    }
}

/// The direction of a scene's main light.
public struct MainLight: Sendable, Equatable {
    /// Unit vector in the world's coordinates, from the scene towards the light.
    public var direction: SIMD3<Double>
    /// 0–1: how far the surfaces' shading bears the direction out (see `ShadingLightEstimator`).
    public var confidence: Double

    public init(direction: SIMD3<Double>, confidence: Double) {
        self.direction = direction
        self.confidence = confidence
    }
}

/// Where the light's colour may lie in a frame's chroma histogram (`cs_frame_meter_measure_light`):
/// near the Planckian locus (and on past its ends), where pixels cluster as grays do under a light
/// (their log(R/G) and log(B/G) within `windowBins` bins of the light's). `FrameMeter` follows
/// each such cluster to its densest point on the samples themselves and takes the densest.
/// Real lights lie near the locus; a poster's saturated red, a lawn's green, lie far from it, so
/// however much of the view they fill they cannot pull the light towards themselves.
enum IlluminantSearch {
    static let bins = Int(CS_CHROMA_BINS)
    static let step = Double(CS_CHROMA_STEP)
    /// ±0.15 in log chroma: within about 16 % of gray under the light.
    static let windowBins = 3
    /// How many of the band's peaks are followed to their modes, and how far apart (bins, either way) they must be.
    static let candidateCount = 4
    static let peakSpacing = 4
    /// The kernel of the mean shift on the samples that ends the search (`FrameMeter`), log chroma.
    static let modeSigma = 0.05
    /// Fewer gray pixels than this share of the frame tell nothing about the light.
    static let leastShare = 0.02
    /// The search's track: the locus's bins from 1667 K to 25000 K (where in sRGB's gamut), by
    /// whole mireds, then on along the locus's direction at either end to the histogram's edge,
    /// each bin once. Past the ends lie grays no black body gives but a camera's white balance
    /// can: set for a lamp in daylight it leaves the day's grays bluer than 25000 K; without the
    /// extension a frame's densest gray there was out of reach, and a frame relit by a known
    /// shift found another cluster than the one its unshifted self had (leuven).
    static let locusBins: [SIMD2<Int>] = {
        let points = stride(from: 1e6 / ColorTemperature.range.upperBound, through: 1e6 / ColorTemperature.range.lowerBound, by: 1)
            .compactMap { mired -> SIMD2<Double>? in
                let rgb = ColorTemperature.linearRGB(kelvin: 1e6 / mired)
                guard rgb.min() > 0 else { return nil }  // below ~1900 K the locus leaves sRGB's gamut
                return SIMD2(log(rgb.x / rgb.y), log(rgb.z / rgb.y))
            }
        func continued(from end: SIMD2<Double>, away inner: SIMD2<Double>) -> [SIMD2<Double>] {
            let direction = (end - inner) / ((end - inner) * (end - inner)).sum().squareRoot()
            return (1...(2 * bins)).map { end + Double($0) * step / 2 * direction }
        }
        let blueEnd = continued(from: points[0], away: points[min(20, points.count - 1)])
        let warmEnd = continued(from: points[points.count - 1], away: points[max(points.count - 21, 0)])
        var seen = Set<SIMD2<Int>>()
        return (blueEnd.reversed() + points + warmEnd).compactMap { point -> SIMD2<Int>? in
            let bin = Self.bin(ofLogChroma: point)
            return contains(bin) && seen.insert(bin).inserted ? bin : nil
        }
    }()

    /// The histogram bin of (log(R/G), log(B/G)), as `cs_frame_meter_measure_light` bins pixels.
    static func bin(ofLogChroma point: SIMD2<Double>) -> SIMD2<Int> {
        SIMD2(Int((point.x / step).rounded(.down)), Int((point.y / step).rounded(.down))) &+ bins / 2
    }

    static func contains(_ bin: SIMD2<Int>) -> Bool { bin.x >= 0 && bin.x < bins && bin.y >= 0 && bin.y < bins }

    /// Whether each bin (row-major) lies within `windowBins` of the track, where a light's gray
    /// cluster may lie; and those that do.
    static let inBand: [Bool] = {
        var inBand = [Bool](repeating: false, count: bins * bins)
        for bin in locusBins {
            for v in max(bin.y - windowBins, 0)...min(bin.y + windowBins, bins - 1) {
                for u in max(bin.x - windowBins, 0)...min(bin.x + windowBins, bins - 1) { inBand[v * bins + u] = true }
            }
        }
        return inBand
    }()
    static let band = inBand.indices.filter { inBand[$0] }

    /// Where near the track gray clusters may lie: the centres (log(R/G), log(B/G), the window's
    /// samples' mean by bin) of the windows (`windowBins` about a bin in the band) whose counts
    /// peak in two dimensions (no window in the band within `peakSpacing` bins holds more), the
    /// `candidateCount` fullest first, each with its share of the frame's pixels; only those with
    /// `leastShare` or more. Peaks in the plane, not along the track: two clusters side by side
    /// across it are both found, whichever way a shift of the light moves them along it.
    static func candidates(in chroma: [Int32], pixels: Int) -> [(start: SIMD2<Double>, share: Double)] {
        // The counts' integral image, so that any window's count is four reads.
        let side = bins + 1
        var integral = [Int32](repeating: 0, count: side * side)
        for v in 0..<bins {
            var row: Int32 = 0
            for u in 0..<bins {
                row += chroma[v * bins + u]
                integral[(v + 1) * side + u + 1] = integral[v * side + u + 1] + row
            }
        }
        func window(_ u: Int, _ v: Int) -> (u: ClosedRange<Int>, v: ClosedRange<Int>) {
            (max(u - windowBins, 0)...min(u + windowBins, bins - 1), max(v - windowBins, 0)...min(v + windowBins, bins - 1))
        }
        func count(_ u: Int, _ v: Int) -> Int32 {
            let (us, vs) = window(u, v)
            return integral[(vs.upperBound + 1) * side + us.upperBound + 1] - integral[vs.lowerBound * side + us.upperBound + 1]
                - integral[(vs.upperBound + 1) * side + us.lowerBound] + integral[vs.lowerBound * side + us.lowerBound]
        }
        let least = Int32((leastShare * Double(pixels)).rounded(.up))
        var peaks: [(index: Int, count: Int32)] = []
        for index in band {
            let u = index % bins, v = index / bins, here = count(u, v)
            guard here >= least else { continue }
            let isPeak = (max(v - peakSpacing, 0)...min(v + peakSpacing, bins - 1)).allSatisfy { nv in
                (max(u - peakSpacing, 0)...min(u + peakSpacing, bins - 1)).allSatisfy { nu in
                    let other = nv * bins + nu
                    guard inBand[other], other != index else { return true }
                    let there = count(nu, nv)
                    return there < here || there == here && other > index
                }
            }
            if isPeak { peaks.append((index, here)) }
        }
        return peaks.sorted { $0.count > $1.count }.prefix(candidateCount).map { peak in
            let (us, vs) = window(peak.index % bins, peak.index / bins)
            var sum = SIMD2<Double>()
            for v in vs {
                for u in us {
                    let centre = SIMD2(Double(u - bins / 2), Double(v - bins / 2)) + 0.5
                    sum += Double(chroma[v * bins + u]) * centre
                }
            }
            return (sum * step / Double(peak.count), Double(peak.count) / Double(pixels))
        }
    }
}

/// sRGB's transfer function, both ways, on values 0–1 (the C shim decodes by its own table).
public enum SRGB {
    public static func linear(_ coded: Double) -> Double {
        coded <= 0.04045 ? coded / 12.92 : pow((coded + 0.055) / 1.055, 2.4)
    }

    public static func coded(_ linear: Double) -> Double {
        linear <= 0.0031308 ? 12.92 * linear : 1.055 * pow(linear, 1 / 2.4) - 0.055
    }
}

extension Image {
    /// The mean luminance of every pixel, linear light (Rec. 709 weights; a gray image's own).
    public func meanLuminance() -> Double {
        let table = (0..<256).map { SRGB.linear(Double($0) / 255) }
        let pixels = self.pixels
        guard channels == 3 else { return pixels.reduce(0) { $0 + table[Int($1)] } / Double(max(pixels.count, 1)) }
        var sum = 0.0
        for at in stride(from: 0, to: pixels.count, by: 3) {  // BGR
            sum += 0.0722 * table[Int(pixels[at])] + 0.7152 * table[Int(pixels[at + 1])] + 0.2126 * table[Int(pixels[at + 2])]
        }
        return sum / Double(max(pixels.count / 3, 1))
    }

    /// This colour image relit: each channel's linear light times its gain (RGB), as a camera's
    /// white balance or a change of light would scale it. A pixel clipped here (a channel at
    /// `CS_CLIPPED_CODE`, 250, or over) stays clipped, white: its light is not known, and scaling what is left of it
    /// would make a colour no light gave.
    public func relit(byLinearGains gains: SIMD3<Double>) -> Image {
        precondition(channels == 3, "relit needs a colour image")
        let tables = [gains.z, gains.y, gains.x].map { gain in  // BGR
            (0..<256).map { UInt8((SRGB.coded(min(max(SRGB.linear(Double($0) / 255) * gain, 0), 1)) * 255).rounded()) }
        }
        var pixels = self.pixels
        for at in stride(from: 0, to: pixels.count, by: 3) {
            if max(pixels[at], pixels[at + 1], pixels[at + 2]) >= CS_CLIPPED_CODE {
                (pixels[at], pixels[at + 1], pixels[at + 2]) = (255, 255, 255)
                continue
            }
            for k in 0..<3 { pixels[at + k] = tables[k][Int(pixels[at + k])] }
        }
        return Image(width: width, height: height, channels: 3, pixels: pixels)
    }
}

/// Correlated colour temperature: the point of the Planckian locus nearest a colour in CIE 1960
/// (u, v), the definition's own measure; the locus by Kim et al.'s cubic splines (1667–25000 K).
public enum ColorTemperature {
    public static let range = 1667.0...25000.0

    /// The temperature of a linear sRGB colour (D65 white, as sRGB's (1, 1, 1), gives 6504 K),
    /// clamped to `range`.
    public static func kelvin(ofLinearRGB rgb: SIMD3<Double>) -> Double {
        let target = uv(xy(ofLinearRGB: rgb))
        func distance(_ mired: Double) -> Double {
            let d = uv(locus(kelvin: 1e6 / mired)) - target
            return (d * d).sum()
        }
        // Whole mireds first (the locus is smooth and nearly straight at that scale), then a
        // golden-section search between the neighbours of the best.
        let coarse = Array(stride(from: 1e6 / range.upperBound, through: 1e6 / range.lowerBound, by: 1))
        let distances = coarse.map(distance)
        let best = distances.indices.min { distances[$0] < distances[$1] }!
        var low = coarse[max(best - 1, 0)], high = coarse[min(best + 1, coarse.count - 1)]
        let ratio = (5.0.squareRoot() - 1) / 2
        for _ in 0..<40 {
            let a = high - ratio * (high - low), b = low + ratio * (high - low)
            if distance(a) < distance(b) { high = b } else { low = a }
        }
        return min(max(1e6 / ((low + high) / 2), range.lowerBound), range.upperBound)
    }

    /// The colour of a black body at `kelvin`, linear sRGB, green 1.
    public static func linearRGB(kelvin: Double) -> SIMD3<Double> {
        let point = locus(kelvin: kelvin)
        let (x, y) = (point.x, point.y)
        let xyz = SIMD3(x / y, 1, (1 - x - y) / y)
        let rgb = SIMD3(
            3.2404542 * xyz.x - 1.5371385 * xyz.y - 0.4985314 * xyz.z,
            -0.9692660 * xyz.x + 1.8760108 * xyz.y + 0.0415560 * xyz.z,
            0.0556434 * xyz.x - 0.2040259 * xyz.y + 1.0572252 * xyz.z)
        return rgb / rgb.y
    }

    static func xy(ofLinearRGB rgb: SIMD3<Double>) -> SIMD2<Double> {
        let x = 0.4124564 * rgb.x + 0.3575761 * rgb.y + 0.1804375 * rgb.z
        let y = 0.2126729 * rgb.x + 0.7151522 * rgb.y + 0.0721750 * rgb.z
        let z = 0.0193339 * rgb.x + 0.1191920 * rgb.y + 0.9503041 * rgb.z
        return SIMD2(x, y) / (x + y + z)
    }

    static func uv(_ xy: SIMD2<Double>) -> SIMD2<Double> {
        SIMD2(4 * xy.x, 6 * xy.y) / (-2 * xy.x + 12 * xy.y + 3)
    }

    static func locus(kelvin t: Double) -> SIMD2<Double> {
        let (t1, t2, t3) = (1e3 / t, 1e6 / (t * t), 1e9 / (t * t * t))
        let x = t <= 4000
            ? -0.2661239 * t3 - 0.2343589 * t2 + 0.8776956 * t1 + 0.179910
            : -3.0258469 * t3 + 2.1070379 * t2 + 0.2226347 * t1 + 0.240390
        let y = t <= 2222
            ? -1.1063814 * x * x * x - 1.34811020 * x * x + 2.18555832 * x - 0.20219683
            : t <= 4000
            ? -0.9549476 * x * x * x - 1.37418593 * x * x + 2.09137015 * x - 0.16748867
            : 3.0817580 * x * x * x - 5.87338670 * x * x + 3.75112997 * x - 0.37001483
        return SIMD2(x, y)
    }
}

/// Per-frame light estimates smoothed over time, as a renderer wants them: an exponential average
/// (of the intensity's logarithm, the temperature in mireds and the gains' logarithms) with a
/// time constant of 0.1 s, so a real change is followed to within 5 % in 0.3 s while a frame's
/// own noise is averaged out. A gap of over a second, or time going back, starts it afresh.
public struct LightSmoother: Sendable {
    public static let timeConstant = 0.1
    public static let longestGap = 1.0

    private struct State {
        var timestamp: Double
        var logIntensity: Double
        var mired: Double?
        var logGains: SIMD3<Double>?
    }

    private var state: State?

    public init() {}

    /// `raw`: this frame's own estimate. Its main light is passed on as it is: that estimate is
    /// already the session's, gathered over all its frames.
    public mutating func update(_ raw: LightEstimate, at timestamp: Double) -> LightEstimate {
        var now = State(
            timestamp: timestamp, logIntensity: log(max(raw.ambientIntensity, 1e-3)),
            mired: raw.colorTemperature.map { 1e6 / $0 }, logGains: raw.colorCorrection.map { SIMD3(log($0.x), 0, log($0.z)) })
        if let before = state, timestamp > before.timestamp, timestamp - before.timestamp <= Self.longestGap {
            let weight = 1 - exp(-(timestamp - before.timestamp) / Self.timeConstant)
            now.logIntensity = before.logIntensity + weight * (now.logIntensity - before.logIntensity)
            if let was = before.mired, let current = now.mired { now.mired = was + weight * (current - was) }
            if let was = before.logGains, let current = now.logGains { now.logGains = was + weight * (current - was) }
        }
        state = now
        return LightEstimate(
            ambientIntensity: exp(now.logIntensity), colorTemperature: now.mired.map { 1e6 / $0 },
            colorCorrection: now.logGains.map { SIMD3(exp($0.x), 1, exp($0.z)) }, mainLight: raw.mainLight)
    }
}
