import Foundation
import TestData
import Testing
import TestSupport
import Waymark

/// The capability check: what a configuration needs that an input lacks is said before the run.
@Suite struct SessionSupportTests {
    static let camera = Intrinsics(fx: 525, fy: 525, cx: 320, cy: 240)

    @Test func aVideoCannotGiveSurfacesOrResumeAfterInterruptions() {
        let support = SessionSupport(SessionConfiguration(), input: SessionInput(width: 640, height: 480, hasDepth: false))
        #expect(!support.isSupported)
        #expect(support.problems.contains { $0.contains("finding surfaces needs depth images, or the camera's intrinsics") })
        #expect(support.problems.contains { $0.contains("resuming after an interruption needs depth") })
        #expect(throws: WaymarkError.self) {
            _ = try Session(configuration: SessionConfiguration(), input: SessionInput(width: 640, height: 480, hasDepth: false))
        }
    }

    /// A map whose unit is its own (tracked from images alone, its scale never fixed) resumes
    /// only with frames tracked from their images: depth would mix metres with its unit. A
    /// video resumes it and is still waiting for a scale; surfaces with gravity from nowhere
    /// are to be estimated.
    @Test func aMapOfUnknownScaleResumesOnlyFromImages() throws {
        var configuration = SessionConfiguration()
        configuration.worldMap = WorldMap(isMetric: false)
        configuration.coaching.goal = .tracking
        let depth = SessionSupport(configuration, input: SessionInput(width: 640, height: 480, hasDepth: true, intrinsics: Self.camera))
        #expect(depth.problems.contains { $0.contains("the world map's scale is unknown") })
        configuration.surfaces = .all
        let session = try Session(configuration: configuration, input: SessionInput(
            width: 640, height: 480, hasDepth: false, intrinsics: Self.camera))
        #expect(session.isMonocular && session.gravitySource == .estimated)
        configuration.worldMap = WorldMap()
        #expect(SessionSupport(configuration, input: SessionInput(width: 640, height: 480, hasDepth: true, intrinsics: Self.camera))
            .isSupported)
    }

    /// With its intrinsics a video is tracked from its images: the engine's defaults for it
    /// (relocalization, no surfaces) are supported, and so are surfaces when asked for (among
    /// its map's points); the world's scale is unknown.
    @Test func aVideoWithIntrinsicsIsTrackedFromItsImages() throws {
        let info = FrameSourceInfo(kind: "video", path: "v.mp4", width: 640, height: 480, framesPerSecond: 30, frameCount: nil,
                                   hasColor: true, hasDepth: false, recordedPoses: nil, intrinsics: Self.camera, notes: [])
        var configuration = SessionConfiguration()
        configuration.adapt(to: info)
        configuration.coaching.goal = .tracking
        #expect(configuration.relocalization && configuration.surfaces.isEmpty)
        configuration.surfaces = .all
        #expect(SessionSupport(configuration, input: SessionInput(info)).isSupported)
        let session = try Session(configuration: configuration, input: SessionInput(info))
        #expect(session.isTracking && session.isMonocular)
        var withoutIntrinsics = info
        withoutIntrinsics.intrinsics = nil
        configuration = SessionConfiguration()
        configuration.adapt(to: withoutIntrinsics)
        configuration.coaching.goal = .tracking
        #expect(!configuration.relocalization)
        #expect(SessionSupport(configuration, input: SessionInput(withoutIntrinsics)).problems
            == ["following the camera needs depth images, recorded poses or the camera's intrinsics, and this input has none"])
    }

    @Test func depthNeedsIntrinsics() {
        let support = SessionSupport(SessionConfiguration(), input: SessionInput(width: 640, height: 480, hasDepth: true))
        #expect(support.problems == ["depth images need the camera's intrinsics (fx, fy, cx, cy) to become points"])
    }

    @Test func theGoalMustBeReachable() {
        var configuration = SessionConfiguration()
        configuration.surfaces = .horizontal
        configuration.coaching.goal = .verticalSurface
        let input = SessionInput(width: 640, height: 480, hasDepth: true, intrinsics: Self.camera)
        #expect(SessionSupport(configuration, input: input).problems
            == ["the coaching goal 'vertical_surface' needs that kind of surface to be looked for"])
        configuration.coaching.goal = .image
        #expect(SessionSupport(configuration, input: input).problems == ["the coaching goal 'image' needs reference images"])
        configuration.coaching.goal = .horizontalSurface
        #expect(SessionSupport(configuration, input: input).isSupported)
    }

    @Test func intrinsicsOutsideTheFrameAreRefused() {
        let input = SessionInput(width: 300, height: 200, hasDepth: true, intrinsics: Self.camera)
        #expect(SessionSupport(SessionConfiguration(), input: input).problems
            == ["the intrinsics' centre (320.0, 240.0) lies outside the 300×200 frames"])
    }

    @Test func referencesWithASizeButNoIntrinsicsAreANoteNotAProblem() throws {
        let texture = syntheticTexture(width: 320, height: 240, seed: 4)
        var configuration = SessionConfiguration()
        configuration.references = [try ReferenceImage(entry: ReferenceEntry(name: "poster", path: "", physicalWidth: 0.5), image: texture)]
        configuration.surfaces = []
        configuration.relocalization = false
        configuration.coaching.goal = .image
        let support = SessionSupport(configuration, input: SessionInput(width: 640, height: 480, hasDepth: false))
        #expect(support.isSupported)
        #expect(support.notes == ["reference images get no pose without the camera's intrinsics"])
    }
}

/// A session's references from a library and its active groups.
@Suite struct SessionReferencesTests {
    /// 30 small textured images, 12 in group "hall-a" and 18 in "hall-b".
    static func library(in scratch: Scratch) throws -> ReferenceLibrary {
        let entries = try (0..<30).map { k in
            let path = scratch.path("r\(k).png")
            try syntheticTexture(width: 160, height: 120, seed: UInt64(100 + k)).write(to: path)
            return ReferenceEntry(name: "r\(k)", path: path, group: k < 12 ? "hall-a" : "hall-b")
        }
        return try ReferenceLibrary(entries: entries)
    }

    @Test func theActiveGroupsAreSearchedAndTheLimitIsNamed() throws {
        let scratch = try Scratch()
        let library = try Self.library(in: scratch)
        var configuration = SessionConfiguration()
        try configuration.useReferences(from: library, groups: ["hall-a"])
        #expect(configuration.references.map(\.name) == (0..<12).map { "r\($0)" })
        #expect(configuration.imageTracking.detector.selection == .all)
        do {
            try configuration.useReferences(from: library)
            Issue.record("30 references at once were accepted")
        } catch {
            #expect(error.kind == .usage && error.message.contains("25"), "\(error.message)")
        }
        try configuration.useReferences(from: library, autoSelect: true)
        #expect(configuration.references.count == 30)
        #expect(configuration.imageTracking.detector.selection == .retrieval(limit: 25))
    }
}
