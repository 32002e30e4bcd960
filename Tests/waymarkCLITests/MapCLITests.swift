import Foundation
import TestData
import Testing
import TestSupport
import Waymark
import WaymarkRecords

@Suite struct MapCLITests {
    /// `map build` over 3 s of the walk-through, then `relocalize` a frame of it that is not a
    /// keyframe (within 2 cm of the truth), a photograph of somewhere else (refused, exit 0),
    /// and a damaged map (exit 65, saying so).
    @Test(.enabled(if: Walkthrough.debianPosterFolder != nil)) func aBuiltMapRelocalizesItsOwnPlaceAndRefusesOthers() throws {
        let folder = try #require(Walkthrough.debianPosterFolder)
        let scratch = try Scratch()
        let walk = try Walkthrough(posterFolder: folder, width: 320, height: 240, framesPerSecond: 10)
        let sequence = scratch.url.appendingPathComponent("walk")
        try WalkthroughWriter.write(walk, to: sequence, frameLimit: 30)
        let map = scratch.path("room.waymap")
        let built = try CLI.run(["map", "build", sequence.path, "--output", map, "--quiet"])
        #expect(built.status == 0, "\(built.stderr)")
        let summary = try #require(try built.records(MapBuildRecord.self).first)
        #expect(summary.schema == "waymark.map-build/1")
        #expect(summary.poses == "groundtruth" && summary.framesUsed == 30 && summary.frames == 30 && summary.framesWithErrors == 0)
        #expect(summary.keyframes >= 2 && summary.anchors >= 2, "\(summary)")

        let frame = walk.frames[27]
        let name = String(format: "%.6f", frame.timestamp + 1)
        let located = try CLI.run(["relocalize", "--map", map, sequence.appendingPathComponent("rgb/\(name).png").path,
                                   "--depth", sequence.appendingPathComponent("depth/\(name).png").path, "--depth-scale", "0.0002"])
        #expect(located.status == 0, "\(located.stderr)")
        // Depth with no measurement cannot confirm a pose, so it is not said to have.
        let blank = scratch.path("blank.png")
        try Raster.writeUInt16([UInt16](repeating: 0, count: 320 * 240), width: 320, height: 240, to: blank)
        let unconfirmed = try CLI.run(["relocalize", "--map", map, sequence.appendingPathComponent("rgb/\(name).png").path,
                                       "--depth", blank])
        #expect(unconfirmed.status == 65 && unconfirmed.stderr.contains("has no valid depth") && unconfirmed.stdout.isEmpty)
        let answer = try #require(try located.records(RelocalizeRecord.self).first)
        #expect(answer.relocalized, "\(answer)")
        let pose = try #require(answer.pose)
        #expect(pose.count == 16)
        let truth = frame.cameraToWorld.translation
        let offset = zip([pose[3], pose[7], pose[11]], truth).map { ($0 - $1) * ($0 - $1) }.reduce(0, +).squareRoot()
        #expect(offset < 0.02, "\(offset) m from the truth")
        #expect(answer.inliers >= 50 && answer.keyframe != nil)

        if let office = SharedDatasets.path("tum_fr3_office_frames/rgb") {
            let file = try #require(try FileManager.default.contentsOfDirectory(atPath: office).sorted().first { $0.hasSuffix(".png") })
            let elsewhere = try CLI.run(["relocalize", "--map", map, "\(office)/\(file)", "--intrinsics", "535.4,539.2,320.6,248.1"])
            #expect(elsewhere.status == 0, "\(elsewhere.stderr)")
            let refused = try #require(try elsewhere.records(RelocalizeRecord.self).first)
            #expect(!refused.relocalized && refused.pose == nil)
            // The map's camera is 320×240: another size needs intrinsics.
            let noIntrinsics = try CLI.run(["relocalize", "--map", map, "\(office)/\(file)"])
            #expect(noIntrinsics.status == 64 && noIntrinsics.stderr.contains("--intrinsics"))
        }

        var bytes = try readFileBytes(map)
        bytes[bytes.count / 3] ^= 1
        _ = FileManager.default.createFile(atPath: scratch.path("damaged.waymap"), contents: Data(bytes))
        let damaged = try CLI.run(["relocalize", "--map", scratch.path("damaged.waymap"), sequence.appendingPathComponent("rgb/\(name).png").path])
        #expect(damaged.status == 65 && damaged.stderr.contains("corrupt"), "\(damaged.stderr)")
        let missing = try CLI.run(["relocalize", "--map", scratch.path("none.waymap"), sequence.appendingPathComponent("rgb/\(name).png").path])
        #expect(missing.status == 66, "\(missing.stderr)")
    }
}
