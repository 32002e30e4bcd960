import Foundation
import TestSupport
import Waymark

extension DetectionSuite {
    static let librarySize = 1000
    /// Frames the Python baseline searches among all 1,000 references (it takes ~20 s a frame).
    static let libraryBaselineFrames = 4

    /// `--auto-select` on a 1,000-image library: the 25 references of the active-set part,
    /// tiles of real photographs (façades, rooms, stereo scenes), and synthetic textures.
    func library() throws {
        let folder = scratch.appendingPathComponent("library")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        var paths = try activeSetPaths()
        paths += try photographTiles(into: folder)
        var seed: UInt64 = 0
        while paths.count < Self.librarySize {
            let path = folder.appendingPathComponent("texture\(seed).png").path
            try syntheticTexture(width: 320, height: 240, seed: 50_000 + seed).write(to: path)
            paths.append(path)
            seed += 1
        }
        let (references, prepareMs) = try milliseconds {
            try paths.enumerated().map { i, path in try ReferenceImage(entry: ReferenceEntry(name: "r\(i)", path: path)) }
        }
        let frames = try labelledFrames()
        let images = try frames.map { try Image(contentsOf: $0.path, gray: true) }

        var options = ImageDetectorOptions()
        options.selection = .retrieval(limit: ReferenceLibrary.maxActiveImages)
        let (selecting, indexMs) = milliseconds { ImageDetector(references: references, options: options) }
        let handPicked = ImageDetector(references: Array(references.prefix(ReferenceLibrary.maxActiveImages)))
        let rows = [("Waymark --auto-select, 1,000 references", selecting), ("Waymark, the 25 right ones picked by hand", handPicked)]
            .map { name, detector in
                let (time, outcome) = measure(detector, images, frames)
                return (name, time, outcome)
            }
        let sample = Array(frames.prefix(2)) + [frames[frames.count - 18], frames[frames.count - 1]]
        let answer = try baseline?.run(task: ["references": paths, "frames": sample.map(\.path), "kinds": ["orb"]])

        let shown = frames.filter { $0.truth != nil }.count
        print("### A 1,000-image library with --auto-select, \(frames.count) frames of 640×480, one thread\n")
        print("The library: the 25 references above, \(paths.count - 25 - Int(seed)) tiles of real photographs "
            + "(Strecha façades, Middlebury, TUM, PCL and Open3D scenes), and \(seed) synthetic textures. Frames as above. "
            + "Preparing the references took \(format(prepareMs / Double(paths.count), 1)) ms each, the retrieval and search index "
            + "\(format(indexMs / 1000, 1)) s.\n")
        print("| pipeline | median ms/frame | p90 ms | found (of \(shown)) | false detections |")
        print("|---|---|---|---|---|")
        for (name, time, outcome) in rows {
            print("| \(name) | \(format(time.median, 1)) | \(format(time.p90, 1)) | \(outcome.found) | \(outcome.falseDetections) |")
        }
        if let results = answer?.many?["orb"] {
            var outcome = Outcome()
            for (f, result) in results.enumerated() {
                outcome.add(result.located, sample[f], references)
            }
            let time = Summary(results.map(\.ms))
            print("| OpenCV ORB (Python), every reference, \(sample.count) of the frames | \(format(time.median, 0)) | \(format(time.p90, 0)) | "
                + "\(outcome.found) (of \(sample.filter { $0.truth != nil }.count)) | \(outcome.falseDetections) |")
            print("\nRatio of median times, OpenCV ORB over all references to Waymark --auto-select: \(format(time.median / rows[0].1.median, 0))×.")
        }
        print("")
    }

    /// Non-overlapping tiles of the real photographs in the datasets, written as PNG files.
    private func photographTiles(into folder: URL) throws -> [String] {
        var sources: [(String, Int)] = []  // path, tiles per side
        for scene in ["fountain-P11", "Herz-Jesus-P8"] {
            let dir = datasets.appendingPathComponent("strecha_mvs_gt_cameras/\(scene)/images_half")
            for name in try FileManager.default.contentsOfDirectory(atPath: dir.path).sorted() where name.hasSuffix(".jpg") || name.hasSuffix(".png") {
                sources.append((dir.appendingPathComponent(name).path, 4))
            }
        }
        // The folder's Motorcycle pair is left out: it is a Python imaging package's sample image, which independent checks use.
        for name in ["barn1/refImage.png", "conesQuarterSize/refImage.png", "tsukubaSet/refImage.png", "venus/refImage.png"] {
            sources.append((datasets.appendingPathComponent("middlebury_stereo/\(name)").path, 2))
        }
        let pcl = datasets.appendingPathComponent("pcl_pointclouds")
        for name in try FileManager.default.contentsOfDirectory(atPath: pcl.path).sorted() where name.hasSuffix("_rgb.png") {
            sources.append((pcl.appendingPathComponent(name).path, 2))
        }
        let mosd = pcl.appendingPathComponent("mOSD")
        for name in try FileManager.default.contentsOfDirectory(atPath: mosd.path).sorted() where name.hasSuffix("_rgb.png") {
            sources.append((mosd.appendingPathComponent(name).path, 2))
        }
        let color = datasets.appendingPathComponent("open3d_testdata_rgbd/RGBD/color")
        for name in try FileManager.default.contentsOfDirectory(atPath: color.path).sorted() where name.hasSuffix(".jpg") || name.hasSuffix(".png") {
            sources.append((color.appendingPathComponent(name).path, 2))
        }
        var paths: [String] = []
        for (s, (path, side)) in sources.enumerated() {
            let image = try Image(contentsOf: path, gray: true)
            let w = image.width / side
            let h = image.height / side
            for ty in 0..<side {
                for tx in 0..<side {
                    let tile = image.warped(by: .translation(-Double(tx * w), -Double(ty * h)), width: w, height: h)
                    let out = folder.appendingPathComponent("tile\(s)-\(tx)-\(ty).png").path
                    try tile.write(to: out)
                    paths.append(out)
                }
            }
        }
        return paths
    }
}
