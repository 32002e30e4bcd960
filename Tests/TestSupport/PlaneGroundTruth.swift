import TestData
import WaymarkCore
import WaymarkPlanes
import WaymarkVision

/// Middlebury 2001 ground-truth disparity turned into depth. Planes in disparity are planes in
/// 3-D for any focal length and baseline; the disparity has 1/8-pixel steps, like a Kinect's,
/// so a Kinect-like focal length × baseline (580 px × 7.5 cm) makes the default tolerance
/// model its quantization. The focal length is the image width; the centre the image centre.
public struct MiddleburyDepth {
    public static let focalTimesBaseline: Float = 43.5
    public let depth: DepthImage
    public let intrinsics: Intrinsics
    public let disparity: Raster

    /// The dataset file of scene `name`'s ground truth (for `SharedDatasets`).
    public static func groundTruth(_ name: String) -> String { "middlebury_stereo/\(name)/groundTruthDisparity.png" }

    /// Nil (with a message) when the datasets are absent.
    public init?(_ name: String) throws {
        guard let path = SharedDatasets.path(Self.groundTruth(name)) else {
            print("skipped: middlebury_stereo/\(name): \(SharedDatasets.absentMessage)")
            return nil
        }
        disparity = try Raster(contentsOf: path)
        let metres = disparity.values.map { $0 > 0 ? Self.focalTimesBaseline / ($0 / 8) : 0 }
        depth = DepthImage(width: disparity.width, height: disparity.height, metres: metres)
        let f = Double(disparity.width)
        intrinsics = Intrinsics(fx: f, fy: f, cx: Double(disparity.width) / 2, cy: Double(disparity.height) / 2)
    }
}

/// Ground-truth regions of a Middlebury disparity map: sequential RANSAC on d = a·u + b·v + c
/// with 3-pixel samples, inliers within one disparity step (1/8 px), down to 1% of pixels.
public struct DisparityPlanes {
    public var labels: [Int]

    public init(_ disparity: Raster) {
        struct Problem: RansacProblem {
            let disparity: Raster
            var sampleSize: Int { 3 }
            func coordinates(_ i: Int) -> SIMD3<Double> {
                SIMD3(Double(i % disparity.width), Double(i / disparity.width), Double(disparity.values[i]))
            }
            /// d = a·u + b·v + c through three (u, v, d) points: the normal of the triangle.
            func model(fromSample sample: [Int]) -> SIMD3<Double>? {
                let p = sample.map(coordinates)
                let e1 = p[1] - p[0]
                let e2 = p[2] - p[0]
                let n = SIMD3(e1.y * e2.z - e1.z * e2.y, e1.z * e2.x - e1.x * e2.z, e1.x * e2.y - e1.y * e2.x)
                guard abs(n.z) > 1e-9 else { return nil }
                return SIMD3(-n.x / n.z, -n.y / n.z, (n * p[0]).sum() / n.z)
            }
            func isInlier(_ i: Int, of m: SIMD3<Double>) -> Bool {
                let p = coordinates(i)
                return abs(m.x * p.x + m.y * p.y + m.z - p.z) <= 1
            }
            func refit(inliers: [Int]) -> SIMD3<Double>? { nil }
        }
        let problem = Problem(disparity: disparity)
        labels = [Int](repeating: 0, count: disparity.values.count)
        var pool = disparity.values.indices.filter { disparity.values[$0] > 0 }
        let minimum = pool.count / 100
        var label = 0
        while pool.count >= minimum {
            let options = RansacOptions(confidence: 0.9999, maximumIterations: 3000, refinementRounds: 0, seed: UInt64(label + 1))
            guard let report = ransac(problem, count: labels.count, candidates: pool, options: options),
                report.inliers.count >= minimum
            else { break }
            label += 1
            for i in report.inliers { labels[i] = label }
            let taken = Set(report.inliers)
            pool.removeAll { taken.contains($0) }
        }
    }
}

/// Scores of a plane segmentation against ground-truth regions (labels: 0 = none, k = region k).
public enum PlaneScores {
    /// SegComp's "correct detection": a true region and one detected region each have at least
    /// `overlap` of their pixels in common. Returns how many true regions are correctly detected.
    public static func correctDetections(truth: [Int], detected: [Int], overlap: Double) -> Int {
        let truthCount = truth.max() ?? 0
        let detectedCount = detected.max() ?? 0
        guard truthCount > 0, detectedCount > 0 else { return 0 }
        var common = [Int](repeating: 0, count: (truthCount + 1) * (detectedCount + 1))
        var truthSizes = [Int](repeating: 0, count: truthCount + 1)
        var detectedSizes = [Int](repeating: 0, count: detectedCount + 1)
        for i in truth.indices {
            truthSizes[truth[i]] += 1
            detectedSizes[detected[i]] += 1
            common[truth[i] * (detectedCount + 1) + detected[i]] += 1
        }
        return (1...truthCount).filter { t in
            (1...detectedCount).contains { d in
                let shared = Double(common[t * (detectedCount + 1) + d])
                return shared >= overlap * Double(truthSizes[t]) && shared >= overlap * Double(detectedSizes[d])
            }
        }.count
    }

    /// The detected label with the highest intersection over union with `mask`, and that IoU.
    public static func bestMatch(for mask: [Bool], among labels: [Int]) -> (label: Int, iou: Double) {
        let count = labels.max() ?? 0
        var both = [Int](repeating: 0, count: count + 1)
        var sizes = [Int](repeating: 0, count: count + 1)
        let maskSize = mask.filter { $0 }.count
        for i in labels.indices {
            sizes[labels[i]] += 1
            if mask[i] { both[labels[i]] += 1 }
        }
        var best = (label: 0, iou: 0.0)
        for label in stride(from: 1, through: count, by: 1) {
            let union = sizes[label] + maskSize - both[label]
            let iou = union == 0 ? 0 : Double(both[label]) / Double(union)
            if iou > best.iou { best = (label, iou) }
        }
        return best
    }
}
