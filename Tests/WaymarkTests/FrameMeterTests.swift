import TestData
import Testing
import TestSupport
import WaymarkVision

@Suite struct FrameMeterTests {
    /// A width×height window of `image` whose top-left corner is at (x, y).
    static func crop(_ image: Image, x: Int, y: Int, width: Int, height: Int) -> Image {
        let pixels = image.pixels
        var out = [UInt8](repeating: 0, count: width * height)
        for row in 0..<height {
            for column in 0..<width { out[row * width + column] = pixels[(y + row) * image.width + x + column] }
        }
        return Image(width: width, height: height, channels: 1, pixels: out)
    }

    /// `image` smeared along its rows (or columns) as a camera moving that way during the
    /// exposure smears it: each pixel the mean of the `length` pixels ending at it.
    static func smeared(_ image: Image, length: Int, alongRows: Bool) -> Image {
        let (w, h) = (image.width, image.height)
        let pixels = image.pixels
        var out = [UInt8](repeating: 0, count: w * h)
        let (lines, count) = alongRows ? (h, w) : (w, h)
        for line in 0..<lines {
            let index = { (k: Int) in alongRows ? line * w + k : k * w + line }
            var sum = 0
            for k in 0..<count {
                sum += Int(pixels[index(k)])
                if k >= length { sum -= Int(pixels[index(k - length)]) }
                out[index(k)] = UInt8(sum / min(k + 1, length))
            }
        }
        return Image(width: w, height: h, channels: 1, pixels: out)
    }

    @Test func flatFramesHaveTheirLightAndNoDetail() {
        let meter = FrameMeter()
        let flat = Image(width: 320, height: 240, channels: 1, pixels: [UInt8](repeating: 37, count: 320 * 240))
        let m = meter.measure(flat)
        // Code 37 is 0.0185 in linear light: about a tenth of middle gray.
        #expect(abs(LightEstimate(meter.measureLight(flat)).ambientIntensity - 1000 * 0.018500 / 0.18) < 0.5)
        #expect(m.sharpness == 0 && m.cornerCount == 0 && m.cornerSpread == 0 && m.directionality == 0)
        #expect(m.motion == nil, "the first frame has no motion")
    }

    @Test func blurLowersSharpnessAndDetail() {
        let texture = syntheticTexture(width: 640, height: 480, seed: 5)
        let sharp = FrameMeter().measure(texture)
        let blurred = FrameMeter().measure(texture.blurred(sigma: 4))
        #expect(sharp.cornerSpread > 0.9, "spread \(sharp.cornerSpread)")
        #expect(blurred.sharpness < sharp.sharpness / 10, "\(blurred.sharpness) vs \(sharp.sharpness)")
        #expect(blurred.cornerCount < sharp.cornerCount / 4, "\(blurred.cornerCount) vs \(sharp.cornerCount)")
    }

    /// Motion smears a view along one direction and leaves the edges across it; defocus blurs
    /// every direction alike. Thresholds: `CoachingOptions.maximumDirectionality` (0.6) and the
    /// 0.5 that real photographs stay under.
    @Test func aSmearAlongOneDirectionIsDirectionalAndDefocusIsNot() {
        let texture = syntheticTexture(width: 640, height: 480, seed: 5)
        let sharp = FrameMeter().measure(texture).directionality
        let defocused = FrameMeter().measure(texture.blurred(sigma: 4)).directionality
        let sideways = FrameMeter().measure(Self.smeared(texture, length: 32, alongRows: true)).directionality
        let upwards = FrameMeter().measure(Self.smeared(texture, length: 32, alongRows: false)).directionality
        #expect(sharp < 0.5 && defocused < 0.5, "sharp \(sharp), defocused \(defocused)")
        #expect(sideways > 0.6 && upwards > 0.6, "smeared sideways \(sideways), upwards \(upwards)")
    }

    /// A real hand-held camera at a walking pace (the TUM fr1/xyz excerpt) is not smeared; the
    /// same frames smeared by 32 pixels sideways, as a fast turn would, are.
    @Test(.enabled(if: SharedDatasets.path(BookCoverVideo.folder) != nil))
    func realFramesAreNotSmearedUntilTheyAre() throws {
        let video = try #require(try BookCoverVideo())
        for path in video.framePaths {
            let frame = try Image(contentsOf: path, gray: true)
            let normal = FrameMeter().measure(frame).directionality
            let turned = FrameMeter().measure(Self.smeared(frame, length: 32, alongRows: true)).directionality
            #expect(normal < 0.5 && turned > 0.6, "\(path): \(normal), smeared \(turned)")
        }
    }

    /// Two windows of one texture, 24 px right and 16 px up of each other: the view moved left
    /// and down by that much (to within a pixel, the thumbnail's resolution being 5 px).
    @Test func viewMotionIsTheShiftBetweenFrames() throws {
        let texture = syntheticTexture(width: 800, height: 600, seed: 9)
        let meter = FrameMeter()
        _ = meter.measure(Self.crop(texture, x: 60, y: 60, width: 640, height: 480))
        let m = meter.measure(Self.crop(texture, x: 84, y: 44, width: 640, height: 480))
        let motion = try #require(m.motion)
        #expect(abs(motion.x + 24) < 1.5 && abs(motion.y - 16) < 1.5, "motion \(motion)")
    }

    @Test func regionSharpnessMeasuresOnlyInsideTheRegion() {
        // Left half textured, right half flat.
        let texture = syntheticTexture(width: 320, height: 240, seed: 3).pixels
        let pixels = (0..<(320 * 240)).map { $0 % 320 < 160 ? texture[$0] : 128 }
        let meter = FrameMeter()
        let whole = meter.measure(Image(width: 320, height: 240, channels: 1, pixels: pixels)).sharpness
        let regions = meter.sharpness(in: [SIMD4(0, 0, 150, 240), SIMD4(170, 0, 150, 240), SIMD4(400, 0, 10, 10)])
        #expect(regions[0] > 1.5 * whole && regions[1] == 0 && regions[2] == 0, "\(regions), whole frame \(whole)")
    }
}
