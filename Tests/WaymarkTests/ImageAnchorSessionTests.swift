import Foundation
import Testing
import TestSupport
import Waymark

/// Reference images as world anchors and as a way back, on the library itself: the
/// walk-through's room seen from 1.3 m in front of the graf1 poster (640×480, 10 fps; from the
/// scripted path the posters are too small to find), its four posters as references with their
/// physical widths, exact poses recorded with the frames.
@Suite struct ImageAnchorSessionTests {
    static func walk(_ folder: URL) throws -> Walkthrough {
        try Walkthrough(posterFolder: folder, width: 640, height: 480, framesPerSecond: 10).along((0..<8).map {
            Walkthrough.pose(SIMD3(-1.6 + 0.02 * Double($0), 1.42, -1.2), yaw: 2 - 0.5 * Double($0), pitch: 0)
        })
    }

    static func session(_ walk: Walkthrough, map: WorldMap? = nil) throws -> Session {
        var configuration = SessionConfiguration()
        for poster in walk.posters {
            configuration.references.append(try ReferenceImage(entry: ReferenceEntry(
                name: poster.name, path: poster.imagePath, physicalWidth: poster.physicalWidth)))
        }
        configuration.worldMap = map
        return try Session(configuration: configuration, input: SessionInput(
            width: walk.width, height: walk.height, hasDepth: true, hasRecordedPoses: true, intrinsics: walk.intrinsics))
    }

    static func process(_ session: Session, _ walk: Walkthrough, _ frame: Walkthrough.Frame) -> FrameResult {
        let rendering = walk.render(frame)
        return session.process(SessionFrame(
            timestamp: frame.timestamp, image: Image(width: walk.width, height: walk.height, channels: 3, pixels: rendering.color!),
            depth: DepthImage(width: walk.width, height: walk.height, metres: rendering.depth), recordedPose: frame.cameraToWorld))
    }

    /// A poster seen with a pose becomes an image anchor where it hangs (centre within 8 cm);
    /// a new session given a map of those image anchors alone starts relocalizing, and the
    /// first frame that sees one of them puts the camera back in that world (within 10 cm of
    /// the truth, by 3 frames) and restores every anchor.
    @Test(.enabled(if: Walkthrough.debianPosterFolder != nil)) func imageAnchorsArePlacedWhereThePostersHangAndBringASessionBack() throws {
        let walk = try Self.walk(try #require(Walkthrough.debianPosterFolder))
        let first = try Self.session(walk)
        var added: [WorldAnchor] = []
        for frame in walk.frames {
            let events: [AnchorEvent] = Self.process(first, walk, frame).anchorEvents
            for case .added(let anchor) in events where anchor.kind == .image { added.append(anchor) }
        }
        let names: [String] = added.map { $0.name }
        #expect(names.contains("graf1"), "\(names)")
        for anchor in added {
            let poster = try #require(walk.posters.first { $0.name == anchor.name })
            let centre: SIMD3<Double> = poster.origin + poster.u / 2 + poster.v / 2
            let offset: SIMD3<Double> = anchor.transform.translationVector - centre
            #expect((offset * offset).sum().squareRoot() < 0.08, "\(poster.name): \(offset)")
        }
        let map = try #require(first.worldMap)
        let images: [WorldAnchor] = map.anchors.filter { $0.kind == .image }
        #expect(images.map { $0.id } == added.map { $0.id })

        let second = try Self.session(walk, map: WorldMap(anchors: images))
        var back: Int?
        for frame in walk.frames.prefix(4) {
            let result = Self.process(second, walk, frame)
            let events: [TrackingEvent] = result.tracking?.events ?? []
            let relocalized = events.contains { event in
                if case .relocalizedOnAnchor = event { true } else { false }
            }
            guard relocalized else {
                #expect(result.cameraToWorld == nil, "frame \(frame.index) has a pose before relocalizing")
                continue
            }
            back = frame.index
            let pose = try #require(result.cameraToWorld)
            let offset: SIMD3<Double> = pose.translationVector - frame.cameraToWorld.translationVector
            #expect((offset * offset).sum().squareRoot() < 0.1, "\(offset) from the truth")
            let restored: [Int] = result.anchorEvents.compactMap { event in
                if case .restored(let anchor) = event { anchor.id } else { nil }
            }
            #expect(Set(restored) == Set(images.map { $0.id }))
            break
        }
        #expect(back != nil, "no frame relocalized on an image anchor")
    }
}
