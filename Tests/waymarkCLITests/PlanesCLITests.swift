import Foundation
import TestData
import Testing
import TestSupport
import Waymark
import WaymarkRecords

@Suite struct PlanesCLITests {
    @Test(.enabled(if: SharedDatasets.has("pcl_pointclouds/mOSD/test16_depth_mm.png", "pcl_pointclouds/sac_plane_test.pcd")))
    func depthAndCloudInputsGiveOneLineEachWithLabelImages() throws {
        let depth = try #require(SharedDatasets.path("pcl_pointclouds/mOSD/test16_depth_mm.png"))
        let cloud = try #require(SharedDatasets.path("pcl_pointclouds/sac_plane_test.pcd"))
        let scratch = try Scratch()
        let result = try CLI.run([
            "planes", depth, cloud, "--intrinsics", "525,525,320,240", "--labels", scratch.path("labels"),
            "--overlay", scratch.path("overlay"),
        ])
        #expect(result.status == 0, "\(result.stderr)")
        let lines = try result.records(PlanesRecord.self)
        try #require(lines.count == 2)
        #expect(lines.map(\.input) == [depth, cloud])
        #expect(lines.allSatisfy { $0.schema == "waymark.planes/1" })
        let planes = try #require(lines[0].planes)
        #expect(planes.count >= 3)
        #expect(planes.map(\.id) == Array(1...planes.count))
        let first = planes[0]
        #expect(abs(first.normal.map { $0 * $0 }.reduce(0, +) - 1) < 1e-6)
        #expect(first.polygon.count >= 3)
        #expect(["horizontal-up", "horizontal-down", "vertical", "other"].contains(first.alignment))
        // The label image: 16-bit, the input's size, labels 0...count, label 1 has the first plane's inliers.
        let labels = try Raster(contentsOf: scratch.path("labels/test16_depth_mm.png"))
        #expect(labels.kind == .uint16 && labels.width == 640 && labels.height == 480)
        #expect(Int(labels.values.max() ?? 0) == planes.count)
        #expect(labels.values.filter { $0 == 1 }.count == first.inliers)
        let overlay = try Image(contentsOf: scratch.path("overlay/test16_depth_mm.png"), gray: false)
        #expect(overlay.width == 640 && overlay.height == 480)
    }

    @Test(.enabled(if: SharedDatasets.has("pcl_pointclouds/mOSD/learn0_depth_mm.png"))) func gravityDecidesAlignment() throws {
        let depth = try #require(SharedDatasets.path("pcl_pointclouds/mOSD/learn0_depth_mm.png"))
        func alignment(_ extra: [String]) throws -> String? {
            let result = try CLI.run(["planes", depth, "--intrinsics", "525,525,320,240"] + extra)
            return try result.records(PlanesRecord.self).first?.planes?.first?.alignment
        }
        // The camera looks down at the table at about 37°: with the camera's down as gravity the
        // table is tilted; with the true down (the table's normal reversed) it faces up.
        #expect(try alignment([]) == "other")
        #expect(try alignment(["--gravity", "0,0.8,0.6"]) == "horizontal-up")
    }

    /// A point a million kilometres out is no measurement: left out of the plane, said on
    /// stderr and counted in the record.
    @Test func farPointsAreLeftOutAndCounted() throws {
        let scratch = try Scratch()
        var rows = (0..<4000).map { k in "\(Double(k % 64) * 0.02) \(Double(k / 64) * 0.02) 2" }
        rows[7] = "1e9 0 2"
        let header = "ply\nformat ascii 1.0\nelement vertex \(rows.count)\nproperty float x\nproperty float y\nproperty float z\nend_header\n"
        try Data((header + rows.joined(separator: "\n") + "\n").utf8).write(to: URL(fileURLWithPath: scratch.path("far.ply")))
        let result = try CLI.run(["planes", scratch.path("far.ply")])
        #expect(result.status == 0 && result.stderr.contains("1 of 4000 points lie more than 1000 km"), "\(result.stderr)")
        let record = try #require(try result.records(PlanesRecord.self).first)
        #expect(record.pointsLeftOut == 1 && record.planes?.count == 1)
    }

    @Test func badInputsGetClearErrorsAndTheirOwnExitCodes() throws {
        let scratch = try Scratch()
        let blank = [UInt16](repeating: 0, count: 64 * 48)
        try Raster.writeUInt16(blank, width: 64, height: 48, to: scratch.path("blank.png"))
        try Data("ply\nformat ascii 1.0\nelement vertex 5\nproperty float x\nproperty float y\nproperty float z\nend_header\n1 2 3\n".utf8)
            .write(to: URL(fileURLWithPath: scratch.path("short.ply")))
        var small = [UInt16](repeating: 1000, count: 64 * 48)
        small[0] = 0
        try Raster.writeUInt16(small, width: 64, height: 48, to: scratch.path("small.png"))

        let missingIntrinsics = try CLI.run(["planes", scratch.path("small.png")])
        #expect(missingIntrinsics.status == 64)
        #expect(missingIntrinsics.stderr.contains("--intrinsics"))

        let intrinsics = ["--intrinsics", "525,525,320,240"]
        let cases: [(String, Int32, String)] = [
            (scratch.path("blank.png"), 65, "no valid depth"),
            (scratch.path("short.ply"), 65, "ends after 1 of 5 vertices"),
            (scratch.path("small.png"), 65, "wrong image or wrong intrinsics"),
            (scratch.path("absent.pcd"), 66, "no such file"),
        ]
        for (input, status, message) in cases {
            let result = try CLI.run(["planes", input] + intrinsics)
            #expect(result.status == status, "\(input): \(result.stderr)")
            #expect(result.stderr.contains(message), "\(result.stderr)")
            #expect(try result.records(PlanesRecord.self).first?.error?.contains(message) == true)
        }
    }

    @Test(.enabled(if: SharedDatasets.has("pcl_pointclouds/sac_plane_test.pcd")))
    func oneBadInputDoesNotStopTheOthersAndTheExitCodeReportsIt() throws {
        let scratch = try Scratch()
        try Data("ply\nformat ascii 1.0\nelement vertex 5\nproperty float x\nproperty float y\nproperty float z\nend_header\n1 2 3\n".utf8)
            .write(to: URL(fileURLWithPath: scratch.path("short.ply")))
        let good = try #require(SharedDatasets.path("pcl_pointclouds/sac_plane_test.pcd"))
        let mixed = try CLI.run(["planes", scratch.path("short.ply"), good, "--tolerance", "0.03"])
        #expect(mixed.status == 65)
        let lines = try mixed.records(PlanesRecord.self)
        #expect(lines.count == 2 && lines[0].error != nil)
        #expect(lines.last?.planes?.first?.inliers ?? 0 > 2000)
        let badTolerance = try CLI.run(["planes", good, "--tolerance", "-1"])
        #expect(badTolerance.status == 64)
    }
}
