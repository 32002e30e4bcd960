import Foundation
import Waymark

/// Camera poses for an RGB-D sequence's frames: from a pose file (TUM format, matched by
/// timestamp within 20 ms), from the sequence's groundtruth.txt, or tracked by the engine's
/// RGB-D odometry in a world fixed to the first camera.
struct SequenceTracking {
    enum Source: String { case file, groundtruth, odometry }

    let source: Source
    private let filePoses: [RigidTransform?]
    private let odometry: RGBDOdometry?
    private var trackedPose = RigidTransform(rotation: [1, 0, 0, 0, 1, 0, 0, 0, 1], translation: [0, 0, 0])

    init(_ sequence: RGBDSequence, posesFile: String?, intrinsics: Intrinsics) throws(WaymarkError) {
        if let posesFile {
            let samples = try Trajectory(tumFile: posesFile).samples.sorted { $0.timestamp < $1.timestamp }
            filePoses = sequence.frames.map { frame in
                Self.nearest(frame.timestamp, in: samples).flatMap { abs($0.timestamp - frame.timestamp) <= 0.02 ? $0.pose : nil }
            }
            guard filePoses.contains(where: { $0 != nil }) else {
                throw WaymarkError(.badData, "\(posesFile) has no pose within 20 ms of any frame of \(sequence.folder)")
            }
            source = .file
            odometry = nil
        } else if sequence.hasPoses {
            filePoses = sequence.frames.map(\.cameraToWorld)
            source = .groundtruth
            odometry = nil
        } else {
            filePoses = []
            source = .odometry
            let withColor = sequence.frames.allSatisfy { $0.colorPath != nil }
            odometry = RGBDOdometry(intrinsics: intrinsics, method: withColor ? .rgbdICP : .icp)
        }
    }

    /// Whether `pose(ofFrame:images:)` needs the frame's images (for the odometry).
    var needsImages: Bool { odometry != nil }

    /// The pose of frame `index`. A frame the odometry refuses keeps the last pose, and the
    /// next is tracked from it.
    mutating func pose(ofFrame index: Int, images: (gray: Image, depth: DepthImage)?) -> RigidTransform? {
        guard let odometry else { return filePoses[index] }
        guard let images else { preconditionFailure("odometry needs the frame's images") }
        if let motion = odometry.track(gray: images.gray, depth: images.depth.metres) {
            trackedPose = trackedPose * motion.inverse
        }
        return trackedPose
    }

    private static func nearest(_ t: Double, in samples: [Trajectory.Sample]) -> Trajectory.Sample? {
        var (low, high) = (0, samples.count)
        while low < high {
            let mid = (low + high) / 2
            if samples[mid].timestamp < t { low = mid + 1 } else { high = mid }
        }
        return [low - 1, low].filter { samples.indices.contains($0) }
            .min { abs(samples[$0].timestamp - t) < abs(samples[$1].timestamp - t) }.map { samples[$0] }
    }
}

/// A frame's gray image (blank when the sequence has no colour) and its depth, checked to be
/// the same size.
func loadFrame(_ frame: RGBDSequence.Frame, scale: Double) throws(WaymarkError) -> (gray: Image, depth: DepthImage) {
    let depth = try DepthImage(contentsOf: frame.depthPath, scale: scale)
    let gray = try frame.colorPath.map { (path: String) throws(WaymarkError) in try Image(contentsOf: path, gray: true) }
        ?? Image(width: depth.width, height: depth.height, channels: 1)
    guard gray.width == depth.width, gray.height == depth.height else {
        throw WaymarkError(.badData, "\(frame.colorPath ?? "") is \(gray.width)×\(gray.height) but its depth is \(depth.width)×\(depth.height)")
    }
    return (gray, depth)
}
