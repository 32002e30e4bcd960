import Foundation
import TestData
import Testing
import TestSupport
import Waymark
import WaymarkRecords

@Suite struct SequenceCLITests {
    @Test(.enabled(if: Walkthrough.debianPosterFolder != nil)) func aWalkThroughGivesPlaneEventsPerFrameAndOneAnchorPerSurface() throws {
        let folder = try #require(Walkthrough.debianPosterFolder)
        let scratch = try Scratch()
        let walk = try Walkthrough(posterFolder: folder, width: 192, height: 144, framesPerSecond: 2)
        try WalkthroughWriter.write(walk, to: scratch.url.appendingPathComponent("walk"))
        let output = scratch.path("out.jsonl")
        let result = try CLI.run(["process", scratch.path("walk"), "--output", output, "--quiet"])
        #expect(result.status == 0, "\(result.stderr)")
        let records = try CLI.processOutput(output)
        let source = records.header.source
        #expect(source.kind == "tum_rgbd" && source.poses == "groundtruth" && source.hasColor && source.hasDepth)
        #expect(source.gravity == "accelerometer")
        #expect(source.frameCount == walk.frames.count)
        let frames = records.frames
        #expect(frames.count == walk.frames.count)
        let events = frames.flatMap { $0.planeEvents ?? [] }
        let added = Set(events.filter { $0.event == "added" }.map(\.id))
        let merged = Set(events.filter { $0.event == "merged" }.map(\.id))
        let finalPlanes = try #require(records.summary?.planes)
        // Every anchor that was added is in the summary unless it was merged away.
        #expect(Set(finalPlanes.map(\.id)) == added.subtracting(merged))
        // The room's floor and the table are among them, named as such.
        let kinds = finalPlanes.map(\.classification)
        #expect(kinds.contains("floor") && kinds.contains("table") && kinds.contains("wall"), "\(kinds)")
        // Each posed frame says its pose is the recording's, except where the map found it again.
        let posed = frames.filter { $0.pose != nil }
        #expect(posed.allSatisfy { $0.poseSource == "recorded" || $0.poseSource == "relocalization" },
                "\(Set(posed.map { $0.poseSource ?? "none" }))")
        #expect(frames.filter { $0.pose == nil }.allSatisfy { $0.poseSource == nil && $0.trackedPoints == nil })
        // Recorded poses are used as they are: there is no loop of the engine's tracking to close.
        let loops = try CLI.run(["process", scratch.path("walk"), "--loop-closure", "--quiet"])
        #expect(loops.status == 64 && loops.stderr.contains("has recorded poses (groundtruth.txt)"), "\(loops.stderr)")
        // Timestamps jump over the interruption.
        let stamps = frames.map(\.timestamp)
        #expect(zip(stamps, stamps.dropFirst()).contains { $1 - $0 > 3 })
    }

    @Test(.enabled(if: Walkthrough.debianPosterFolder != nil)) func withoutRecordedPosesTheOdometryTracksTheCameraAndTheTrajectoryIsWritten() throws {
        let folder = try #require(Walkthrough.debianPosterFolder)
        let scratch = try Scratch()
        let walk = try Walkthrough(posterFolder: folder, width: 320, height: 240, framesPerSecond: 10)
        let sequence = scratch.url.appendingPathComponent("walk")
        try WalkthroughWriter.write(walk, to: sequence, frameLimit: 30)
        try FileManager.default.removeItem(at: sequence.appendingPathComponent("groundtruth.txt"))
        let trajectoryPath = scratch.path("trajectory.txt")
        // Gravity in the first camera's coordinates (the world without recorded poses).
        let down = walk.frames[0].cameraToWorld.applyInverseRotation(SIMD3(0, -1, 0))
        // Loop closure on: a path that comes back nowhere is tracked as without it.
        let result = try CLI.run(["process", sequence.path, "--trajectory", trajectoryPath, "--quiet", "--loop-closure",
                                  "--gravity", "\(down.x),\(down.y),\(down.z)"])
        #expect(result.status == 0, "\(result.stderr)")
        let records = try ProcessOutput(result.stdout)
        #expect(records.header.source.poses == "odometry" && records.header.source.gravity == "given")
        // The first frame is placed by odometry alone (no map yet); after it, this textured room
        // is tracked by its features against the map, on at least ORB-SLAM's 30 points.
        let frames = records.frames
        #expect(frames.first?.poseSource == "odometry")
        let byMap = frames.dropFirst().filter { $0.poseSource == "local_map" }
        #expect(byMap.count >= 25, "\(frames.map { $0.poseSource ?? "none" })")
        #expect(byMap.allSatisfy { ($0.trackedPoints ?? 0) >= 30 }, "\(byMap.map(\.trackedPoints))")
        let estimate = try Trajectory(tumFile: trajectoryPath)
        #expect(estimate.samples.count == 30)
        // The truth, in the first camera's world.
        let first = walk.frames[0].cameraToWorld.inverse
        let truth = Trajectory(samples: walk.frames.prefix(30).map {
            Trajectory.Sample(timestamp: $0.timestamp + 1, pose: first * $0.cameraToWorld)
        })
        let drift = try AbsoluteTrajectoryError(estimate: estimate, reference: truth, alignment: .none)
        #expect(drift.errors.count == 30)
        // As the library's odometry test: under 2 cm RMSE over these 3 s.
        #expect(drift.rmse < 0.02, "\(drift.rmse)")
        // Planes were anchored in that world, and with gravity given the floor is named.
        let planes = try #require(records.summary?.planes)
        #expect(planes.contains { $0.classification == "floor" }, "\(planes.map(\.classification))")
    }

    @Test func aSequenceWithoutIntrinsicsIsAUsageError() throws {
        let scratch = try Scratch()
        try FileManager.default.createDirectory(at: scratch.url.appendingPathComponent("s/depth"), withIntermediateDirectories: true)
        try Raster.writeUInt16([UInt16](repeating: 1000, count: 64 * 48), width: 64, height: 48, to: scratch.path("s/depth/0001.png"))
        let result = try CLI.run(["process", scratch.path("s")])
        #expect(result.status == 64)
        #expect(result.stderr.contains("--intrinsics"))
        let withIntrinsics = try CLI.run(["process", scratch.path("s"), "--intrinsics", "50,50,32,24", "--quiet"])
        #expect(withIntrinsics.status == 0, "\(withIntrinsics.stderr)")
    }

    /// Colour images without a depth partner are left out: a warning on stderr, and even under
    /// --quiet the summary counts them and carries the reader's note.
    @Test func imagesLeftOutAreCountedInTheSummary() throws {
        let scratch = try Scratch()
        let folder = scratch.url.appendingPathComponent("tum")
        try FileManager.default.createDirectory(at: folder.appendingPathComponent("depth"), withIntermediateDirectories: true)
        try FileManager.default.createDirectory(at: folder.appendingPathComponent("rgb"), withIntermediateDirectories: true)
        let depth = [UInt16](repeating: 5000, count: 64 * 48)
        for time in ["1.0", "2.0"] {
            try Raster.writeUInt16(depth, width: 64, height: 48, to: folder.appendingPathComponent("depth/\(time).png").path)
        }
        for time in ["1.0", "1.5", "2.0", "2.5"] {
            try Image(width: 64, height: 48, channels: 3, pixels: [UInt8](repeating: 90, count: 64 * 48 * 3))
                .write(to: folder.appendingPathComponent("rgb/\(time).png").path)
        }
        try Data("1.0 depth/1.0.png\n2.0 depth/2.0.png\n".utf8).write(to: folder.appendingPathComponent("depth.txt"))
        try Data("1.0 rgb/1.0.png\n1.5 rgb/1.5.png\n2.0 rgb/2.0.png\n2.5 rgb/2.5.png\n".utf8)
            .write(to: folder.appendingPathComponent("rgb.txt"))
        let note = "2 of 4 colour images have no depth image within 20 ms and are left out"
        let loud = try CLI.run(["process", folder.path, "--intrinsics", "50,50,32,24"])
        #expect(loud.status == 0 && loud.stderr.contains("warning: \(note)"), "\(loud.stderr)")
        let quiet = try CLI.run(["process", folder.path, "--intrinsics", "50,50,32,24", "--quiet"])
        #expect(quiet.status == 0 && quiet.stderr.isEmpty, "\(quiet.stderr)")
        let summary = try #require(try ProcessOutput(quiet.stdout).summary)
        #expect(summary.frames == 2 && summary.imagesLeftOut == 2 && summary.inputNotes == [note])
    }

    @Test func aFrameThatCannotBeReadIsReportedAndTheRunGoesOn() throws {
        let scratch = try Scratch()
        let folder = scratch.url.appendingPathComponent("tum")
        try FileManager.default.createDirectory(at: folder.appendingPathComponent("depth"), withIntermediateDirectories: true)
        let depth = [UInt16](repeating: 5000, count: 64 * 48)  // a wall 1 m ahead, TUM units
        try Raster.writeUInt16(depth, width: 64, height: 48, to: folder.appendingPathComponent("depth/1.0.png").path)
        try Raster.writeUInt16(depth, width: 64, height: 48, to: folder.appendingPathComponent("depth/3.0.png").path)
        try Data("# depth\n1.0 depth/1.0.png\n2.0 depth/missing.png\n3.0 depth/3.0.png\n".utf8)
            .write(to: folder.appendingPathComponent("depth.txt"))
        let result = try CLI.run(["process", folder.path, "--intrinsics", "50,50,32,24"])
        #expect(result.status == 66, "\(result.stderr)")
        let records = try ProcessOutput(result.stdout)
        let frames = records.frames
        #expect(frames.count == 3)
        #expect(frames[1].error?.contains("missing.png") == true && frames[1].pose == nil)
        #expect(frames[2].planes?.count == 1)
        #expect(records.summary?.complete == false && records.summary?.framesWithErrors == 1)

        try Data("1.0 0 0 0 0 0 0\n".utf8).write(to: folder.appendingPathComponent("groundtruth.txt"))
        let badPoses = try CLI.run(["process", folder.path, "--intrinsics", "50,50,32,24"])
        #expect(badPoses.status == 65)
        #expect(badPoses.stderr.contains("groundtruth.txt, line 1"))
    }
}
