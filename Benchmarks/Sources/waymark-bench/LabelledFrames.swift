import Foundation
import Waymark

extension DetectionSuite {
    /// The 25 references of the active-set measurements: Oxford img1 of the 8 sequences,
    /// image 1 of 14 EVD pairs, and OpenCV's box, aloeL and left.
    func activeSetPaths() throws -> [String] {
        var paths = OxfordAffine.sequences.map { datasets.appendingPathComponent("oxford_affine/\($0)/img1.png").path }
        paths += try evdNames().map { datasets.appendingPathComponent("evd_extreme_view/1/\($0)").path }
        paths += ["opencv_samples/box.png", "opencv_samples/aloeL.jpg", "opencv_samples/left.jpg"].map {
            datasets.appendingPathComponent($0).path
        }
        precondition(paths.count == ReferenceLibrary.maxActiveImages, "the active set has 25 references")
        return paths
    }

    func evdNames() throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: datasets.appendingPathComponent("evd_extreme_view/1").path)
            .filter { $0.hasSuffix(".png") && $0 != Self.duplicateOfOxford }.sorted()
    }

    /// 640×480 frames with the index (in `activeSetPaths`) and true homography of the reference
    /// each shows: Oxford img2–img4, EVD image 2, and TUM office frames that show none.
    func labelledFrames() throws -> [LabelledFrame] {
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        var frames: [LabelledFrame] = []
        for pair in try OxfordAffine.pairs(in: datasets) where pair.index <= 4 {
            let r = OxfordAffine.sequences.firstIndex(of: pair.sequence)!
            frames.append(try resizedFrame(pair.framePath, name: "\(pair.sequence)\(pair.index)", truth: (r, pair.truth)))
        }
        for (e, name) in try evdNames().enumerated() {
            let values = try String(contentsOf: datasets.appendingPathComponent("evd_extreme_view/h/\(name.dropLast(4)).txt"), encoding: .utf8)
                .split(whereSeparator: { $0.isWhitespace }).compactMap { Double($0) }
            frames.append(try resizedFrame(
                datasets.appendingPathComponent("evd_extreme_view/2/\(name)").path, name: "evd-\(name.dropLast(4))",
                truth: (OxfordAffine.sequences.count + e, .fromIntegerCentred(Homography(values)))))
        }
        let tum = datasets.appendingPathComponent("tum_fr3_office_frames/rgb")
        for name in try FileManager.default.contentsOfDirectory(atPath: tum.path).sorted() where name.hasSuffix(".png") {
            frames.append(LabelledFrame(path: tum.appendingPathComponent(name).path, truth: nil))
        }
        return frames
    }
}
