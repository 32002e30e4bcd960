import Foundation
import Waymark

/// The Oxford affine-covariant sequences: img1 is the reference, img2...img6 the frames,
/// H1toNp the ground truth (pixel centres at integers).
struct OxfordPair {
    var sequence: String
    var index: Int
    var referencePath: String
    var framePath: String
    var truthPath: String
    var truth: Homography
}

enum OxfordAffine {
    static let sequences = ["bark", "bikes", "boat", "graf", "leuven", "trees", "ubc", "wall"]

    static func pairs(in root: URL) throws -> [OxfordPair] {
        var pairs: [OxfordPair] = []
        for sequence in sequences {
            let folder = root.appendingPathComponent("oxford_affine/\(sequence)")
            for n in 2...6 {
                let truthPath = folder.appendingPathComponent("H1to\(n)p").path
                let text = try String(contentsOfFile: truthPath, encoding: .utf8)
                let numbers = text.split(whereSeparator: { $0.isWhitespace }).compactMap { Double($0) }
                guard numbers.count == 9 else { throw BenchError("malformed ground truth \(sequence)/H1to\(n)p") }
                pairs.append(
                    OxfordPair(
                        sequence: sequence, index: n, referencePath: folder.appendingPathComponent("img1.png").path,
                        framePath: folder.appendingPathComponent("img\(n).png").path, truthPath: truthPath,
                        truth: .fromIntegerCentred(Homography(numbers))))
            }
        }
        return pairs
    }

    /// Mean distance between the reference corners mapped by the estimate and by the truth.
    static func cornerError(_ estimate: Homography, _ truth: Homography, width: Int, height: Int) -> Double {
        estimate.meanCornerDistance(to: truth, width: width, height: height)
    }
}

struct BenchError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
