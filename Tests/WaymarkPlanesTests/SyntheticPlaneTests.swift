import Foundation
import TestData
import Testing
import TestSupport
import WaymarkCore
import WaymarkPlanes
import WaymarkVision

/// Exact depth rendered from known planes: what the detector returns can be checked to
/// rounding error.
@Suite struct SyntheticPlaneTests {
    static let camera = Intrinsics(fx: 525, fy: 525, cx: 320, cy: 240)
    static let floor = Plane(normal: SIMD3(0, -1, 0), offset: 1.2)  // y = 1.2 m below the camera
    static let wall = Plane(normal: SIMD3(0, 0, -1), offset: 4)  // 4 m ahead
    static let ramp = Plane(normal: SIMD3(0.5, -0.2, -1), offset: 2.2)

    @Test func floorWallAndRampAreRecoveredExactly() throws {
        let scene = PlaneFixtures.render(width: 640, height: 480, intrinsics: Self.camera, surfaces: [
            (Self.floor, { _ in true }), (Self.wall, { _ in true }), (Self.ramp, { $0.x < -0.3 && $0.y < 0.4 }),
        ])
        let found = try PlaneDetector().detect(in: scene.depth, intrinsics: Self.camera)
        #expect(found.planes.count == 3)
        for truth in [Self.floor, Self.wall, Self.ramp] {
            let match = try #require(found.planes.min { a, b in
                PlaneFixtures.degrees(a.plane.normal, truth.normal) < PlaneFixtures.degrees(b.plane.normal, truth.normal)
            })
            // Float depth and back-projection: normals within 0.01°, offsets within 0.1 mm.
            #expect(PlaneFixtures.degrees(match.plane.normal, truth.normal) < 0.01)
            #expect(abs(match.plane.offset - truth.offset) < 1e-4)
        }
        let floor = try #require(found.planes.first { PlaneFixtures.degrees($0.plane.normal, Self.floor.normal) < 1 })
        let wall = try #require(found.planes.first { PlaneFixtures.degrees($0.plane.normal, Self.wall.normal) < 1 })
        #expect(floor.alignment == .horizontalUp)
        #expect(wall.alignment == .vertical)
        #expect(found.planes.first { PlaneFixtures.degrees($0.plane.normal, Self.ramp.normal) < 1 }?.alignment == .other)
        // Labels agree with the rendering for ≥ 99% of pixels (the rest sit on the seams).
        var agree = 0
        for i in scene.labels.indices {
            let truth = [Self.floor, Self.wall, Self.ramp][scene.labels[i] - 1]
            let label = Int(found.labels[i])
            if label > 0, PlaneFixtures.degrees(found.planes[label - 1].plane.normal, truth.normal) < 1 { agree += 1 }
        }
        #expect(Double(agree) >= 0.99 * Double(scene.labels.count))
    }

    @Test func outlineExtentAndCentreDescribeARectangle() throws {
        // A 1.6 m × 0.8 m table top 0.5 m below the camera, 1.5–2.3 m ahead, above a far floor.
        let top = Plane(normal: SIMD3(0, -1, 0), offset: 0.5)
        let scene = PlaneFixtures.render(width: 640, height: 480, intrinsics: Self.camera, surfaces: [
            (top, { abs($0.x) <= 0.8 && $0.z >= 1.5 && $0.z <= 2.3 }), (Self.floor, { _ in true }),
        ])
        let found = try PlaneDetector().detect(in: scene.depth, intrinsics: Self.camera)
        let table = try #require(found.planes.first { abs($0.plane.offset - 0.5) < 0.01 })
        // Pixel sampling loses up to a pixel's footprint at each edge: ~4 mm across, and along
        // the depth z²/(f·h) = 2 cm at the far edge.
        #expect(abs(table.extent.x - 1.6) < 0.01 && abs(table.extent.y - 0.8) < 0.025, "\(table.extent)")
        let offCentre = table.center - SIMD3(0, 0.5, 1.9)
        #expect((offCentre * offCentre).sum().squareRoot() < 0.015, "\(table.center)")
        #expect(abs(table.area - 1.28) < 0.04)
        for corner in table.boundaryPoints { #expect(abs(top.signedDistance(to: corner)) < 1e-6) }
        #expect(table.outlineContains(SIMD3(0.7, 0.5, 2.2)) && !table.outlineContains(SIMD3(0.9, 0.5, 2.2)))
        #expect(table.classification == .table)
    }

    @Test func coplanarButSeparateSurfacesAreSeparatePlanes() throws {
        // A table top and a sofa seat at the same height, with the floor visible between them.
        let seats = Plane(normal: SIMD3(0, -1, 0), offset: 0.6)
        let scene = PlaneFixtures.render(width: 640, height: 480, intrinsics: Self.camera, surfaces: [
            (seats, { ($0.x < -0.4 || $0.x > 0.4) && $0.z < 3 }), (Self.floor, { _ in true }),
        ])
        let found = try PlaneDetector().detect(in: scene.depth, intrinsics: Self.camera)
        let level = found.planes.filter { abs($0.plane.offset - 0.6) < 0.01 }
        #expect(level.count == 2)
        #expect(Set(level.map { $0.center.x > 0 }) == [false, true])
    }

    @Test func aSurfaceCutInTwoByAnObjectInFrontStaysOnePlane() throws {
        // A table top with a box standing on it that hides a band across the whole view.
        let top = Plane(normal: SIMD3(0, -1, 0), offset: 0.6)
        let boxFront = Plane(normal: SIMD3(0, 0, -1), offset: 1.8)
        let scene = PlaneFixtures.render(width: 640, height: 480, intrinsics: Self.camera, surfaces: [
            (top, { $0.z < 4 }), (boxFront, { abs($0.x) < 0.25 && $0.y < 0.6 && $0.y > -1 }), (Self.floor, { _ in true }),
        ])
        let found = try PlaneDetector().detect(in: scene.depth, intrinsics: Self.camera)
        let level = found.planes.filter { abs($0.plane.offset - 0.6) < 0.01 }
        #expect(level.count == 1)
    }

    @Test(.enabled(if: SharedDatasets.has("pcl_pointclouds/office1_depth_mm.png"))) func theSameSeedGivesTheSamePlanes() throws {
        let path = try #require(SharedDatasets.path("pcl_pointclouds/office1_depth_mm.png"))
        let depth = try DepthImage(contentsOf: path)
        let camera = Intrinsics(fx: 525, fy: 525, cx: 320.5, cy: 240.5)
        let a = try PlaneDetector().detect(in: depth, intrinsics: camera)
        let b = try PlaneDetector().detect(in: depth, intrinsics: camera)
        #expect(a.labels == b.labels)
        #expect(a.planes.map(\.plane) == b.planes.map(\.plane))
    }

    @Test func invalidDepthIsIgnored() throws {
        let scene = PlaneFixtures.render(width: 320, height: 240, intrinsics: Intrinsics(fx: 262.5, fy: 262.5, cx: 160, cy: 120),
                                         surfaces: [(Self.floor, { _ in true }), (Self.wall, { _ in true })])
        var metres = scene.depth.metres
        var generator = SeededGenerator(seed: 3)
        for i in metres.indices where Double.random(in: 0..<1, using: &generator) < 0.3 {
            metres[i] = [Float.nan, .infinity, -1, 0][i % 4]
        }
        let depth = DepthImage(width: 320, height: 240, metres: metres)
        #expect(depth.metres.allSatisfy { $0.isFinite && $0 >= 0 })
        let found = try PlaneDetector().detect(in: depth, intrinsics: Intrinsics(fx: 262.5, fy: 262.5, cx: 160, cy: 120))
        #expect(found.planes.count == 2)
        for i in depth.metres.indices where depth.metres[i] == 0 { #expect(found.labels[i] == 0) }
        #expect(found.planes.allSatisfy { min(PlaneFixtures.degrees($0.plane.normal, Self.floor.normal),
                                               PlaneFixtures.degrees($0.plane.normal, Self.wall.normal)) < 0.01 })
    }

    @Test func depthImagesReadAtTheirScale() throws {
        let scratch = try Scratch()
        let millimetres: [UInt16] = [0, 1000, 2500, 65535]
        try Raster.writeUInt16(millimetres, width: 2, height: 2, to: scratch.path("d.png"))
        #expect(try DepthImage(contentsOf: scratch.path("d.png")).metres == [0, 1, 2.5, 65.535])
        let tum = try DepthImage(contentsOf: scratch.path("d.png"), scale: 0.0002).metres
        for (value, expected) in zip(tum, [0, 0.2, 0.5, 13.107] as [Float]) { #expect(abs(value - expected) < 1e-6) }
        let gray = Image(width: 2, height: 2, channels: 1, pixels: [1, 2, 3, 4])
        try gray.write(to: scratch.path("g.png"))
        #expect(throws: WaymarkError.self) { _ = try DepthImage(contentsOf: scratch.path("g.png")) }
        #expect(throws: WaymarkError.self) { _ = try DepthImage(contentsOf: scratch.path("d.png"), scale: -1) }
    }
}
