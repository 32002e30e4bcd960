import Foundation
import TestData
import Waymark

/// A real planar target followed through real video: the "Multiple View Geometry" book lying on
/// the desk in the 37 Kinect frames of ../shared/datasets/tum_fr1_xyz_excerpt, with the per-frame
/// homographies of its cover derived from motion capture (good to about 3–5 px).
///
/// The reference is the cover cut out of one frame (`sourceFrame`) and rectified to its metric
/// shape (from the cover plane the dataset gives), as a user photographing the book would make it;
/// every other frame sees it from another place.
public struct BookCoverVideo {
    public static let folder = "tum_fr1_xyz_excerpt"

    public let framePaths: [String]
    public let sourceFrame: Int
    /// The rectified cover, gray.
    public let reference: Image
    /// Reference pixels → frame pixels, per frame (this library's corner-origin convention).
    public let truth: [Homography]

    /// nil, with a skip message, when the datasets are absent.
    public init?(sourceFrame: Int = 8, referenceWidth: Int = 180) throws {
        guard let folder = SharedDatasets.path(Self.folder) else {
            print("skipped: \(SharedDatasets.absentMessage)")
            return nil
        }
        let text = try String(contentsOfFile: folder + "/book_cover_homographies.txt", encoding: .utf8)
        let lines = text.split(separator: "\n")
        func numbers<S: StringProtocol>(_ text: S) -> [Double] {
            text.split(whereSeparator: { $0 == " " || $0 == "|" }).compactMap { Double($0) }
        }
        // Header: "# plane (...): n = nx ny nz  d = D m ; K = fx fy cx cy ..." and "# cover quad (...): 8 numbers".
        guard let planeLine = lines.first(where: { $0.hasPrefix("# plane") }),
            let quadLine = lines.first(where: { $0.hasPrefix("# cover quad") }),
            let normalText = planeLine.range(of: "n = "), let distanceText = planeLine.range(of: "d = "),
            let kText = planeLine.range(of: "K = ")
        else { throw WaymarkError(.badData, "book_cover_homographies.txt: header without plane, intrinsics or quad") }
        let normal = numbers(planeLine[normalText.upperBound..<distanceText.lowerBound])
        let distance = numbers(planeLine[distanceText.upperBound...].prefix { $0 != "m" })
        let k = Array(numbers(planeLine[kText.upperBound...].prefix { $0 != "(" }).prefix(4))
        let quad0 = numbers(quadLine.split(separator: ":").last ?? "")
        guard normal.count == 3, distance.count == 1, k.count == 4, quad0.count == 8 else {
            throw WaymarkError(.badData, "book_cover_homographies.txt: unreadable header")
        }
        var paths: [String] = []
        var fromFirst: [Homography] = []
        for line in lines where !line.hasPrefix("#") {
            // "rgb_file timestamp h11 … h33 | quad | quad"
            let fields = line.split(separator: "|")[0].split(separator: " ")
            let values = fields.dropFirst(2).compactMap { Double($0) }
            guard fields.count == 11, values.count == 9 else {
                throw WaymarkError(.badData, "book_cover_homographies.txt: bad line '\(line.prefix(40))…'")
            }
            paths.append(folder + "/" + fields[0])
            // The file's pixel centres sit at integers (OpenCV's convention).
            fromFirst.append(Homography.fromIntegerCentred(Homography(values)))
        }
        guard fromFirst.indices.contains(sourceFrame) else {
            throw WaymarkError(.badData, "book_cover_homographies.txt has \(fromFirst.count) frames, no frame \(sourceFrame)")
        }
        // The cover's metric shape: its frame-0 corners back-projected onto its plane n·X = d.
        let corners0 = (0..<4).map { Point2(quad0[2 * $0], quad0[2 * $0 + 1]) }
        let onPlane = corners0.map { p -> SIMD3<Double> in
            let ray = SIMD3((p.x - k[2]) / k[0], (p.y - k[3]) / k[1], 1)
            return ray * (distance[0] / (ray * SIMD3(normal[0], normal[1], normal[2])).sum())
        }
        func length(_ a: Int, _ b: Int) -> Double {
            let d = onPlane[a] - onPlane[b]
            return (d * d).sum().squareRoot()
        }
        let aspect = (length(3, 0) + length(2, 1)) / (length(1, 0) + length(2, 3))
        let width = referenceWidth
        let height = Int((Double(referenceWidth) * aspect).rounded())
        // Reference corners → the cover's corners in the source frame (corner-origin pixels).
        let cornersInFirst = corners0.map { Point2($0.x + 0.5, $0.y + 0.5) }
        let cornersInSource = cornersInFirst.map { fromFirst[sourceFrame].apply($0)! }
        var exact = HomographyEstimationOptions()
        exact.method = .ransac
        exact.threshold = 0.01
        guard let toSource = estimateHomography(from: imageCorners(width: width, height: height), to: cornersInSource,
                                                options: exact)?.homography,
            let sourceFromFirst = fromFirst[sourceFrame].inverse, let fromSource = toSource.inverse
        else { throw WaymarkError(.badData, "book cover: degenerate corners") }
        let source = try Image(contentsOf: paths[sourceFrame], gray: true)
        reference = source.warped(by: fromSource, width: width, height: height)
        truth = fromFirst.map { ($0 * sourceFromFirst * toSource).normalized }
        framePaths = paths
        self.sourceFrame = sourceFrame
    }

    /// Whether the whole cover is inside a `width`×`height` frame at `index`.
    public func coverIsWhole(at index: Int, width: Int = 640, height: Int = 480) -> Bool {
        truth[index].keepsImage(width: reference.width, height: reference.height, insideFrame: width, height)
    }
}
