import Foundation
import Waymark

extension DetectionSuite {
    func activeSetPaths() throws -> [String] { try ReferenceSets.activeSetPaths(in: datasets) }

    func evdNames() throws -> [String] { try ReferenceSets.evdNames(in: datasets) }

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
