import Foundation
import Testing
import TestSupport
import WaymarkCore
import WaymarkPlanes

/// Raycasts and placed objects on a table top seen by a camera 0.5 m above it.
@Suite struct PlacementTests {
    static let camera = Intrinsics(fx: 262.5, fy: 262.5, cx: 160, cy: 120)
    /// Camera axes are the world axes turned so that the camera looks along world −z with
    /// world y up: camera y (down) is world −y, camera z (forward) is world −z.
    static let cameraToWorld = RigidTransform(rotation: [1, 0, 0, 0, -1, 0, 0, 0, -1], translation: [0, 1.25, 0])

    /// A 1.2 m × 0.8 m table top at world height 0.75, seen from 1.25 m; `shift` moves it up,
    /// `visible` limits the part in view (x in camera coordinates).
    static func tableDetection(shift: Double = 0, visible: ClosedRange<Double> = -0.6...0.6) throws -> PlaneDetection {
        // In camera coordinates (y down): the table is 0.5 − shift below the camera, 1–1.8 m ahead.
        let top = Plane(normal: SIMD3(0, -1, 0), offset: 0.5 - shift)
        let floor = Plane(normal: SIMD3(0, -1, 0), offset: 1.25)
        let scene = PlaneFixtures.render(width: 320, height: 240, intrinsics: camera, surfaces: [
            (top, { visible.contains($0.x) && $0.z >= 1.0 && $0.z <= 1.8 }), (floor, { $0.z < 6 }),
        ])
        return try PlaneDetector().detect(in: scene.depth, intrinsics: camera)
    }

    static func ray(towards world: SIMD3<Double>) -> Ray {
        let origin = SIMD3(0, 1.25, 0.0)
        return Ray(origin: origin, direction: world - origin)
    }

    @Test func beforeAnyPlaneAHitIsEstimatedOnTheAssumedFloor() {
        let map = PlaneMap()
        let hit = map.raycast(Self.ray(towards: SIMD3(0, 0, -2)))
        #expect(hit?.isEstimated == true && hit?.anchorID == nil)
        // The assumed floor is 1.4 m below the ray's origin.
        #expect(abs((hit?.point.y ?? 0) - (1.25 - PlaneMap.assumedCameraHeight)) < 1e-9)
        #expect(map.raycast(Ray(origin: .zero, direction: SIMD3(0, 1, 0))) == nil)
    }

    @Test func aPlaneSeenOnceIsAnEstimateAndBecomesAnAnchorWhenSeenAgain() throws {
        var map = PlaneMap()
        var identifiers = AnchorIdentifiers()
        let first = map.integrate(try Self.tableDetection(), cameraToWorld: Self.cameraToWorld, identifiers: &identifiers)
        #expect(first.events.isEmpty)
        let target = SIMD3(0.1, 0.75, -1.4)
        let guess = try #require(map.raycast(Self.ray(towards: target)))
        #expect(guess.isEstimated)
        #expect(simd_length(guess.point - target) < 0.005)
        let placement = map.place("lamp", along: Self.ray(towards: target))
        let placed = try #require(placement)
        #expect(placed.isEstimated && placed.anchorID == nil)

        let second = map.integrate(try Self.tableDetection(), cameraToWorld: Self.cameraToWorld, identifiers: &identifiers)
        let table = try #require(map.anchors.first { abs($0.surface.center.y - 0.75) < 0.01 })
        #expect(second.events.contains(.added(id: table.id)))
        let hit = try #require(map.raycast(Self.ray(towards: target)))
        #expect(!hit.isEstimated && hit.anchorID == table.id && hit.isWithinBoundary)
        // The object placed on the guess now sits on the anchor.
        let lamp = try #require(map.objects.first)
        #expect(!lamp.isEstimated && lamp.anchorID == table.id)
        #expect(simd_length(lamp.position - target) < 0.005)
        #expect(table.surface.alignment == .horizontalUp)
    }

    @Test func aPositionBeyondTheEdgeIsPulledBackAndInsideOnesStayPut() throws {
        var map = PlaneMap()
        var identifiers = AnchorIdentifiers()
        for _ in 0..<2 { _ = map.integrate(try Self.tableDetection(), cameraToWorld: Self.cameraToWorld, identifiers: &identifiers) }
        let table = try #require(map.anchors.first { abs($0.surface.center.y - 0.75) < 0.01 })
        // 0.3 m beyond the table's right edge (x = 0.6), on its plane.
        let beyondPlaced = map.place("cup", along: Self.ray(towards: SIMD3(0.9, 0.75, -1.4)))
        let beyond = try #require(beyondPlaced)
        #expect(beyond.anchorID == table.id)
        // Pulled back to 5 cm inside the edge, at the same depth; not snapped onto the edge.
        #expect(abs(beyond.position.x - (0.6 - PlaneMap.pullBackMargin)) < 0.02, "\(beyond.position)")
        #expect(abs(beyond.position.z + 1.4) < 0.03 && abs(beyond.position.y - 0.75) < 0.002)
        let insidePlaced = map.place("book", along: Self.ray(towards: SIMD3(0.3, 0.75, -1.2)))
        let inside = try #require(insidePlaced)
        #expect(simd_length(inside.position - SIMD3(0.3, 0.75, -1.2)) < 0.003)
    }

    @Test func placedObjectsMoveWhenTheirPlaneIsRefined() throws {
        var map = PlaneMap()
        var identifiers = AnchorIdentifiers()
        for _ in 0..<2 { _ = map.integrate(try Self.tableDetection(), cameraToWorld: Self.cameraToWorld, identifiers: &identifiers) }
        let bookPlaced = map.place("book", along: Self.ray(towards: SIMD3(0.3, 0.75, -1.2)))
        let book = try #require(bookPlaced)
        // Later frames see the top 2 cm higher (say the first depth was biased): the anchor's
        // plane moves up as the observations accumulate, and the book with it.
        for _ in 0..<6 { _ = map.integrate(try Self.tableDetection(shift: 0.02), cameraToWorld: Self.cameraToWorld, identifiers: &identifiers) }
        let moved = try #require(map.objects.first { $0.id == book.id })
        #expect(moved.anchorID == book.anchorID)
        let plane = try #require(map.anchor(id: moved.anchorID!)).surface.plane
        #expect(abs(plane.signedDistance(to: moved.position)) < 1e-9)
        #expect(moved.position.y > book.position.y + 0.01)
    }

    @Test func twoAnchorsThatTurnOutToBeOneSurfaceMergeIntoTheOlder() throws {
        var map = PlaneMap()
        var identifiers = AnchorIdentifiers()
        // The table's two ends, 0.4 m apart, seen first: two anchors.
        for _ in 0..<2 { _ = map.integrate(try Self.tableDetection(visible: -0.6 ... -0.2), cameraToWorld: Self.cameraToWorld, identifiers: &identifiers) }
        for _ in 0..<2 { _ = map.integrate(try Self.tableDetection(visible: 0.2...0.6), cameraToWorld: Self.cameraToWorld, identifiers: &identifiers) }
        let ends = map.anchors.filter { abs($0.surface.center.y - 0.75) < 0.01 }
        #expect(ends.count == 2)
        let cupPlacement = map.place("cup", along: Self.ray(towards: SIMD3(0.4, 0.75, -1.4)))
        let cup = try #require(cupPlacement)
        // Then the whole table: one surface.
        let update = map.integrate(try Self.tableDetection(), cameraToWorld: Self.cameraToWorld, identifiers: &identifiers)
        let (older, younger) = (ends.map(\.id).min()!, ends.map(\.id).max()!)
        #expect(update.events.contains(.merged(absorbed: younger, into: older)))
        #expect(map.anchor(id: younger) == nil)
        let table = try #require(map.anchor(id: older))
        // In view: the full width, and depth from where the image's bottom edge meets the top
        // (f · 0.5 m / 120 px = 1.09 m) to its far edge at 1.8 m; pixel footprints lose ≤ 2 cm.
        let nearest = Self.camera.fy * 0.5 / Self.camera.cy
        #expect(abs(table.surface.extent.x - 1.2) < 0.02, "\(table.surface.extent)")
        #expect(abs(table.surface.extent.y - (1.8 - nearest)) < 0.03, "\(table.surface.extent)")
        // The cup, on the absorbed anchor, now belongs to the survivor and has not moved.
        let moved = try #require(map.objects.first { $0.id == cup.id })
        #expect(moved.anchorID == older)
        #expect(simd_length(moved.position - cup.position) < 0.002)
    }

    @Test func aPixelsRayMeetsTheTableWhereThatPixelSeesIt() throws {
        var map = PlaneMap()
        var identifiers = AnchorIdentifiers()
        for _ in 0..<2 { _ = map.integrate(try Self.tableDetection(), cameraToWorld: Self.cameraToWorld, identifiers: &identifiers) }
        // The pixel 80 rows below the centre looks 80/262.5 down: it meets the table, 0.5 m
        // below the camera, 0.5 · 262.5 / 80 = 1.64 m ahead (world z = −1.64).
        let ray = Ray(pixel: SIMD2(160, 200), intrinsics: Self.camera, cameraToWorld: Self.cameraToWorld)
        let hit = try #require(map.raycast(ray))
        #expect(!hit.isEstimated && hit.isWithinBoundary)
        #expect(simd_length(hit.point - SIMD3(0, 0.75, -0.5 * 262.5 / 80)) < 0.003, "\(hit.point)")
        #expect(simd_length(hit.normal - SIMD3(0, 1, 0)) < 0.001)
    }

    @Test func resetRemovesEveryAnchorAndObject() throws {
        var map = PlaneMap()
        var identifiers = AnchorIdentifiers()
        for _ in 0..<2 { _ = map.integrate(try Self.tableDetection(), cameraToWorld: Self.cameraToWorld, identifiers: &identifiers) }
        _ = map.place("cup", along: Self.ray(towards: SIMD3(0, 0.75, -1.4)))
        let ids = map.anchors.map(\.id)
        #expect(!ids.isEmpty)
        #expect(map.reset() == ids.map { PlaneEvent.removed(id: $0) })
        #expect(map.anchors.isEmpty && map.objects.isEmpty)
    }
}

func simd_length(_ v: SIMD3<Double>) -> Double { (v * v).sum().squareRoot() }
