import Foundation
import Waymark

/// Recorded camera poses for an RGB-D sequence's frames: from a pose file (TUM format, matched
/// by timestamp within 20 ms) or the sequence's groundtruth.txt; without either the engine's
/// odometry tracks the camera.
struct RecordedPoses {
    enum Source: String { case file, groundtruth, odometry }

    let source: Source
    private let poses: [RigidTransform?]

    init(_ sequence: RGBDSequence, posesFile: String?) throws(WaymarkError) {
        if let posesFile {
            let samples = try Trajectory(tumFile: posesFile).samples.sorted { $0.timestamp < $1.timestamp }
            poses = sequence.frames.map { frame in
                Self.nearest(frame.timestamp, in: samples).flatMap { abs($0.timestamp - frame.timestamp) <= 0.02 ? $0.pose : nil }
            }
            guard poses.contains(where: { $0 != nil }) else {
                throw WaymarkError(.badData, "\(posesFile) has no pose within 20 ms of any frame of \(sequence.folder)")
            }
            source = .file
        } else if sequence.hasPoses {
            poses = sequence.frames.map(\.cameraToWorld)
            source = .groundtruth
        } else {
            poses = []
            source = .odometry
        }
    }

    /// Frame `index`'s recorded pose; nil when the odometry is to track it.
    func pose(ofFrame index: Int) -> RigidTransform? { poses.isEmpty ? nil : poses[index] }

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
