import Foundation
import TestData
import Testing
import TestSupport
import Waymark
import WaymarkRecords

@Suite struct MapCLITests {
    /// TUM fr1/xyz's colour images and its motion-capture poses, no depth: `map build` makes
    /// keyframes whose points are triangulated between the posed views, and `relocalize` finds
    /// each of three images that are not keyframes within 3 cm of the truth from colour alone
    /// (1.5, 2.7 and 1.5 cm when written, on 530–600 inliers: points placed by triangulation
    /// between motion-capture poses are less sure than a depth camera's).
    @Test(.enabled(if: SharedDatasets.has("tum_fr1_xyz_excerpt")))
    func aColourSequenceWithPosesBuildsAMapThatRelocalizesColourImages() throws {
        let scratch = try Scratch()
        let excerpt = try #require(SharedDatasets.path("tum_fr1_xyz_excerpt"))
        let folder = try scratch.folder("colour", linking: ["rgb.txt", "rgb", "groundtruth.txt"], in: excerpt)
        let map = scratch.path("colour.waymap")
        let built = try CLI.run(["map", "build", folder, "--intrinsics", "517.3,516.5,318.6,255.3", "--output", map, "--quiet"])
        #expect(built.status == 0, "\(built.stderr)")
        let summary = try #require(try built.records(MapBuildRecord.self).first)
        #expect(summary.poses == "groundtruth" && summary.frames == 37 && summary.keyframes >= 3 && summary.points >= 1000,
                "\(summary)")
        let keyframeTimes = Set(try WorldMap(contentsOf: map).keyframes.map(\.timestamp))
        let truth = try Trajectory(tumFile: excerpt + "/groundtruth.txt").samples
        let images = try String(contentsOfFile: excerpt + "/rgb.txt", encoding: .utf8).split(separator: "\n")
            .filter { !$0.hasPrefix("#") }.map { $0.split(separator: " ") }
            .compactMap { parts -> (time: Double, path: String)? in
                guard parts.count == 2, let time = Double(parts[0]) else { return nil }
                return (time, String(parts[1]))
            }
        let others = images.filter { image in !keyframeTimes.contains { abs($0 - image.time) < 1e-6 } }
        #expect(others.count >= 3)
        for image in others.prefix(3) {
            let located = try CLI.run(["relocalize", "--map", map, excerpt + "/" + image.path])
            let answer = try #require(try located.records(RelocalizeRecord.self).first)
            let pose = try #require(answer.pose, "\(image.path): \(answer.reason)")
            let nearest = try #require(truth.min { abs($0.timestamp - image.time) < abs($1.timestamp - image.time) })
            #expect(abs(nearest.timestamp - image.time) < 0.01)
            let offset = zip([pose[3], pose[7], pose[11]], nearest.pose.translation).map { ($0 - $1) * ($0 - $1) }
                .reduce(0, +).squareRoot()
            #expect(offset < 0.03, "\(image.path): \(offset) m from the truth")
        }
        let noPoses = try scratch.folder("bare", linking: ["rgb.txt", "rgb"], in: excerpt)
        let refused = try CLI.run(["map", "build", noPoses, "--intrinsics", "517.3,516.5,318.6,255.3", "--output",
                                   scratch.path("bare.waymap")])
        #expect(refused.status == 64 && refused.stderr.contains("needs the camera's poses"))
        let noCamera = try CLI.run(["map", "build", folder, "--output", scratch.path("nocamera.waymap")])
        #expect(noCamera.status == 64 && noCamera.stderr.contains("needs the camera's intrinsics"))
    }

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
