import Foundation
import TestData
import Testing
import WaymarkCore
import WaymarkVision

/// Light estimation: exact cases of the colour science, a uniform gray frame, known white-balance
/// shifts and a large red poster on real photographs, and Oxford's real exposure series.
@Suite struct LightEstimateTests {
    @Test func theTemperatureOfTheLocusIsItsOwn() {
        for kelvin in [2000.0, 2800, 4000, 5000, 6500, 8000, 10000, 15000] {
            let recovered = ColorTemperature.kelvin(ofLinearRGB: ColorTemperature.linearRGB(kelvin: kelvin))
            #expect(abs(recovered - kelvin) < 0.001 * kelvin, "\(kelvin) K came back as \(recovered) K")
        }
        // sRGB's white is D65, whose correlated colour temperature is 6504 K.
        #expect(abs(ColorTemperature.kelvin(ofLinearRGB: SIMD3(1, 1, 1)) - 6504) < 5)
    }

    @Test func aUniformGrayFrameIsNeutral() {
        let meter = FrameMeter()
        let uniform = Image(width: 160, height: 120, channels: 3, pixels: .init(repeating: 128, count: 160 * 120 * 3))
        let colour = LightEstimate(meter.measureLight(uniform))
        #expect(abs(colour.colorTemperature! - 6500) < 200)
        let gains = colour.colorCorrection!
        #expect(abs(gains.x - 1) < 0.01 && gains.y == 1 && abs(gains.z - 1) < 0.01, "gains \(gains)")
        // Code 128 is 0.2158 in linear light: 1.2 times middle gray.
        #expect(abs(colour.ambientIntensity - 1000 * 0.21586 / 0.18) < 2)
        let gray = LightEstimate(meter.measureLight(uniform.gray()))
        #expect(gray.colorTemperature == nil && gray.colorCorrection == nil)
        #expect(abs(gray.ambientIntensity - colour.ambientIntensity) < 1)
    }
}

/// Real photographs from ../shared/datasets: indoor and outdoor, daylight, overcast and tungsten.
@Suite(.enabled(if: SharedDatasets.has("oxford_affine/leuven/img6.png"))) struct RealLightTests {
    static let photographs = LightPhotographs.all

    static func photograph(_ path: String) throws -> Image {
        try Image(contentsOf: SharedDatasets.root!.appendingPathComponent(path).path, gray: false)
    }

    /// Each photograph made neutral by the light found in it, then relit as by a black body at
    /// 2800–10000 K: the temperature found again, within 300 K. The truth of a photograph's own
    /// light is not known, so the shift is applied from what this estimator calls neutral.
    /// Measured at this commit: all 80 at 3000–8000 K and all 32 at 2800 and 10000 K.
    @Test func knownWhiteBalanceShiftsAreFoundAgain() throws {
        let meter = FrameMeter()
        var within = 0, withinOutside = 0, misses: [String] = []
        for path in Self.photographs {
            let image = try Self.photograph(path)
            let own = try #require(meter.measureLight(image).illuminant, "\(path) has no usable pixels")
            for kelvin in [2800.0, 3000, 4000, 5000, 6500, 8000, 10000] {
                var gains = ColorTemperature.linearRGB(kelvin: kelvin) / own
                gains /= gains.max()
                let found = try #require(LightEstimate(meter.measureLight(image.relit(byLinearGains: gains))).colorTemperature)
                let hit = abs(found - kelvin) < 300
                if (3000...8000).contains(kelvin) { within += hit ? 1 : 0 } else { withinOutside += hit ? 1 : 0 }
                if !hit { misses.append("\(path) at \(Int(kelvin)) K: \(Int(found)) K") }
            }
        }
        #expect(within == 80, "\(within) of 80 within 300 K at 3000–8000 K; misses: \(misses)")
        #expect(withinOutside == 32, "\(withinOutside) of 32 within 300 K at 2800 and 10000 K; misses: \(misses)")
    }
}

extension RealLightTests {
    /// A large saturated red poster (a third of the view) held over each photograph: its colour
    /// moves the temperature by under 300 K beyond what hiding that third does (the same third
    /// clipped white, which the estimate leaves out). Hiding it may move the estimate by itself,
    /// when most of the gray the light shows lay there: measured at this commit, 13 of 16 move
    /// under 300 K from the photograph; ubc and bikes lose most of one gray cluster and take
    /// another, and Herz-Jesus's broad cluster peaks elsewhere without its middle.
    @Test func aLargeRedPosterMovesTheTemperatureNoMoreThanHidingItsThird() throws {
        let meter = FrameMeter()
        var moved: [Double] = [], movedByColour: [Double] = []
        for path in Self.photographs {
            let image = try Self.photograph(path)
            func temperature(holding colour: (UInt8, UInt8, UInt8)?) throws -> Double {
                var pixels = image.pixels
                if let colour {
                    LightPhotographs.holdPoster(over: &pixels, width: image.width, height: image.height, colour: colour)
                }
                let held = Image(width: image.width, height: image.height, channels: 3, pixels: pixels)
                return try #require(LightEstimate(meter.measureLight(held)).colorTemperature, "\(path) has no light")
            }
            let before = try temperature(holding: nil), hidden = try temperature(holding: LightPhotographs.hidden)
            let poster = try temperature(holding: LightPhotographs.posterRed)
            moved.append(abs(poster - before))
            movedByColour.append(abs(poster - hidden))
        }
        #expect(movedByColour.allSatisfy { $0 < 300 }, "moved beyond hiding by \(movedByColour.map { Int($0) }) K")
        #expect(moved.count { $0 < 300 } >= 13, "moved by \(moved.map { Int($0) }) K")
    }

    /// Oxford's leuven: one view at six exposures, each darker than the last, by the ratio of
    /// the images' mean luminance over all their pixels (the meter samples one in 16).
    @Test func theExposureSeriesDarkensStepByStep() throws {
        let meter = FrameMeter()
        var intensities: [Double] = [], meanLuminances: [Double] = []
        for number in 1...6 {
            let image = try Self.photograph("oxford_affine/leuven/img\(number).png")
            intensities.append(LightEstimate(meter.measureLight(image)).ambientIntensity)
            meanLuminances.append(image.meanLuminance())
        }
        for step in 1..<6 {
            let ratio = intensities[step] / intensities[step - 1], meanRatio = meanLuminances[step] / meanLuminances[step - 1]
            #expect(ratio < 1, "img\(step + 1) is not darker than img\(step): \(intensities)")
            #expect(abs(ratio / meanRatio - 1) < 0.03, "step \(step): \(ratio) against the mean luminance's \(meanRatio)")
        }
    }
}

@Suite struct LightSmootherTests {
    static func measurement(key: Double, kelvin: Double) -> LightEstimate {
        LightEstimate(LightMeasurement(meanLuminance: key, illuminant: ColorTemperature.linearRGB(kelvin: kelvin), illuminantShare: 1))
    }

    /// A step from a bright neutral light to a dim warm one, at 30 frames a second: the estimate
    /// moves at once, is within 5 % of the new light 0.45 s later, and a gap starts afresh.
    @Test func aStepIsFollowedWithinHalfASecondAndAGapStartsAfresh() {
        var smoother = LightSmoother()
        for frame in 0..<30 { _ = smoother.update(Self.measurement(key: 0.18, kelvin: 6500), at: Double(frame) / 30) }
        let first = smoother.update(Self.measurement(key: 0.054, kelvin: 3000), at: 1)
        #expect(first.ambientIntensity < 900 && first.ambientIntensity > 300 + 20)
        var later = first
        for frame in 31...44 { later = smoother.update(Self.measurement(key: 0.054, kelvin: 3000), at: Double(frame) / 30) }
        // 0.467 s after the step: e^(-0.467 / 0.1) = 0.9 % of the way is left.
        #expect(abs(log(later.ambientIntensity / 300)) < 0.05 * log(1000.0 / 300))
        #expect(abs(1e6 / later.colorTemperature! - 1e6 / 3000) < 0.05 * (1e6 / 3000 - 1e6 / 6500))
        let afterGap = smoother.update(Self.measurement(key: 0.18, kelvin: 6500), at: 3)
        #expect(abs(afterGap.ambientIntensity - 1000) < 1e-6 && abs(afterGap.colorTemperature! - 6500) < 1)
    }
}
