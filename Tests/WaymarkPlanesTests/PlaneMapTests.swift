import Foundation
import Testing
import TestSupport
import WaymarkCore
import WaymarkPlanes
import WaymarkVision

/// Plane anchors over the synthetic walk-through (exact depth and poses).
@Suite struct PlaneMapTests {
    static func walkthrough() throws -> Walkthrough {
        let folder = try #require(Walkthrough.debianPosterFolder)
        return try Walkthrough(posterFolder: folder, width: 320, height: 240, framesPerSecond: 4)
    }

    @Test(.enabled(if: Walkthrough.debianPosterFolder != nil)) func walkThroughEndsWithOneAnchorPerSurfaceAndStableIdentifiers() throws {
        let walk = try Self.walkthrough()
        let replay = WalkthroughPlaneReplay(walk, detector: try PlaneDetector())
        let map = replay.map
        #expect(map.anchors.count == replay.visibleSurfaces.count,
                "anchors \(map.anchors.map(\.id)), surfaces \(replay.visibleSurfaces.sorted()); \(replay.surfacesOfAnchor)")
        #expect(replay.identifierChanges.isEmpty, "\(replay.identifierChanges.prefix(5))")
        // Each anchor is one surface, and its plane is the true one (within 1° and 1 cm).
        for anchor in map.anchors {
            let surfaces = replay.surfacesOfAnchor[anchor.id] ?? []
            #expect(surfaces.count <= 1, "anchor \(anchor.id): \(surfaces)")
            guard let surface = surfaces.first, let truth = walk.surfaces.first(where: { $0.id == surface }) else { continue }
            #expect(anchor.surface.plane.angle(to: truth.plane) * 180 / .pi < 1)
            #expect(abs(truth.plane.signedDistance(to: anchor.surface.center)) < 0.01)
        }
    }
}

/// Moving the plane map with a corrected path (a loop closed).
@Suite struct PlaneMapCorrectionTests {
    /// A wall 2 m ahead seen in two frames becomes an anchor; moved by a 5° turn and 10 cm, its
    /// centre and normal move exactly so (to 1e-9), and a correction that is the identity
    /// everywhere leaves it as it was.
    @Test func anAnchorMovesWithItsCorrection() throws {
        let intrinsics = Intrinsics(fx: 262.5, fy: 262.5, cx: 160, cy: 120)
        let wall = DepthImage(width: 320, height: 240, metres: [Float](repeating: 2, count: 320 * 240))
        let detector = try PlaneDetector()
        var map = PlaneMap()
        var identifiers = AnchorIdentifiers()
        for _ in 0..<2 {
            _ = map.integrate(detector.detect(in: wall, intrinsics: intrinsics), cameraToWorld: .identity, identifiers: &identifiers)
        }
        let before = try #require(map.anchors.first).surface
        map.correct { _ in .identity }
        #expect(map.anchors.first?.surface.center == before.center)
        let angle = 5 * Double.pi / 180
        let correction = RigidTransform(rotation: [cos(angle), 0, sin(angle), 0, 1, 0, -sin(angle), 0, cos(angle)],
                                        translation: [0.1, 0, 0])
        map.correct { _ in correction }
        let after = try #require(map.anchors.first).surface
        let centre = correction.apply(before.center)
        #expect(((after.center - centre) * (after.center - centre)).sum().squareRoot() < 1e-9)
        let normal = correction.apply(before.plane.normal) - correction.apply(.zero)
        #expect(((after.plane.normal - normal) * (after.plane.normal - normal)).sum().squareRoot() < 1e-9)
    }
}
