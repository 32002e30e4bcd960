import Foundation
import TestData
import Waymark

/// One of Strecha et al.'s façade scenes in ../shared/datasets/strecha_mvs_gt_cameras: the
/// half-resolution images with their LIDAR-registered cameras (metres).
public struct StrechaScene: Sendable {
    public struct View: Sendable {
        public var imagePath: String
        public var cameraToWorld: RigidTransform
        public var intrinsics: Intrinsics
    }

    public let name: String
    public let views: [View]

    public static let names = ["fountain-P11", "Herz-Jesus-P8"]

    /// The dataset folder of scene `name` (for `SharedDatasets`).
    public static func folder(_ name: String) -> String { "strecha_mvs_gt_cameras/\(name)" }

    /// nil, with a skip message, when the datasets are absent.
    public init?(_ name: String) throws {
        guard let folder = SharedDatasets.path(Self.folder(name)) else {
            print("skipped: \(SharedDatasets.absentMessage)")
            return nil
        }
        self.name = name
        let images = try FileManager.default.contentsOfDirectory(atPath: folder + "/images_half").filter { $0.hasSuffix(".jpg") }
            .sorted()
        views = try images.map { file in
            let numbers = try String(contentsOfFile: "\(folder)/gt_dense_cameras/\(file).camera", encoding: .utf8)
                .split(whereSeparator: { $0 == " " || $0 == "\n" }).compactMap { Double($0) }
            guard numbers.count >= 24 else { throw WaymarkError(.badData, "\(file).camera has \(numbers.count) numbers") }
            // K is for the full 3072×2048 images; halving it in the corner-origin pixel
            // convention (OpenCV centre + 0.5) keeps it exact.
            let k = Intrinsics(fx: numbers[0] / 2, fy: numbers[4] / 2, cx: (numbers[2] + 0.5) / 2, cy: (numbers[5] + 0.5) / 2)
            // R (lines 5-7) is camera-to-world; C (line 8) the centre.
            return View(imagePath: "\(folder)/images_half/\(file)",
                        cameraToWorld: RigidTransform(rotation: Array(numbers[12..<21]), translation: Array(numbers[21..<24])),
                        intrinsics: k)
        }
    }
}
