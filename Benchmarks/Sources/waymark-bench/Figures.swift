import Foundation

/// The figures a suite measured, by dotted name (`detection.posters.validation.within_3px`),
/// written as JSON with `--json FILE` so that `waymark-bench check` can hold a run against
/// `Benchmarks/thresholds.json`.
final class Figures {
    private(set) var values: [String: Double] = [:]

    func record(_ name: String, _ value: Double) { values[name] = value }

    /// A name's part from free text: "TUM fr1/xyz book cover" → "tum_fr1_xyz_book_cover".
    static func slug(_ text: String) -> String {
        text.lowercased().split { !($0.isLetter || $0.isNumber) }.joined(separator: "_")
    }
}

/// What `--json FILE` writes (schema `waymark.bench/1`).
struct FiguresFile: Codable {
    var schema = "waymark.bench/1"
    var suite: String
    var figures: [String: Double]
}

/// `Benchmarks/thresholds.json`: the least each accuracy figure may be, the most each ratio,
/// time share or count of failures may be.
struct Thresholds: Codable {
    var schema: String
    var floors: [String: Double]
    var ceilings: [String: Double]
}

enum FiguresOutput {
    /// Fails before a suite starts when `path` cannot be written (its folder is missing or
    /// read-only), so that a long run is not lost at the end.
    static func checkWritable(_ path: String) throws {
        let folder = URL(fileURLWithPath: path).deletingLastPathComponent().path
        var isFolder: ObjCBool = false
        guard FileManager.default.fileExists(atPath: folder, isDirectory: &isFolder), isFolder.boolValue,
            FileManager.default.isWritableFile(atPath: folder)
        else { throw BenchError("cannot write \(path): \(folder) is not a writable folder") }
    }

    /// Replaces `path` atomically with the run's figures.
    static func write(_ figures: Figures, suite: String, to path: String) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        try encoder.encode(FiguresFile(suite: suite, figures: figures.values))
            .write(to: URL(fileURLWithPath: path), options: .atomic)
    }
}

/// `waymark-bench check RUN.json... [--thresholds FILE]`: each threshold whose figure one of the
/// runs measured, held against it. A figure no run measured is listed, not failed (a run of
/// some parts measures some figures).
struct ThresholdCheck {
    struct Outcome {
        var lines: [String]
        var regressions: Int
        var checked: Int
    }

    static func check(runs: [FiguresFile], against thresholds: Thresholds) -> Outcome {
        var measured: [String: Double] = [:]
        for run in runs { measured.merge(run.figures) { _, new in new } }
        var lines: [String] = []
        var regressions = 0
        var checked = 0
        var unmeasured: [String] = []
        let bounds = thresholds.floors.map { ($0.key, $0.value, true) } + thresholds.ceilings.map { ($0.key, $0.value, false) }
        for (name, bound, isFloor) in bounds.sorted(by: { $0.0 < $1.0 }) {
            guard let value = measured[name] else {
                unmeasured.append(name)
                continue
            }
            checked += 1
            let holds = isFloor ? value >= bound : value <= bound
            if !holds { regressions += 1 }
            lines.append("\(holds ? "ok  " : "FAIL") \(name) = \(format(value, 3)) (\(isFloor ? "at least" : "at most") \(format(bound, 3)))")
        }
        if !unmeasured.isEmpty { lines.append("not measured in these runs: \(unmeasured.joined(separator: ", "))") }
        return Outcome(lines: lines, regressions: regressions, checked: checked)
    }
}
