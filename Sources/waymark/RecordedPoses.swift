import Foundation
import Waymark

/// Recorded camera poses for an RGB-D sequence's frames: from a pose file (TUM format, each
/// frame paired with the pose nearest in time within 20 ms, as TUM's associate.py pairs them)
/// or the sequence's groundtruth.txt; without either the engine's odometry tracks the camera.
struct RecordedPoses {
    enum Source: String { case file, groundtruth, odometry }

    let source: Source
    private let poses: [RigidTransform?]

    init(_ sequence: RGBDSequence, posesFile: String?) throws(WaymarkError) {
        if let posesFile {
            let file = Trajectory(samples: try Trajectory(tumFile: posesFile).samples.sorted { $0.timestamp < $1.timestamp })
            let frames = Trajectory(samples: sequence.frames.map { .init(timestamp: $0.timestamp, pose: .identity) })
            var matched = [RigidTransform?](repeating: nil, count: sequence.frames.count)
            for (frame, sample) in frames.associated(with: file, maximumDifference: 0.02) { matched[frame] = file.samples[sample].pose }
            poses = matched
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
}
