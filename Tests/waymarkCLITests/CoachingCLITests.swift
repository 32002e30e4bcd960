import Foundation
import TestData
import Testing
import TestSupport
import Waymark
import WaymarkRecords

/// `waymark process` on the first 8 s of the coaching walk-through (320×240 at 5 fps, 2.5 s of
/// darkness from 5 s): coaching in every frame record, in the language asked for, drawn into
/// the annotated video, and a report that renders in a real browser.
@Suite struct CoachingCLITests {
    /// Debian's chromium (`make test` installs it), to open the report in.
    static let chromium = ["/usr/bin/chromium", "/usr/bin/chromium-browser"].first(where: FileManager.default.isExecutableFile)

    @Test(.enabled(if: Walkthrough.debianPosterFolder != nil && chromium != nil))
    func coachingIsRecordedDrawnAndReported() throws {
        let folder = try #require(Walkthrough.debianPosterFolder)
        let chromium = try #require(Self.chromium)
        let scratch = try Scratch()
        let walk = try Walkthrough(posterFolder: folder, width: 320, height: 240, framesPerSecond: 5, script: .coaching)
        let sequence = scratch.url.appendingPathComponent("walk")
        let count = walk.frames.filter { $0.timestamp < 8 }.count
        try WalkthroughWriter.write(walk, to: sequence, frameLimit: count)
        let run = try CLI.run(["process", sequence.path, "--language", "zh-Hant", "--output", scratch.path("r.jsonl"),
                               "--annotate", scratch.path("a.mp4"), "--report", scratch.path("report.html"), "--quiet"])
        #expect(run.status == 0, "\(run.stderr)")
        let output = try CLI.processOutput(scratch.path("r.jsonl"))
        #expect(output.header.schema == "waymark.process/7")
        #expect(output.header.coaching.language == "zh-Hant")
        let frames = output.frames
        #expect(frames.count == count)
        #expect(frames.allSatisfy { $0.goalReached != nil })
        let shown = frames.compactMap(\.coaching)
        #expect(!shown.isEmpty && shown.allSatisfy { $0.language == "zh-Hant" })
        // With depth, the main light's direction once enough planes were seen: a unit vector.
        let lit = frames.compactMap(\.light).filter { $0.mainLightDirection != nil }
        #expect(lit.count >= frames.count / 3, "\(lit.count) of \(frames.count) frames have a main light")
        #expect(lit.allSatisfy { light in
            let d = light.mainLightDirection!
            return d.count == 3 && abs(d.map { $0 * $0 }.reduce(0, +) - 1) < 1e-3 && (0...1).contains(light.mainLightConfidence ?? -1)
        })
        let darkStart = walk.frames.first { $0.segment == .dark }!.timestamp + 1  // TUM timestamps start at 1 s
        let lowLight = try #require(frames.first { $0.coaching?.code == "low_light" })
        let shownAt = lowLight.timestamp
        #expect(shownAt >= darkStart && shownAt <= darkStart + 1, "low light at \(shownAt) s, dark from \(darkStart) s")
        #expect(lowLight.coaching?.text == CoachingCatalogue.text(.lowLight, object: nil, language: .traditionalChinese))

        // The message is drawn in a band across the bottom: white text there, none in the dark middle.
        let video = try VideoReader(path: scratch.path("a.mp4"))
        let image = Image(width: 1, height: 1, channels: 3)
        var index = 0
        let target = try #require(frames.firstIndex { $0.timestamp == shownAt })
        while try video.read(into: image) != nil, index < target { index += 1 }
        #expect(index == target)
        let pixels = image.pixels
        func whites(rows: Range<Int>) -> Int {
            rows.reduce(0) { sum, y in
                sum + (0..<image.width).filter { x in (0..<3).allSatisfy { pixels[3 * (y * image.width + x) + $0] > 200 } }.count
            }
        }
        #expect(whites(rows: (image.height - 30)..<image.height) > 80, "no message text in the bottom band")
        #expect(whites(rows: 90..<150) < 20, "white pixels in the dark middle of the frame")

        // The report, opened in Debian's chromium: every thumbnail decodes and the timeline draws.
        let html = try String(contentsOfFile: scratch.path("report.html"), encoding: .utf8)
        #expect(html.contains(CoachingCatalogue.text(.lowLight, object: nil, language: .traditionalChinese)))
        let figures = html.components(separatedBy: "<figure>").count - 1
        #expect(figures >= 3)
        let browser = Process()
        browser.executableURL = URL(fileURLWithPath: chromium)
        browser.arguments = ["--headless", "--no-sandbox", "--disable-gpu", "--virtual-time-budget=3000", "--dump-dom",
                             URL(fileURLWithPath: scratch.path("report.html")).absoluteString]
        let out = Pipe()
        browser.standardOutput = out
        browser.standardError = FileHandle.nullDevice
        try browser.run()
        let dom = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        browser.waitUntilExit()
        func attribute(_ name: String) -> Int? {
            guard let range = dom.range(of: "\(name)=\"") else { return nil }
            return Int(dom[range.upperBound...].prefix { $0 != "\"" })
        }
        #expect(attribute("data-thumbnails-decoded") == figures, "\(dom.prefix(300))")
        #expect((attribute("data-timeline-width") ?? 0) > 500)
        #expect((attribute("data-bands-drawn") ?? 0) >= 2)
    }

    @Test func anUnknownLanguageIsAUsageError() throws {
        let run = try CLI.run(["process", "nowhere.mp4", "--references", "r.json", "--language", "fr"])
        #expect(run.status == 64)
        #expect(run.stderr.contains("--language must be one of en, zh-Hans, zh-Hant"))
    }
}

@Suite struct LightCLITests {
    static func code(_ linear: Double) -> UInt8 { UInt8((SRGB.coded(linear) * 255).rounded()) }

    /// A folder of flat frames, 10 a second: neutral gray, then from 0.6 s lit as by a 3000 K lamp.
    @Test func theLightsTemperatureIsRecordedAndFollowsAChange() throws {
        let scratch = try Scratch()
        let warmLight = ColorTemperature.linearRGB(kelvin: 3000)
        for index in 0..<12 {
            let light: SIMD3<Double> = index < 6 ? SIMD3(1, 1, 1) : warmLight / warmLight.max()
            let bgr: [UInt8] = [Self.code(0.2158 * light.z), Self.code(0.2158 * light.y), Self.code(0.2158 * light.x)]
            let pixels = [[UInt8]](repeating: bgr, count: 64 * 48).flatMap { $0 }
            try Image(width: 64, height: 48, channels: 3, pixels: pixels).write(to: scratch.path(String(format: "%02d.png", index)))
        }
        let result = try CLI.run(["process", scratch.url.path, "--fov", "60", "--fps", "10", "--quiet"])
        #expect(result.status == 0, "\(result.stderr)")
        let lights = try ProcessOutput(result.stdout).frames.map { try #require($0.light) }
        let kelvins = lights.map { $0.colorTemperature ?? 0 }
        #expect(abs(kelvins[5] - 6504) < 50, "\(kelvins)")
        #expect(kelvins[6] > 3500 && kelvins[6] < 6000, "the first warm frame moves part of the way: \(kelvins)")
        #expect(abs(kelvins[11] - 3000) < 100, "0.5 s after the change: \(kelvins)")
        // Code 128 is 0.2158 in linear light, 1.2 times middle gray.
        #expect(abs(lights[0].ambientIntensity - 1199) < 3)
        // No depth, no planes: no direction.
        #expect(lights.allSatisfy { $0.mainLightDirection == nil && $0.mainLightConfidence == nil })
    }
}
