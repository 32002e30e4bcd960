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

/// Anchors snapped to gravity (`PlaneMapOptions.snapsToGravity`), on exact planes of points.
@Suite struct PlaneSnappingTests {
    /// Camera coordinates: y points down, the camera at the origin.
    static let down = SIMD3<Double>(0, 1, 0)

    /// A 2.1 m square of points 10 cm apart, centred on `centre`, across the unit `normal`: the
    /// square in z = 0 turned so that +z becomes `normal`.
    static func square(centre: SIMD3<Double>, normal: SIMD3<Double>) -> [SIMD3<Float>] {
        let axis = SIMD3<Double>(-normal.y, normal.x, 0)  // +z × normal
        let length = (axis * axis).sum().squareRoot()
        let degrees = atan2(length, normal.z) * 180 / .pi
        return (-10...10).flatMap { i in
            (-10...10).map { j in
                let p = SIMD3<Double>(0.1 * Double(i), 0.1 * Double(j), 0)
                return SIMD3<Float>(centre + (length < 1e-12 ? p : turned(p, degrees, about: axis)))
            }
        }
    }

    /// `vector` turned by `degrees` about `axis`.
    static func turned(_ vector: SIMD3<Double>, _ degrees: Double, about axis: SIMD3<Double>) -> SIMD3<Double> {
        let r = RigidTransform(rotation: RigidTransform.rotation(rotationVector: unit(axis) * degrees * .pi / 180),
                               translation: [0, 0, 0])
        return r.applyRotation(vector)
    }

    /// The anchor made from the plane's points seen in three frames.
    static func anchor(centre: SIMD3<Double>, normal: SIMD3<Double>, snaps: Bool) throws -> DetectedPlane {
        var options = PlaneMapOptions()
        options.down = down
        options.snapsToGravity = snaps
        var map = PlaneMap(options: options)
        var identifiers = AnchorIdentifiers()
        let detection = try PlaneDetector(options: .sparse).detect(in: PointCloud(points: square(centre: centre, normal: normal)),
                                                                  down: down)
        for _ in 0..<3 { _ = map.integrate(detection, cameraToWorld: .identity, identifiers: &identifiers) }
        return try #require(map.anchors.first).surface
    }

    static func unit(_ v: SIMD3<Double>) -> SIMD3<Double> { v / (v * v).sum().squareRoot() }

    static func degrees(_ a: SIMD3<Double>, _ b: SIMD3<Double>) -> Double {
        acos(min(1, (unit(a) * unit(b)).sum())) * 180 / .pi
    }

    /// A floor 1.5 m below tilted 4° becomes exactly level (to 1e-6°), through the same centre;
    /// without snapping it stays 4° off.
    @Test func aTiltedFloorIsLevelledThroughItsCentre() throws {
        let centre = SIMD3<Double>(0, 1.5, 3)
        let normal = Self.turned(-Self.down, 4, about: SIMD3(1, 0, 0))
        let snapped = try Self.anchor(centre: centre, normal: normal, snaps: true)
        #expect(snapped.alignment == .horizontalUp)
        #expect(Self.degrees(snapped.plane.normal, -Self.down) < 1e-6)
        #expect(abs(snapped.plane.signedDistance(to: centre)) < 1e-6)
        let kept = try Self.anchor(centre: centre, normal: normal, snaps: false)
        #expect(abs(Self.degrees(kept.plane.normal, -Self.down) - 4) < 1e-3)
    }

    /// A wall 3 m ahead, turned 20° about gravity and leaning 4°, stands upright (its normal
    /// perpendicular to gravity to 1e-9) and keeps its 20° turn and its centre.
    @Test func aLeaningWallStandsUprightAndKeepsItsTurn() throws {
        let centre = SIMD3<Double>(0, 0, 3)
        let upright = Self.turned(SIMD3(0, 0, -1), 20, about: Self.down)
        let leaning = Self.turned(upright, 4, about: SIMD3(-upright.z, 0, upright.x))  // upright × down
        let snapped = try Self.anchor(centre: centre, normal: leaning, snaps: true)
        #expect(snapped.alignment == .vertical)
        #expect(abs((snapped.plane.normal * Self.down).sum()) < 1e-9)
        #expect(Self.degrees(snapped.plane.normal, upright) < 1e-6)
        #expect(abs(snapped.plane.signedDistance(to: centre)) < 1e-6)
    }

    /// A ramp 30° from level is neither horizontal nor vertical and keeps its own normal.
    @Test func aRampKeepsItsSlope() throws {
        let centre = SIMD3<Double>(0, 1.5, 3)
        let normal = Self.turned(-Self.down, 30, about: SIMD3(1, 0, 0))
        let snapped = try Self.anchor(centre: centre, normal: normal, snaps: true)
        #expect(snapped.alignment == .other)
        #expect(Self.degrees(snapped.plane.normal, normal) < 1e-6)
    }
}

/// How edge-on the sensor sees a plane (`DetectedPlane.viewingAngleDegrees`), on exact planes of
/// points (`PlaneSnappingTests.square`: 441 points, mean squared distance from the square's
/// centre 0.7333… m²).
@Suite struct PlaneViewingAngleTests {
    static func detected(centre: SIMD3<Double>, normal: SIMD3<Double>) throws -> DetectedPlane {
        let points = PlaneSnappingTests.square(centre: centre, normal: normal)
        return try #require(try PlaneDetector(options: .sparseSurfaces).detect(in: PointCloud(points: points)).planes.first)
    }

    /// asin(offset / root-mean-square distance), to 1e-6°, for a wall 3 m ahead seen face-on
    /// (74.06°) and a floor 1.4 m below centred 3 m ahead (24.2°); a level plane 2 cm below the
    /// camera, as the points of every wall at eye level make one, under 1°.
    @Test func aPlaneThroughTheSensorIsSeenEdgeOn() throws {
        let spread = 2 * 7.7 / 21  // mean squared distance from the square's centre: 7.7 / 21 along each side
        let wall = try Self.detected(centre: SIMD3(0, 0, 3), normal: SIMD3(0, 0, -1))
        #expect(abs(wall.viewingAngleDegrees - asin(3 / (9 + spread).squareRoot()) * 180 / .pi) < 1e-6)
        let floor = try Self.detected(centre: SIMD3(0, 1.4, 3), normal: SIMD3(0, -1, 0))
        #expect(abs(floor.viewingAngleDegrees - asin(1.4 / (1.96 + 9 + spread).squareRoot()) * 180 / .pi) < 1e-6)
        let eyeLevel = try Self.detected(centre: SIMD3(0, 0.02, 3), normal: SIMD3(0, -1, 0))
        #expect(eyeLevel.viewingAngleDegrees < 1)
    }
}
