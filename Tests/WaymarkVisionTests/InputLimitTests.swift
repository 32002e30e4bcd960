import Foundation
import TestData
import Testing
import WaymarkCore
import WaymarkVision

/// Inputs whose headers declare more than the limits are refused before they are decoded, and
/// inputs too small or strange for the engine are errors or empty results, never traps.
@Suite struct InputLimitTests {
    static func noise(width: Int, height: Int, channels: Int = 1) -> Image {
        var state: UInt32 = 12345
        let pixels = (0..<(width * height * channels)).map { _ -> UInt8 in
            state = state &* 1_664_525 &+ 1_013_904_223
            return UInt8(truncatingIfNeeded: state >> 24)
        }
        return Image(width: width, height: height, channels: channels, pixels: pixels)
    }

    /// A file cut to its first bytes still declares its size; refusing it for that size (not
    /// for being cut) shows the header was read before any decoding.
    @Test(arguments: ["png", "jpg", "bmp", "tiff", "webp", "ppm", "pgm"])
    func theHeaderDeclaresTheSizeOfEveryCommonFormat(format: String) throws {
        let scratch = try Scratch()
        let whole = scratch.path("whole.\(format)")
        try Self.noise(width: 300, height: 200, channels: format == "pgm" ? 1 : 3).write(to: whole)
        let bytes = try readFileBytes(whole)
        let cut = scratch.path("cut.\(format)")
        // OpenCV writes a TIFF's directory after its pixels: only the whole file declares its size.
        try Data(format == "tiff" ? bytes : Array(bytes.prefix(max(64, bytes.count / 3)))).write(to: URL(fileURLWithPath: cut))
        #expect { try Image(contentsOf: cut, gray: true, limits: InputLimits(maxPixels: 59_999)) } throws: {
            "\($0)".contains("is 300×200 pixels, over the limit")
        }
        let image = try Image(contentsOf: whole, gray: true, limits: InputLimits(maxPixels: 60_000))
        #expect(image.width == 300 && image.height == 200)
    }

    @Test func declaredSizesThatAreNoImageAreBadData() throws {
        let scratch = try Scratch()
        let cases = [
            ("huge.pfm", "Pf\n100000 100000\n-1.0\n", "100000×100000 pixels, over the limit"),
            ("negative.pfm", "Pf\n-5 3\n-1.0\n", "declares a size of -5×3"),
            ("empty.pfm", "Pf\n0 0\n-1.0\n", "declares a size of 0×0"),
        ]
        for (name, header, message) in cases {
            try Data((header + String(repeating: "\0", count: 64)).utf8).write(to: URL(fileURLWithPath: scratch.path(name)))
            #expect { try Raster(contentsOf: scratch.path(name)) } throws: {
                ($0 as? WaymarkError)?.kind == .badData && "\($0)".contains(message)
            }
        }
    }

    @Test func aFIFOIsRefusedWithoutWaitingForAWriter() throws {
        let scratch = try Scratch()
        let fifo = scratch.path("frame.png")
        #expect(mkfifo(fifo, 0o644) == 0)
        #expect { try Image(contentsOf: fifo, gray: true) } throws: { "\($0)".contains("is a FIFO") }
        #expect { try readFileBytes(fifo) } throws: { ($0 as? WaymarkError)?.kind == .badData }
    }

    @Test func aLoopOfSymbolicLinksIsNamed() throws {
        let scratch = try Scratch()
        try FileManager.default.createSymbolicLink(atPath: scratch.path("a.png"), withDestinationPath: scratch.path("b.png"))
        try FileManager.default.createSymbolicLink(atPath: scratch.path("b.png"), withDestinationPath: scratch.path("a.png"))
        #expect { try Image(contentsOf: scratch.path("a.png"), gray: true) } throws: { "\($0)".contains("loop of symbolic links") }
    }

    /// Every size from 1 pixel up to past ORB's border, wide and tall: no trap, and no keypoint
    /// closer to the border than ORB keeps them.
    @Test func featuresOfTinyAndThinImagesAreEmptyOrInside() {
        var options = FeatureOptions(maxFeatures: 500)
        options.ranking = .fast
        options.spread = 0.5
        options.enlargedLevels = 1
        options.levels = 6
        let plain = FeatureOptions(maxFeatures: 500)
        for (width, height) in [(1, 1), (2000, 1), (1, 2000), (2, 3), (40, 40), (62, 300), (300, 62), (70, 70), (100, 2)] {
            let image = Self.noise(width: width, height: height)
            for o in [options, plain] {
                let features = FeatureSet(detectingIn: image, options: o)
                #expect(features.keypoints.allSatisfy {
                    $0.location.x > 0 && $0.location.x < Double(width) && $0.location.y > 0 && $0.location.y < Double(height)
                }, "\(width)×\(height)")
                if min(width, height) < 40 { #expect(features.count == 0, "\(width)×\(height)") }
            }
        }
    }
}
