import Foundation
import TestSupport
import WaymarkCore
import WaymarkImages
import WaymarkVision

/// Shared helpers for the reference-image tests.
enum Fixtures {
    static func reference(_ path: String, name: String? = nil, physicalWidth: Double? = nil) throws -> ReferenceImage {
        let stem = URL(fileURLWithPath: path).deletingPathExtension().lastPathComponent
        return try ReferenceImage(entry: ReferenceEntry(name: name ?? stem, path: path, physicalWidth: physicalWidth))
    }

    /// Reads a 3×3 matrix written as whitespace-separated numbers (Oxford's H1toNp).
    static func matrix(_ path: String) throws -> Homography {
        let numbers = try String(contentsOfFile: path, encoding: .utf8).split(whereSeparator: { $0.isWhitespace })
            .compactMap { Double($0) }
        precondition(numbers.count == 9, "expected 9 numbers in \(path)")
        return .fromIntegerCentred(Homography(numbers))
    }

    /// Reads the 3×3 matrix in an OpenCV FileStorage XML file (the numbers inside <data>).
    static func openCVMatrix(_ path: String) throws -> Homography {
        let text = try String(contentsOfFile: path, encoding: .utf8)
        let data = text.components(separatedBy: "<data>")[1].components(separatedBy: "</data>")[0]
        let numbers = data.split(whereSeparator: { $0.isWhitespace }).compactMap { Double($0) }
        precondition(numbers.count == 9, "expected 9 numbers in \(path)")
        return .fromIntegerCentred(Homography(numbers))
    }

    static func meanCornerError(_ a: Homography, _ b: Homography, width: Int, height: Int) -> Double {
        a.meanCornerDistance(to: b, width: width, height: height)
    }

    static func texture(width: Int, height: Int, seed: UInt64) -> Image {
        syntheticTexture(width: width, height: height, seed: seed)
    }
}
