import Foundation
import TestData
import TestSupport
import Waymark

let usage = """
    Usage: waymark-bench SUITE [--python PATH] [--part NAME]... [--no-baseline] [--json FILE]
           waymark-bench check RUN.json... [--thresholds FILE]
           waymark-bench sample-video --output DIR
           waymark-bench walkthrough --output DIR [--seed N] [--size WxH] [--fps N] [--script standard|coaching|table-top]

    Suites: detection (parts: oxford, posters, many, following, library, startup); planes (needs `make bench-setup` for
    Open3D; --python defaults to .build/bench-python/bin/python there); relocalization (parts: walkthrough,
    odd-even, timing, unknown, strecha, drift, tum; the baselines run on Debian's python3-opencv); light (parts:
    shifts, exposure, cost, direction; the baselines run on Debian's python3-opencv); session (parts: coaching,
    speed, memory, light); tracking (parts: walkthrough, table-top, tum, loop, monocular; the baseline runs on Debian's
    python3-opencv); bags (frames read from ROS 2 bags against PNG files; needs `make bag-setup`, whose
    .build/bag-python runs its baseline).
    --no-baseline skips the Python
    baselines, for quick iteration only. Results print as Markdown on standard output, for Benchmarks/RESULTS.md;
    --json FILE also writes the suite's figures by name. check holds such runs against
    Benchmarks/thresholds.json (or --thresholds FILE): exit 0 when every measured figure is within its bound, 1 on
    a regression, 65 when a file cannot be read.
    sample-video writes the demo's synthetic video, its references and its ground truth.
    walkthrough writes a synthetic RGB-D walk-through (TUM layout plus truth.json; see Datasets/README.md).
    Data comes from ../shared/datasets (or WAYMARK_DATASETS); without it the suites exit 66.
    """

func fail(_ message: String, _ code: Int32) -> Never {
    FileHandle.standardError.write(Data("waymark-bench: \(message)\n".utf8))
    exit(code)
}

let arguments = Array(CommandLine.arguments.dropFirst())
// Every figure is for one thread, as the baselines' (cv2.setNumThreads(1)).
setOpenCVThreadCount(1)
func option(_ name: String, in arguments: [String] = arguments) -> String? {
    guard let i = arguments.firstIndex(of: name), i + 1 < arguments.count else { return nil }
    return arguments[i + 1]
}

let figures = Figures()
let jsonPath = option("--json")
if let jsonPath {
    guard ["bags", "detection", "light", "planes", "relocalization", "session", "tracking"].contains(arguments.first) else {
        fail("--json goes with a suite: bags, detection, light, planes, relocalization, session or tracking", 64)
    }
    do { try FiguresOutput.checkWritable(jsonPath) } catch { fail("\(error)", 73) }
}

/// Writes the figures `--json` asked for, once a suite has run.
@MainActor func writeFigures(suite: String) {
    guard let jsonPath else { return }
    do { try FiguresOutput.write(figures, suite: suite, to: jsonPath) } catch { fail("\(error)", 73) }
}

/// The suite's parts named by `--part` (repeatable), or all of them.
func chosenParts(or all: Set<String>) -> Set<String> {
    let named = arguments.indices.filter { arguments[$0] == "--part" && $0 + 1 < arguments.count }.map { arguments[$0 + 1] }
    return named.isEmpty ? all : Set(named)
}

/// A baseline script run by `--python`, else Debian's python3 (whose OpenCV has the contrib modules).
func debianBaseline(_ script: String) -> Baseline? {
    arguments.contains("--no-baseline") ? nil : Baseline(python: option("--python") ?? "/usr/bin/python3", script: script)
}

/// Where a suite writes what its baselines read; each suite removes it when done.
let scratch = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("waymark-bench-\(getpid())")

@MainActor func checkRuns() -> Never {
    let thresholdsPath = option("--thresholds")
        ?? SharedDatasets.repositoryRoot.appendingPathComponent("Benchmarks/thresholds.json").path
    var runPaths: [String] = []
    var i = 1
    while i < arguments.count {
        if arguments[i] == "--thresholds" { i += 2 } else { runPaths.append(arguments[i]); i += 1 }
    }
    guard !runPaths.isEmpty else { fail("check needs at least one RUN.json (written by a suite's --json)", 64) }
    let decoder = JSONDecoder()
    func read<T: Decodable>(_ type: T.Type, _ path: String) -> T {
        do { return try decoder.decode(type, from: Data(contentsOf: URL(fileURLWithPath: path))) } catch {
            fail("cannot read \(path): \(error)", 65)
        }
    }
    let outcome = ThresholdCheck.check(runs: runPaths.map { read(FiguresFile.self, $0) },
                                       against: read(Thresholds.self, thresholdsPath))
    for line in outcome.lines { print(line) }
    print("\(outcome.checked) figure(s) checked, \(outcome.regressions) regression(s)")
    exit(outcome.regressions == 0 ? 0 : 1)
}

switch arguments.first {
case "detection":
    guard let root = SharedDatasets.root else { fail(SharedDatasets.absentMessage, 66) }
    let script = SharedDatasets.repositoryRoot.appendingPathComponent("Benchmarks/baselines/opencv_baseline.py").path
    let suite = DetectionSuite(
        datasets: root,
        baseline: debianBaseline(script),
        scratch: scratch,
        parts: chosenParts(or: DetectionSuite.allParts), figures: figures)
    do { try suite.run() } catch { fail("\(error)", 70) }
    writeFigures(suite: "detection")
case "planes":
    guard let root = SharedDatasets.root else { fail(SharedDatasets.absentMessage, 66) }
    let baselines = SharedDatasets.repositoryRoot.appendingPathComponent("Benchmarks/baselines")
    let python = option("--python")
        ?? SharedDatasets.repositoryRoot.appendingPathComponent(".build/bench-python/bin/python").path
    let suite = PlanesSuite(
        datasets: root,
        baseline: arguments.contains("--no-baseline")
            ? nil : Baseline(python: python, script: baselines.appendingPathComponent("plane_baseline.py").path),
        scratch: scratch,
        figures: figures)
    do { try suite.run() } catch { fail("\(error)", 70) }
    writeFigures(suite: "planes")
case "relocalization":
    guard SharedDatasets.root != nil else { fail(SharedDatasets.absentMessage, 66) }
    let script = SharedDatasets.repositoryRoot.appendingPathComponent("Benchmarks/baselines/relocalization_baseline.py").path
    let suite = RelocalizationSuite(
        baseline: debianBaseline(script),
        scratch: scratch,
        parts: chosenParts(or: RelocalizationSuite.allParts), figures: figures)
    do { try suite.run() } catch { fail("\(error)", 70) }
    writeFigures(suite: "relocalization")
case "session":
    guard let root = SharedDatasets.root else { fail(SharedDatasets.absentMessage, 66) }
    let suite = SessionSuite(datasets: root, parts: chosenParts(or: SessionSuite.allParts), figures: figures)
    do { try suite.run() } catch { fail("\(error)", 70) }
    writeFigures(suite: "session")
case "light":
    guard let root = SharedDatasets.root else { fail(SharedDatasets.absentMessage, 66) }
    let script = SharedDatasets.repositoryRoot.appendingPathComponent("Benchmarks/baselines/light_baseline.py").path
    let suite = LightSuite(
        datasets: root, baseline: debianBaseline(script), scratch: scratch,
        parts: chosenParts(or: LightSuite.allParts), figures: figures)
    do { try suite.run() } catch { fail("\(error)", 70) }
    writeFigures(suite: "light")
case "bags":
    let script = SharedDatasets.repositoryRoot.appendingPathComponent("Benchmarks/baselines/bag_baseline.py").path
    let suite = BagsSuite(
        baseline: arguments.contains("--no-baseline") ? nil : Baseline(python: BagFixtures.python, script: script),
        scratch: scratch, figures: figures)
    do { try suite.run() } catch { fail("\(error)", 70) }
    writeFigures(suite: "bags")
case "tracking":
    guard SharedDatasets.root != nil else { fail(SharedDatasets.absentMessage, 66) }
    let script = SharedDatasets.repositoryRoot.appendingPathComponent("Benchmarks/baselines/tracking_baseline.py").path
    let suite = TrackingSuite(
        baseline: debianBaseline(script),
        scratch: scratch,
        parts: chosenParts(or: TrackingSuite.allParts), figures: figures)
    do { try suite.run() } catch { fail("\(error)", 70) }
    writeFigures(suite: "tracking")
case "sample-video":
    guard let output = option("--output") else { fail("sample-video needs --output DIR", 64) }
    do { try SampleVideo.write(to: URL(fileURLWithPath: output)) } catch { fail("\(error)", 73) }
case "walkthrough":
    guard let output = option("--output") else { fail("walkthrough needs --output DIR", 64) }
    let size = (option("--size") ?? "640x480").split(separator: "x").compactMap { Int($0) }
    guard size.count == 2, size[0] >= 64, size[1] >= 48 else { fail("--size must be WxH, at least 64x48", 64) }
    guard let seed = UInt64(option("--seed") ?? "1"), let fps = Double(option("--fps") ?? "30"), fps > 0 else {
        fail("--seed must be a whole number and --fps a positive number", 64)
    }
    guard let script = Walkthrough.Script(rawValue: option("--script") ?? "standard") else {
        fail("--script must be standard, coaching or table-top", 64)
    }
    do {
        let walkthrough = try Walkthrough(
            posterFolder: try SampleVideo.sourceFolder(), width: size[0], height: size[1], framesPerSecond: fps, seed: seed,
            script: script)
        try WalkthroughWriter.write(walkthrough, to: URL(fileURLWithPath: output))
    } catch { fail("\(error)", 73) }
case "check":
    checkRuns()
case "--help", "-h":
    print(usage)
default:
    fail("unknown or missing suite\n" + usage, 64)
}
