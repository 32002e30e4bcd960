import Foundation
import TestData
import Testing
import TestSupport
import Waymark
import WaymarkRecords

/// Reference images as world anchors in `waymark process SEQUENCE --references`, and as a way
/// back: the walk-through's room seen from 1.3 m in front of the graf1 poster (640×480, 10 fps;
/// from the scripted path the posters are too small to find), its four posters as references.
@Suite struct ImageAnchorCLITests {
    @Test(.enabled(if: Walkthrough.debianPosterFolder != nil)) func postersBecomeAnchorsWhereTheyHangAndLeadAMapOfAnchorsAloneBack() throws {
        let folder = try #require(Walkthrough.debianPosterFolder)
        let scratch = try Scratch()
        let walk = try Walkthrough(posterFolder: folder, width: 640, height: 480, framesPerSecond: 10).along((0..<8).map {
            Walkthrough.pose(SIMD3(-1.6 + 0.02 * Double($0), 1.42, -1.2), yaw: 2 - 0.5 * Double($0), pitch: 0)
        })
        let sequence = scratch.url.appendingPathComponent("walk")
        try WalkthroughWriter.write(walk, to: sequence)
        let manifest: [String: Any] = ["images": walk.posters.map {
            ["name": $0.name, "path": $0.imagePath, "physicalWidth": $0.physicalWidth] as [String: Any]
        }]
        try JSONSerialization.data(withJSONObject: manifest).write(to: scratch.url.appendingPathComponent("posters.json"))

        let a = try CLI.run(["process", sequence.path, "--references", scratch.path("posters.json"), "--save-map",
                             scratch.path("a.waymap"), "--output", scratch.path("a.jsonl"), "--quiet"])
        #expect(a.status == 0, "\(a.stderr)")
        let framesA = try CLI.processOutput(scratch.path("a.jsonl")).frames
        let events: [AnchorRecord] = framesA.flatMap { $0.anchorEvents ?? [] }
        let added = events.filter { $0.event == "added" && $0.kind == "image" }
        let detections: [DetectionRecord] = framesA.flatMap { $0.detections ?? [] }
        let seen = detections.map { (d: DetectionRecord) -> String in
            "\(d.name)/\(d.state ?? "")/\(d.confidence)/\(d.pose == nil ? "nopose" : "pose")"
        }
        let states: [String] = framesA.compactMap { $0.tracking?.state }
        #expect(added.contains { $0.name == "graf1" },
                "\(added.compactMap(\.name)); detections: \(seen.prefix(12)); states: \(states.prefix(5))")
        // Each where its poster hangs: centre within 8 cm, facing out of its wall within 5°.
        for anchor in added {
            let name = try #require(anchor.name)
            let poster = try #require(walk.posters.first { $0.name == name })
            let m = try #require(anchor.transform)
            let centre = poster.origin + poster.u / 2 + poster.v / 2
            let offset = SIMD3(m[3], m[7], m[11]) - centre
            #expect((offset * offset).sum().squareRoot() < 0.08, "\(poster.name): \(offset)")
            let wall = try #require(walk.surfaces.first { $0.id == poster.surfaceID })
            // z points into the image, so against the wall's normal.
            let z = SIMD3(m[2], m[6], m[10])
            #expect(-(z * wall.normal).sum() > cos(5 * Double.pi / 180), "\(poster.name): z \(z)")
        }

        // A map holding only those image anchors: the first frame that sees one is placed by it.
        let anchorsOnly = WorldMap(anchors: try WorldMap(contentsOf: scratch.path("a.waymap")).anchors.filter { $0.kind == .image })
        try anchorsOnly.write(to: scratch.path("images.waymap"))
        let b = try CLI.run(["process", sequence.path, "--references", scratch.path("posters.json"), "--load-map",
                             scratch.path("images.waymap"), "--output", scratch.path("b.jsonl"), "--quiet"])
        #expect(b.status == 0, "\(b.stderr)")
        let frames = try CLI.processOutput(scratch.path("b.jsonl")).frames
        let back = try #require(frames.firstIndex {
            ($0.events ?? []).contains { $0.event == "relocalized" && $0.anchor != nil }
        })
        #expect(back <= 3, "relocalized at frame \(back)")
        #expect(frames[..<back].allSatisfy { $0.pose == nil && $0.tracking != nil })
        let pose = try #require(frames[back].pose)
        let truth = walk.frames[back].cameraToWorld.translation
        let offset = zip([pose[3], pose[7], pose[11]], truth).map { ($0 - $1) * ($0 - $1) }.reduce(0, +).squareRoot()
        #expect(offset < 0.1, "\(offset) m from the truth")
        #expect(!InterruptionCLITests.restored(frames[back]).isEmpty)
    }
}
