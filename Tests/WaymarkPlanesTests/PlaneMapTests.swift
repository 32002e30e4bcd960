import Foundation
import Testing
import TestSupport
import WaymarkCore
import WaymarkPlanes

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
