import Foundation
import Testing
import TestData
import WaymarkCore
import WaymarkVision

/// Checked against evo (MichaelGrupp/evo), whose stored results are in evo_trajectories/res_files.
@Suite struct TrajectoryErrorTests {
    /// res_files/orb_ape: `evo_ape kitti KITTI_00_gt.txt KITTI_00_ORB.txt -a` (SE(3) Umeyama):
    /// rmse 1.3034497145650266, mean 1.1569971285389768, median 1.065624769555848,
    /// std 0.6002822693968323, min 0.06931322021483087, max 3.587949120678954.
    @Test(.enabled(if: SharedDatasets.has("evo_trajectories/KITTI_00_ORB.txt", "evo_trajectories/KITTI_00_gt.txt")))
    func kittiAbsoluteErrorMatchesEvo() throws {
        let estimatePath = try #require(SharedDatasets.path("evo_trajectories/KITTI_00_ORB.txt"))
        let referencePath = try #require(SharedDatasets.path("evo_trajectories/KITTI_00_gt.txt"))
        let estimate = try Trajectory(kittiFile: estimatePath)
        let reference = try Trajectory(kittiFile: referencePath)
        #expect(estimate.samples.count == 4541)
        let ape = try AbsoluteTrajectoryError(estimate: estimate, reference: reference, alignment: .rigid, byIndex: true)
        // evo prints 16 digits; poses in the files have 9, so agreement to 1e-6 m is exact.
        #expect(abs(ape.rmse - 1.3034497145650266) < 1e-6)
        #expect(abs(ape.mean - 1.1569971285389768) < 1e-6)
        #expect(abs(ape.median - 1.065624769555848) < 1e-6)
        #expect(abs(ape.standardDeviation - 0.6002822693968323) < 1e-6)
        #expect(abs(ape.minimum - 0.06931322021483087) < 1e-6)
        #expect(abs(ape.maximum - 3.587949120678954) < 1e-6)
    }

    @Test(.enabled(if: SharedDatasets.has("evo_trajectories/freiburg1_xyz-groundtruth.txt")))
    func tumTrajectoriesPairByTimeAndAKnownMotionIsUndone() throws {
        let path = try #require(SharedDatasets.path("evo_trajectories/freiburg1_xyz-groundtruth.txt"))
        let truth = try Trajectory(tumFile: path)
        #expect(truth.samples.count > 1000)
        // The same trajectory moved by a known rigid motion and shifted 3 ms in time: aligned
        // and paired, the error vanishes; unaligned, it is the motion's displacement.
        let c = cos(0.3), s = sin(0.3)
        let motion = RigidTransform(rotation: [c, -s, 0, s, c, 0, 0, 0, 1], translation: [0.5, -1, 2])
        let moved = Trajectory(samples: truth.samples.map { sample in
            let p = motion.apply(sample.pose.translationVector)
            return Trajectory.Sample(timestamp: sample.timestamp + 0.003,
                                     pose: RigidTransform(rotation: sample.pose.rotation, translation: [p.x, p.y, p.z]))
        })
        let aligned = try AbsoluteTrajectoryError(estimate: moved, reference: truth, alignment: .rigid)
        #expect(aligned.errors.count == truth.samples.count)
        #expect(aligned.rmse < 1e-9)
        let unaligned = try AbsoluteTrajectoryError(estimate: moved, reference: truth, alignment: .none)
        #expect(unaligned.rmse > 1)
        // Half the scale: a similarity alignment recovers it.
        let halved = Trajectory(samples: truth.samples.map { sample in
            Trajectory.Sample(timestamp: sample.timestamp,
                              pose: RigidTransform(rotation: sample.pose.rotation, translation: sample.pose.translation.map { $0 / 2 }))
        })
        let similarity = try AbsoluteTrajectoryError(estimate: halved, reference: truth, alignment: .similarity)
        #expect(abs(similarity.alignment.scale - 2) < 1e-9 && similarity.rmse < 1e-9)
    }

    @Test func malformedTrajectoryFilesNameTheirLine() throws {
        let scratch = try Scratch()
        try Data("# tum\n1.0 0 0 0 0 0 0 1\n2.0 0 0 0 0 0 0\n".utf8).write(to: URL(fileURLWithPath: scratch.path("t.txt")))
        #expect {
            _ = try Trajectory(tumFile: scratch.path("t.txt"))
        } throws: { ($0 as? WaymarkError)?.message.contains("t.txt, line 2") == true }
        #expect(throws: WaymarkError.self) { _ = try Trajectory(kittiFile: scratch.path("absent.txt")) }
    }
}
