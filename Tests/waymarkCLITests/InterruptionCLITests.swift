import Foundation
import TestData
import Testing
import TestSupport
import Waymark
import WaymarkRecords

/// `waymark process` through interruptions, over 5 s of the walk-through's scan (320×240, 10 fps).
@Suite struct InterruptionCLITests {
    static func restored(_ record: FrameRecord?) -> [AnchorRecord] {
        (record?.anchorEvents ?? []).filter { $0.event == "restored" }
    }

    /// - A: a vase placed on frame 10 as a tap at pixel (160, 200) would; frames 30–32 dropped.
    ///   The interruption record hides every anchor, no frame reports a pose until frame 33
    ///   relocalizes (within 2 cm of the truth) and restores them, the vase where it was.
    /// - The map saved at the interruption's start, loaded into a new run that starts at frame
    ///   33 (`--interrupt 0:33 --load-map`), puts the camera and every anchor exactly where A's
    ///   in-memory relocalization did.
    /// - A run killed during an interruption has already saved its map.
    @Test(.enabled(if: Walkthrough.debianPosterFolder != nil)) func interruptionsHideAndRestoreAnchorsAndTheSavedMapResumesExactly() throws {
        let folder = try #require(Walkthrough.debianPosterFolder)
        let scratch = try Scratch()
        let walk = try Walkthrough(posterFolder: folder, width: 320, height: 240, framesPerSecond: 10)
        let sequence = scratch.url.appendingPathComponent("walk")
        try WalkthroughWriter.write(walk, to: sequence, frameLimit: 50)

        let a = try CLI.run(["process", sequence.path, "--interrupt", "30:3", "--place", "vase:10:160,200", "--output",
                             scratch.path("a.jsonl"), "--quiet"])
        #expect(a.status == 0, "\(a.stderr)")
        let outputA = try CLI.processOutput(scratch.path("a.jsonl"))
        // The vase lands where that pixel's ray meets the room (the rendered depth says where), within 2 cm.
        let vase = try #require(outputA.frames.first { $0.index == 10 }?.placed?.first)
        #expect(vase.kind == "named" && vase.name == "vase")
        let vaseID = vase.id
        let placedAt = try #require(vase.transform)
        let tapped = walk.frames[10]
        let z = Double(walk.render(tapped, color: false).depth[200 * walk.width + 160])
        let k = walk.intrinsics
        let seen = tapped.cameraToWorld.apply(SIMD3((160.5 - k.cx) / k.fx * z, (200.5 - k.cy) / k.fy * z, z))
        let miss = SIMD3(placedAt[3], placedAt[7], placedAt[11]) - seen
        #expect((miss * miss).sum().squareRoot() < 0.02, "\(miss)")
        #expect(outputA.interruptions.count == 1)
        let interruption = try #require(outputA.interruptions.first)
        #expect(interruption.index == 30)
        #expect(interruption.events.map(\.cause) == ["paused"])
        let hidden = interruption.anchorEvents.filter { $0.event == "hidden" }.map(\.id)
        #expect(hidden.count >= 2, "\(interruption)")
        #expect(!outputA.frames.contains { (30..<33).contains($0.index) })
        let resumed = try #require(outputA.frames.first { $0.index == 33 })
        #expect(resumed.events?.contains { $0.event == "relocalized" } == true, "\(resumed)")
        #expect(Set(Self.restored(resumed).map(\.id)) == Set(hidden))
        #expect(hidden.contains(vaseID))
        // It stays on the floor where it was put (the floor's estimate is refined meanwhile).
        let restoredAt = try #require(Self.restored(resumed).first { $0.id == vaseID }?.transform)
        let moved = SIMD3(restoredAt[3] - placedAt[3], restoredAt[7] - placedAt[7], restoredAt[11] - placedAt[11])
        #expect((moved * moved).sum().squareRoot() < 0.005, "\(moved)")
        let pose = try #require(resumed.pose)
        let truth = walk.frames[33].cameraToWorld.translation
        let offset = zip([pose[3], pose[7], pose[11]], truth).map { ($0 - $1) * ($0 - $1) }.reduce(0, +).squareRoot()
        #expect(offset < 0.02, "\(offset) m")

        // The map as it was when the interruption started (nothing after it is processed).
        let saved = scratch.path("at-interruption.waymap")
        let cut = try CLI.run(["process", sequence.path, "--interrupt", "30:20", "--place", "vase:10:160,200", "--save-map", saved, "--output",
                               scratch.path("cut.jsonl"), "--quiet"])
        #expect(cut.status == 0, "\(cut.stderr)")
        let b = try CLI.run(["process", sequence.path, "--interrupt", "0:33", "--load-map", saved, "--output",
                             scratch.path("b.jsonl"), "--quiet"])
        #expect(b.status == 0, "\(b.stderr)")
        let resumedB = try #require(try CLI.processOutput(scratch.path("b.jsonl")).frames.first { $0.index == 33 })
        #expect(resumedB.pose == pose)
        let byID = { (events: [AnchorRecord]) in Dictionary(uniqueKeysWithValues: events.map { ($0.id, $0.transform ?? []) }) }
        #expect(byID(Self.restored(resumedB)) == byID(Self.restored(resumed)))
        #expect(!Self.restored(resumedB).isEmpty)

        // Killed during an interruption: the file is there, whole, while the run still goes on.
        let killed = scratch.path("killed.waymap")
        let process = Process()
        process.executableURL = CLI.executable
        process.arguments = ["process", sequence.path, "--interrupt", "10:2", "--save-map", killed, "--output", scratch.path("k.jsonl"), "--quiet"]
        try process.run()
        while process.isRunning, !FileManager.default.fileExists(atPath: killed) { usleep(20_000) }
        let wasRunning = process.isRunning
        process.terminate()
        process.waitUntilExit()
        #expect(wasRunning, "the map was not saved before the run ended")
        let map = try WorldMap(contentsOf: killed)
        #expect(!map.keyframes.isEmpty)
    }
}
