import Foundation

/// Runs Benchmarks/baselines/opencv_baseline.py in the same invocation and decodes its answer.
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
    }

    struct Answer: Decodable {
        var opencv: String
        var pairs: [String: [Pair]]?
        var many: [String: [Frame]]?
    }

    func run(task: [String: Any]) throws -> Answer {
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
            throw BenchError("the OpenCV Python baseline failed (exit \(process.terminationStatus)); is python3-opencv installed?")
        }
        return try JSONDecoder().decode(Answer.self, from: data)
    }
}
