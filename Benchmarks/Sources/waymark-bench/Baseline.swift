import Foundation
import Waymark

/// Runs a baseline script from Benchmarks/baselines in the same invocation: the task goes in
/// as JSON on standard input, the answer comes back as JSON on standard output.
struct Baseline {
    var python: String
    var script: String

    struct Pair: Decodable {
        var homography: [Double]?
        var ms: Double
    }

    struct Frame: Decodable {
        struct Detection: Decodable {
            var reference: Int
            var homography: [Double]
        }
        var detections: [Detection]
        var ms: Double

        /// The detections as (reference, homography) in Waymark's pixel convention.
        var located: [(Int, Homography)] {
            detections.map { ($0.reference, .fromIntegerCentred(Homography($0.homography))) }
        }
    }

    /// opencv_baseline.py's answer.
    struct Answer: Decodable {
        var opencv: String
        var pairs: [String: [Pair]]?
        var many: [String: [Frame]]?
        /// The library pipelines (`orb-lsh`, `sift-l2`): one index over every reference.
        var library: [String: [Frame]]?
    }

    func run(task: [String: Any]) throws -> Answer { try run(task: task, as: Answer.self) }

    func run<Reply: Decodable>(task: [String: Any], as: Reply.Type) throws -> Reply {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: python)
        process.arguments = [script]
        let input = Pipe()
        let output = Pipe()
        process.standardInput = input
        process.standardOutput = output
        try process.run()
        input.fileHandleForWriting.write(try JSONSerialization.data(withJSONObject: task))
        try input.fileHandleForWriting.close()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw BenchError("the baseline \(script) failed (exit \(process.terminationStatus)); did `make bench-setup` run?")
        }
        return try JSONDecoder().decode(Reply.self, from: data)
    }
}
