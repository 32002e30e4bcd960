import Foundation
import Testing
import TestSupport
import WaymarkCore
import WaymarkPlanes

/// Plane anchors over the synthetic walk-through (exact depth and poses).
@Suite struct PlaneMapTests {
    static func walkthrough() throws -> Walkthrough? {
        let folder = URL(fileURLWithPath: "/usr/share/doc/opencv-doc/examples/data")
        guard FileManager.default.fileExists(atPath: folder.appendingPathComponent("graf1.png").path) else {
            print("skipped: the walk-through needs Debian's opencv-doc images (make setup installs them)")
            return nil
        }
        return try Walkthrough(posterFolder: folder, width: 320, height: 240, framesPerSecond: 4)
    }

    @Test func walkThroughEndsWithOneAnchorPerSurfaceAndStableIdentifiers() throws {
        guard let walk = try Self.walkthrough() else { return }
        let detector = try PlaneDetector()
        var map = PlaneMap()
        var framesSeen = [Int: Int]()
        var identity = [Int: Int]()  // surface id → anchor id, once established
        var changes: [String] = []
        var anchorSurfaces = [Int: Set<Int>]()
        for frame in walk.frames {
            let rendering = walk.render(frame, color: false)
            // The depth as TUM's 16-bit file stores it: 1/5000 m steps.
            let metres = rendering.depth.map { Float((Double($0) / 0.0002).rounded() * 0.0002) }
            let depth = DepthImage(width: walk.width, height: walk.height, metres: metres)
            var counts = [Int: Int]()
            for label in rendering.labels where label != 0 { counts[Int(label), default: 0] += 1 }
            for (surface, count) in counts where count >= walk.width * walk.height / 100 { framesSeen[surface, default: 0] += 1 }
            let detection = detector.detect(in: depth, intrinsics: walk.intrinsics, down: frame.cameraToWorld.inverseRotated(SIMD3(0, -1, 0)))
            let update = map.integrate(detection, cameraToWorld: frame.cameraToWorld)
            for (index, id) in update.anchorIDs.enumerated() {
                guard let id else { continue }
                var votes = [Int: Int]()
                for i in detection.labels.indices where Int(detection.labels[i]) == index + 1 {
                    votes[Int(rendering.labels[i]), default: 0] += 1
                }
                guard let surface = votes.max(by: { $0.value < $1.value })?.key else { continue }
                anchorSurfaces[id, default: []].insert(surface)
                if let known = identity[surface], known != id, map.anchor(id: known) != nil {
                    changes.append("frame \(frame.index): surface \(surface) was anchor \(known), now \(id)")
                }
                if identity[surface] == nil || map.anchor(id: identity[surface]!) == nil { identity[surface] = id }
            }
        }
        // Surfaces covering ≥ 1% of the view in at least 3 frames.
        let visible = Set(framesSeen.filter { $0.value >= 3 }.keys)
        #expect(map.anchors.count == visible.count, "anchors \(map.anchors.map(\.id)), surfaces \(visible.sorted()); \(anchorSurfaces)")
        #expect(changes.isEmpty, "\(changes.prefix(5))")
        // Each anchor is one surface.
        for anchor in map.anchors { #expect(anchorSurfaces[anchor.id]?.count ?? 0 <= 1, "anchor \(anchor.id): \(anchorSurfaces[anchor.id] ?? [])") }
        // The anchors' planes are the true planes (within 1° and 1 cm).
        for anchor in map.anchors {
            guard let surface = anchorSurfaces[anchor.id]?.first, let truth = walk.surfaces.first(where: { $0.id == surface })
            else { continue }
            #expect(anchor.surface.plane.angle(to: truth.plane) * 180 / .pi < 1)
            #expect(abs(truth.plane.signedDistance(to: anchor.surface.center)) < 0.01)
        }
    }
}

extension RigidTransform {
    /// Rᵀ·v: a world direction in camera coordinates.
    func inverseRotated(_ v: SIMD3<Double>) -> SIMD3<Double> {
        let r = rotation
        return SIMD3(r[0] * v.x + r[3] * v.y + r[6] * v.z, r[1] * v.x + r[4] * v.y + r[7] * v.z, r[2] * v.x + r[5] * v.y + r[8] * v.z)
    }
}
