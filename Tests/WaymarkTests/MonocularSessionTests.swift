import Foundation
import Testing
import TestSupport
import Waymark

/// A session over colour frames alone, its camera known: the walk-through's room in front of
/// the graf1 poster (640×480, 30 fps), the camera stepping sideways (30 cm/s) while turning a
/// little, its four posters as references with their physical widths.
@Suite struct MonocularSessionTests {
    static func walk(_ folder: URL) throws -> Walkthrough {
        try Walkthrough(posterFolder: folder, width: 640, height: 480, framesPerSecond: 30).along((0..<60).map {
            Walkthrough.pose(SIMD3(-1.75 + 0.01 * Double($0), 1.42, -1.2), yaw: 3 - 0.1 * Double($0), pitch: 0)
        })
    }

    /// The map starts from the sideways step in an unknown unit; five frames that see the
    /// poster with a pose on enough tracked points fix it (a `scale_fixed` event), and the
    /// poses from then on are metric: a similarity alignment to the truth finds a scale within
    /// 1 % of 1 (0.992 when written) and leaves every pose within 2 cm (1.3). Image anchors
    /// wait for the metric world.
    @Test(.enabled(if: Walkthrough.debianPosterFolder != nil)) func aPosterOfKnownWidthFixesTheScale() throws {
        let walk = try Self.walk(try #require(Walkthrough.debianPosterFolder))
        var configuration = SessionConfiguration()
        configuration.surfaces = []
        configuration.coaching.goal = .tracking
        for poster in walk.posters {
            configuration.references.append(try ReferenceImage(entry: ReferenceEntry(
                name: poster.name, path: poster.imagePath, physicalWidth: poster.physicalWidth)))
        }
        let session = try Session(configuration: configuration, input: SessionInput(
            width: walk.width, height: walk.height, hasDepth: false, intrinsics: walk.intrinsics))
        #expect(session.isMonocular)
        var fixedAt: Int?
        var estimate: [SIMD3<Double>] = []
        var truth: [SIMD3<Double>] = []
        for frame in walk.frames {
            let rendering = walk.render(frame)
            let result = session.process(SessionFrame(
                timestamp: frame.timestamp, image: Image(width: walk.width, height: walk.height, channels: 3, pixels: rendering.color!)))
            let events = result.tracking?.events ?? []
            if events.contains(where: { if case .scaleFixed(_, "graf1") = $0 { true } else { false } }) { fixedAt = frame.index }
            let imageAnchors = result.anchorEvents.filter { if case .added(let anchor) = $0 { anchor.kind == .image } else { false } }
            if fixedAt == nil { #expect(imageAnchors.isEmpty, "frame \(frame.index): an image anchor before the scale") }
            guard fixedAt != nil, let pose = result.cameraToWorld else { continue }
            estimate.append(pose.translationVector)
            truth.append(frame.cameraToWorld.translationVector)
        }
        let fixed = try #require(fixedAt, "the scale was never fixed")
        #expect(estimate.count >= 25, "\(estimate.count) metric poses after frame \(fixed)")
        let (alignment, scale) = try alignPoints(estimate, onto: truth, withScale: true)
        let residuals = zip(estimate, truth).map { e, t in
            let d = alignment.apply(e * scale) - t
            return (d * d).sum().squareRoot()
        }
        print("scale fixed at frame \(fixed): alignment scale \(scale), worst residual \(residuals.max() ?? 0) m")
        #expect(abs(scale - 1) < 0.01)
        #expect((residuals.max() ?? 1) < 0.02)
    }
}
