import Foundation
import TestSupport
import Waymark

let usage = """
    Usage: waymark-bench SUITE [--python PATH] [--part NAME]... [--no-baseline]
           waymark-bench sample-video --output DIR
           waymark-bench walkthrough --output DIR [--seed N] [--size WxH] [--fps N]

    Suites: detection (parts: oxford, posters, many, following, library, startup); planes (needs `make bench-setup` for
    Open3D; --python defaults to .build/bench-python/bin/python there); relocalization (parts: walkthrough,
    timing, unknown, strecha; the baseline runs on Debian's python3-opencv); session (parts: coaching, speed,
    memory). --no-baseline skips the Python
    baselines, for quick iteration only. Results print as Markdown on standard output, for Benchmarks/RESULTS.md.
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

switch arguments.first {
case "detection":
    guard let root = SharedDatasets.root else { fail(SharedDatasets.absentMessage, 66) }
    let script = SharedDatasets.repositoryRoot.appendingPathComponent("Benchmarks/baselines/opencv_baseline.py").path
    let parts = arguments.indices.filter { arguments[$0] == "--part" && $0 + 1 < arguments.count }.map { arguments[$0 + 1] }
    let suite = DetectionSuite(
        datasets: root,
        baseline: arguments.contains("--no-baseline")
            ? nil : Baseline(python: option("--python") ?? "/usr/bin/python3", script: script),
        scratch: URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("waymark-bench-\(getpid())"),
        parts: parts.isEmpty ? DetectionSuite.allParts : Set(parts))
    do { try suite.run() } catch { fail("\(error)", 70) }
case "planes":
    guard let root = SharedDatasets.root else { fail(SharedDatasets.absentMessage, 66) }
    let baselines = SharedDatasets.repositoryRoot.appendingPathComponent("Benchmarks/baselines")
    let python = option("--python")
        ?? SharedDatasets.repositoryRoot.appendingPathComponent(".build/bench-python/bin/python").path
    let suite = PlanesSuite(
        datasets: root,
        baseline: arguments.contains("--no-baseline")
            ? nil : Baseline(python: python, script: baselines.appendingPathComponent("plane_baseline.py").path),
        scratch: URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("waymark-bench-\(getpid())"))
    do { try suite.run() } catch { fail("\(error)", 70) }
case "relocalization":
    let parts = arguments.indices.filter { arguments[$0] == "--part" && $0 + 1 < arguments.count }.map { arguments[$0 + 1] }
    guard SharedDatasets.root != nil else { fail(SharedDatasets.absentMessage, 66) }
    let script = SharedDatasets.repositoryRoot.appendingPathComponent("Benchmarks/baselines/relocalization_baseline.py").path
    let suite = RelocalizationSuite(
        baseline: arguments.contains("--no-baseline") ? nil : Baseline(python: option("--python") ?? "/usr/bin/python3", script: script),
        scratch: URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("waymark-bench-\(getpid())"),
        parts: parts.isEmpty ? RelocalizationSuite.allParts : Set(parts))
    do { try suite.run() } catch { fail("\(error)", 70) }
case "session":
    guard let root = SharedDatasets.root else { fail(SharedDatasets.absentMessage, 66) }
    let parts = arguments.indices.filter { arguments[$0] == "--part" && $0 + 1 < arguments.count }.map { arguments[$0 + 1] }
    let suite = SessionSuite(datasets: root, parts: parts.isEmpty ? SessionSuite.allParts : Set(parts))
    do { try suite.run() } catch { fail("\(error)", 70) }
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
    do {
        let walkthrough = try Walkthrough(
            posterFolder: try SampleVideo.sourceFolder(), width: size[0], height: size[1], framesPerSecond: fps, seed: seed)
        try WalkthroughWriter.write(walkthrough, to: URL(fileURLWithPath: output))
    } catch { fail("\(error)", 73) }
case "--help", "-h":
    print(usage)
default:
    fail("unknown or missing suite\n" + usage, 64)
}
