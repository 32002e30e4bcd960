import Foundation
import Waymark

/// Reference images the suites share.
enum ReferenceSets {
    /// EVD's graf pair is Oxford graf img1 → img6 (SOURCE.md); with both in one library the same
    /// picture would be two references, so EVD's copy is left out.
    static let duplicateOfOxford = "graf.png"

    /// The 25 references of the active-set measurements: Oxford img1 of the 8 sequences,
    /// image 1 of 14 EVD pairs, and OpenCV's box, aloeL and left.
    static func activeSetPaths(in datasets: URL) throws -> [String] {
        var paths = OxfordAffine.sequences.map { datasets.appendingPathComponent("oxford_affine/\($0)/img1.png").path }
        paths += try evdNames(in: datasets).map { datasets.appendingPathComponent("evd_extreme_view/1/\($0)").path }
        paths += ["opencv_samples/box.png", "opencv_samples/aloeL.jpg", "opencv_samples/left.jpg"].map {
            datasets.appendingPathComponent($0).path
        }
        precondition(paths.count == ReferenceLibrary.maxActiveImages, "the active set has 25 references")
        return paths
    }

    static func evdNames(in datasets: URL) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: datasets.appendingPathComponent("evd_extreme_view/1").path)
            .filter { $0.hasSuffix(".png") && $0 != duplicateOfOxford }.sorted()
    }
}
