import Foundation
import TestData
import TestSupport
import Waymark

/// The demo's built-in sample: a synthetic video of OpenCV's box and graffiti images on a
/// wall, the two references with a manifest, and the true corners of every frame.
enum SampleVideo {
    /// Where the images come from: Debian's opencv-doc package, else ../shared/datasets.
    static func sourceFolder() throws -> URL {
        let debian = URL(fileURLWithPath: "/usr/share/doc/opencv-doc/examples/data")
        if FileManager.default.fileExists(atPath: debian.appendingPathComponent("box.png").path) { return debian }
        if let path = SharedDatasets.path("opencv_samples/box.png") {
            return URL(fileURLWithPath: path).deletingLastPathComponent()
        }
        throw BenchError("sample images not found: install Debian's opencv-doc package (make setup does)")
    }

    static func write(to output: URL) throws {
        let source = try sourceFolder()
        let video = try SyntheticVideo.sample(
            box: source.appendingPathComponent("box.png").path, graffiti: source.appendingPathComponent("graf1.png").path,
            wall: source.appendingPathComponent("aloeL.jpg").path)
        let references = output.appendingPathComponent("references")
        try FileManager.default.createDirectory(at: references, withIntermediateDirectories: true)
        for placement in video.placements {
            try placement.image.write(to: references.appendingPathComponent("\(placement.name).png").path)
        }
        let manifest = """
            {"images": [
              {"name": "box", "path": "box.png", "physicalWidth": 0.20, "group": "sample"},
              {"name": "graf1", "path": "graf1.png", "physicalWidth": 0.60, "group": "sample"}
            ]}

            """
        try Data(manifest.utf8).write(to: references.appendingPathComponent("references.json"), options: .atomic)
        let writer = try VideoWriter(
            path: output.appendingPathComponent("sample.mp4").path, width: video.frameWidth,
            height: video.frameHeight, framesPerSecond: video.framesPerSecond)
        var truth = ""
        for index in 0..<video.frameCount {
            try writer.write(video.render(index))
            let corners = video.placements.map { placement -> String in
                let h = video.truth(at: index)[placement.name]!
                let points = imageCorners(width: placement.image.width, height: placement.image.height).map { h.apply($0)! }
                return "\"\(placement.name)\":[" + points.map { "[\(format($0.x, 3)),\(format($0.y, 3))]" }.joined(separator: ",") + "]"
            }
            truth += "{\"index\":\(index),\"corners\":{\(corners.joined(separator: ","))}}\n"
        }
        try writer.finish()
        try Data(truth.utf8).write(to: output.appendingPathComponent("truth.jsonl"), options: .atomic)
    }
}
