import Foundation
import TestData
import TestSupport
import Waymark

/// `waymark-bench light`: the light estimate on real photographs (development: Oxford's first
/// images, tuned on; validation: Middlebury, Strecha, Open3D and TUM frames, only measured), side
/// by side with gray-world, shades-of-gray and OpenCV's learning-based white balance
/// (`Benchmarks/baselines/light_baseline.py`); the exposure series; its cost; and the main
/// light's direction on the table-top walk-through. (The scripted change of light through a
/// session is the session suite's `light` part.)
struct LightSuite {
    var datasets: URL
    var baseline: Baseline?
    var scratch: URL
    var parts: Set<String>
    var figures: Figures

    static let allParts: Set<String> = ["shifts", "exposure", "cost", "direction"]
    static let kelvins = [2800.0, 3000, 4000, 5000, 6500, 8000, 10000]
    static let methods = ["waymark", "gray-world", "shades-of-gray", "learning-based"]

    func run() throws {
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: scratch) }
        if parts.contains("shifts") { try reportShifts() }
        if parts.contains("exposure") { try reportExposure() }
        if parts.contains("cost") { try reportCost() }
        if parts.contains("direction") { try reportDirection() }
    }

    struct BaselineAnswer: Decodable {
        struct Estimate: Decodable {
            var illuminant: [Double]?
            var ms: Double
        }
        var opencv: String
        var estimates: [String: [Estimate]]
    }

    private func photograph(_ path: String) throws -> Image {
        try Image(contentsOf: datasets.appendingPathComponent(path).path, gray: false)
    }

    /// Each method's illuminant (linear RGB, green 1) for each image, in order: Waymark's here,
    /// the baselines' from the script (none without it).
    private func illuminants(of images: [Image], repeats: Int = 1) throws
        -> (byMethod: [String: [SIMD3<Double>?]], ms: [String: [Double]])
    {
        let meter = FrameMeter()
        var ours: [SIMD3<Double>?] = [], ourMs: [Double] = []
        for image in images {
            var times: [Double] = [], found: SIMD3<Double>?
            for _ in 0..<repeats {
                let (measured, ms) = milliseconds { meter.measureLight(image) }
                found = measured.illuminant
                times.append(ms)
            }
            ours.append(found)
            ourMs.append(Summary(times).median)
        }
        var byMethod = ["waymark": ours], ms = ["waymark": ourMs]
        guard let baseline else { return (byMethod, ms) }
        let paths = try images.enumerated().map { index, image -> String in
            let path = scratch.appendingPathComponent("light-\(index).png").path
            try image.write(to: path)
            return path
        }
        let answer = try baseline.run(task: ["images": paths, "repeats": repeats], as: BaselineAnswer.self)
        for (method, estimates) in answer.estimates {
            byMethod[method] = estimates.map { $0.illuminant.map { SIMD3($0[0], $0[1], $0[2]) } }
            ms[method] = estimates.map(\.ms)
        }
        return (byMethod, ms)
    }

    // MARK: White-balance shifts and a red poster

    /// Each photograph made neutral by the light Waymark finds in it and relit as by a black body
    /// at each of `kelvins`, and with a red poster over a third of it. Every method reads the same
    /// images; as no photograph's own light is known, each is scored against itself: a shift is
    /// found when the method's estimate of the relit image is within 300 K of its own estimate of
    /// the photograph times the shift's gains; a poster moves it by under 300 K, both from the
    /// photograph and from the photograph with the poster's third hidden (its colour's own effect).
    private func reportShifts() throws {
        print("## Light: white-balance shifts and a red poster\n")
        print("Each photograph made neutral by the light Waymark finds in it, then relit as by a black body at "
              + "\(Self.kelvins.map { "\(Int($0))" }.joined(separator: ", ")) K (linear-light gains; a clipped pixel stays "
              + "clipped); and with a saturated red poster over a third of it. Every method reads the same images and "
              + "is held to itself, as no photograph's own light is known: a shift is found when its estimate of the "
              + "relit image is within 300 K of its estimate of the photograph times the shift's gains; the poster "
              + "should move it by under 300 K. The last column holds the poster against the same third hidden "
              + "(clipped white, which every method leaves out): what the poster's colour does beyond hiding the "
              + "light's evidence there. Baselines: gray-world and shades-of-gray (p = 6) on the same "
              + "unclipped, not-dark pixels (all of them), and OpenCV contrib's xphoto LearningBasedWB (its model "
              + "trained on Gehler-Shi).\n")
        print("| split | method | 3000–8000 K within 300 K | 2800 and 10000 K | median error 3000–8000 K | poster moves < 300 K "
              + "| poster's red moves < 300 K beyond hiding |")
        print("|---|---|---|---|---|---|---|")
        for (split, paths) in [("development", LightPhotographs.development), ("validation", LightPhotographs.validation)] {
            let meter = FrameMeter()
            var images: [Image] = [], shifts: [(photo: Int, kelvin: Double, gains: SIMD3<Double>, image: Int)] = []
            var originals: [Int] = [], posters: [Int] = [], hiddens: [Int] = []
            for path in paths {
                let image = try photograph(path)
                guard let own = meter.measureLight(image).illuminant else { throw BenchError("\(path): no light found") }
                originals.append(images.count)
                images.append(image)
                for kelvin in Self.kelvins {
                    var gains = ColorTemperature.linearRGB(kelvin: kelvin) / own
                    gains /= gains.max()
                    shifts.append((originals.count - 1, kelvin, gains, images.count))
                    images.append(image.relit(byLinearGains: gains))
                }
                func held(_ colour: (UInt8, UInt8, UInt8)) -> Image {
                    var pixels = image.pixels
                    LightPhotographs.holdPoster(over: &pixels, width: image.width, height: image.height, colour: colour)
                    return Image(width: image.width, height: image.height, channels: 3, pixels: pixels)
                }
                posters.append(images.count)
                images.append(held(LightPhotographs.posterRed))
                hiddens.append(images.count)
                images.append(held(LightPhotographs.hidden))
            }
            let estimates = try illuminants(of: images).byMethod
            for method in Self.methods {
                guard let found = estimates[method] else { continue }
                func kelvin(_ rgb: SIMD3<Double>?) -> Double? { rgb.map(ColorTemperature.kelvin(ofLinearRGB:)) }
                var inside = 0, outside = 0, errors: [Double] = []
                for shift in shifts {
                    let expected = kelvin(found[originals[shift.photo]].map { $0 * shift.gains })
                    let error = zip2(expected, kelvin(found[shift.image])).map { abs($0 - $1) } ?? .infinity
                    let hit = error < 300
                    if (3000...8000).contains(shift.kelvin) {
                        inside += hit ? 1 : 0
                        errors.append(error)
                    } else {
                        outside += hit ? 1 : 0
                    }
                }
                func unmoved(from before: [Int], to after: [Int]) -> Int {
                    zip(before, after).count { (zip2(kelvin(found[$0]), kelvin(found[$1])).map { abs($0 - $1) } ?? .infinity) < 300 }
                }
                let steady = unmoved(from: originals, to: posters), colourSteady = unmoved(from: hiddens, to: posters)
                let insideCount = shifts.count { (3000...8000).contains($0.kelvin) }
                let key = "light.shifts.\(split).\(Figures.slug(method))"
                figures.record("\(key).within_300k", Double(inside))
                figures.record("\(key).poster_under_300k", Double(steady))
                figures.record("\(key).poster_colour_under_300k", Double(colourSteady))
                print("| \(split) | \(method) | \(inside) / \(insideCount) | \(outside) / \(shifts.count - insideCount) | "
                      + "\(format(Summary(errors).median, 0)) K | \(steady) / \(posters.count) | \(colourSteady) / \(posters.count) |")
            }
        }
        print("")
    }

    private func zip2(_ a: Double?, _ b: Double?) -> (Double, Double)? {
        guard let a, let b else { return nil }
        return (a, b)
    }

    // MARK: Exposure

    /// Oxford's leuven: one view at six exposures. The ambient intensity of each, and each step's
    /// ratio beside the images' own mean luminance ratio (every pixel; the meter reads one in 16).
    private func reportExposure() throws {
        let meter = FrameMeter()
        var intensities: [Double] = [], means: [Double] = []
        for number in 1...6 {
            let image = try photograph("oxford_affine/leuven/img\(number).png")
            intensities.append(LightEstimate(meter.measureLight(image)).ambientIntensity)
            means.append(image.meanLuminance())
        }
        print("## Light: Oxford leuven's exposure series\n")
        print("| image | ambient intensity | step ratio | mean luminance's step ratio |")
        print("|---|---|---|---|")
        var worst = 0.0
        for k in 0..<6 {
            let step = k == 0 ? "" : format(intensities[k] / intensities[k - 1], 3)
            let meanStep = k == 0 ? "" : format(means[k] / means[k - 1], 3)
            if k > 0 { worst = max(worst, abs(intensities[k] / intensities[k - 1] / (means[k] / means[k - 1]) - 1)) }
            print("| img\(k + 1) | \(format(intensities[k], 0)) | \(step) | \(meanStep) |")
        }
        figures.record("light.exposure.worst_step_ratio_error", worst)
        print("\nEvery step darker; the largest step ratio is \(format(100 * worst, 1)) % from the mean luminance's.\n")
    }

    // MARK: Cost

    /// The light's colour on TUM fr1/xyz's 640×480 frames: Waymark's `FrameMeter.measureLight`
    /// (in process) beside each baseline's estimate (in its Python process), one thread, median
    /// over 5 runs of each frame, then over the frames.
    private func reportCost() throws {
        let folder = datasets.appendingPathComponent("tum_fr1_xyz_excerpt/rgb")
        let names = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.hasSuffix(".png") }.sorted()
        let images = try names.prefix(20).map { try Image(contentsOf: folder.appendingPathComponent($0).path, gray: false) }
        let ms = try illuminants(of: images, repeats: 5).ms
        print("## Light: cost per 640×480 frame\n")
        print("\(images.count) TUM fr1/xyz frames, one thread, median of 5 runs each, then over the frames.\n")
        print("| method | ms a frame | × Waymark's |")
        print("|---|---|---|")
        let ours = Summary(ms["waymark"]!).median
        for method in Self.methods {
            guard let times = ms[method] else { continue }
            let median = Summary(times).median
            figures.record("light.cost.\(Figures.slug(method)).median_ms", median)
            print("| \(method) | \(format(median, 3)) | \(format(median / ours, 1)) |")
        }
        print("")
    }

    // MARK: Direction

    /// The main light's direction after the table-top walk-through under each measured distant
    /// light (one albedo, as the estimate assumes), then under one of them with the scene painted
    /// as its script paints it, and evenly lit. No OpenCV or Open3D function estimates it.
    private func reportDirection() throws {
        guard let folder = Walkthrough.debianPosterFolder else { throw BenchError("the walk-through needs opencv-doc's images") }
        print("## Light: the main light's direction from the planes' shading\n")
        print("The table-top walk-through (three boxes on a table, circled once; 320×240 RGB-D at 2 fps, exact poses) "
              + "under a distant light; the session's estimate after the last frame.\n")
        print("| light (towards) | ambient | albedo | degrees off | confidence |")
        print("|---|---|---|---|---|")
        var painted = Walkthrough.measuredSunlights[1]
        painted.evenAlbedo = false
        for (index, sun) in (Walkthrough.measuredSunlights + [painted]).enumerated() {
            let found = try Walkthrough.mainLightAfterTableTop(posterFolder: folder, sunlight: sun)
            let off = found.map { Walkthrough.degrees($0.direction, sun.direction) }
            let towards = [sun.direction.x, sun.direction.y, sun.direction.z].map { format($0, 2) }.joined(separator: ", ")
            if sun.evenAlbedo, let off { figures.record("light.direction.sun_\(index + 1).degrees_off", off) }
            print("| (\(towards)) | \(format(sun.ambient, 1)) | \(sun.evenAlbedo ? "one" : "as painted") | "
                  + "\(off.map { format($0, 1) } ?? "none") | \(found.map { format($0.confidence, 2) } ?? "none") |")
        }
        let even = try Walkthrough.mainLightAfterTableTop(posterFolder: folder, sunlight: nil)
        print("| none (even light) | | as painted | | \(even.map { format($0.confidence, 2) } ?? "none") |")
        print("")
    }
}
