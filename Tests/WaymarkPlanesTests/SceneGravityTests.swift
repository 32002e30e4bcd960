import Foundation
import Testing
import WaymarkCore
import WaymarkPlanes

/// Gravity from the planes of a room seen by a camera pitched and rolled: points scattered on
/// the floor, two walls at right angles and a table top (with 5 mm noise), and clutter, as a
/// monocular map holds them, in the camera's coordinates.
@Suite struct SceneGravityTests {
    /// The camera pitched down 20° and rolled 8°: gravity in its coordinates.
    static let camera = RigidTransform(rotation: rotation(pitch: 20, roll: 8), translation: [0, 0, 0])
    static let trueDown = camera.applyInverseRotation(SIMD3(0, -1, 0))

    /// A room (y up, floor at 0, camera at 1.4 m) in the camera's coordinates.
    static func room(surfaces: Set<String>, seed: UInt64 = 7) -> [SIMD3<Float>] {
        var generator = SeededGenerator(seed: seed)
        func noise() -> Double { Double.random(in: -0.005...0.005, using: &generator) }
        func uniform(_ range: ClosedRange<Double>) -> Double { Double.random(in: range, using: &generator) }
        var world: [SIMD3<Double>] = []
        for _ in 0..<400 {
            if surfaces.contains("floor") { world.append(SIMD3(uniform(-1.5...1.5), noise(), uniform(1...4))) }
            if surfaces.contains("north") { world.append(SIMD3(uniform(-1.5...1.5), uniform(0...2.5), 4 + noise())) }
            if surfaces.contains("west") { world.append(SIMD3(-1.5 + noise(), uniform(0...2.5), uniform(1...4))) }
            if surfaces.contains("table") { world.append(SIMD3(uniform(0...0.8), 0.75 + noise(), uniform(2...2.8))) }
        }
        for _ in 0..<150 { world.append(SIMD3(uniform(-1.4...1.4), uniform(0.1...2.4), uniform(1.2...3.9))) }
        let eye = SIMD3<Double>(0, 1.4, 0)
        return world.map { SIMD3<Float>(camera.applyInverse($0 - eye)) }
    }

    static func planes(_ points: [SIMD3<Float>]) throws -> [DetectedPlane] {
        try PlaneDetector(options: .sparse).detect(in: PointCloud(points: points), down: SIMD3(0, 1, 0)).planes
    }

    /// With the floor and a wall, or two walls, or all of them, gravity within 1° of the truth,
    /// though the camera's own +y is 21° from it.
    @Test(arguments: [["floor", "north"], ["north", "west"], ["floor", "north", "west", "table"]])
    func aRoomsPlanesGiveGravity(_ surfaces: [String]) throws {
        let down = try #require(SceneGravity.estimate(from: try Self.planes(Self.room(surfaces: Set(surfaces))),
                                                      assumed: SIMD3(0, 1, 0)))
        #expect(Self.degrees(down, Self.trueDown) < 1, "\(surfaces): \(Self.degrees(down, Self.trueDown))°")
        #expect(Self.degrees(SIMD3(0, 1, 0), Self.trueDown) > 20)
    }

    /// One plane, or parallel ones, leave gravity free to turn about their normal: no answer.
    @Test func oneDirectionIsNotEnough() throws {
        #expect(SceneGravity.estimate(from: try Self.planes(Self.room(surfaces: ["floor", "table"])), assumed: SIMD3(0, 1, 0)) == nil)
        #expect(SceneGravity.estimate(from: try Self.planes(Self.room(surfaces: ["north"])), assumed: SIMD3(0, 1, 0)) == nil)
    }

    /// Points on a plane through the camera 8° from level (a map's eye-level points, as on the
    /// coaching walk-through, whose camera keeps its height), more of them than on both walls:
    /// seen edge-on, the plane is passed over and the walls give gravity within 1°, where the
    /// plane's own normal is more than 7° from it.
    @Test func aPlaneThroughTheCameraIsNoFloor() throws {
        var generator = SeededGenerator(seed: 3)
        let tilt = tan(8 * Double.pi / 180)
        let eyeLevel = (0..<1000).map { _ in
            let (x, z) = (Double.random(in: -1.5...1.5, using: &generator), Double.random(in: 1...4, using: &generator))
            return SIMD3<Float>(Self.camera.applyInverse(SIMD3(x, tilt * z, z)))
        }
        let planes = try Self.planes(Self.room(surfaces: ["north", "west"]) + eyeLevel)
        let throughCamera = try #require(planes.first { $0.isSeenEdgeOn }, "the eye-level plane was not detected")
        #expect(throughCamera.inlierCount > planes.filter { !$0.isSeenEdgeOn }.map(\.inlierCount).reduce(0, +))
        let down = try #require(SceneGravity.estimate(from: planes, assumed: SIMD3(0, 1, 0)))
        #expect(Self.degrees(down, Self.trueDown) < 1, "\(Self.degrees(down, Self.trueDown))°")
        let levelByIt = Self.degrees(throughCamera.plane.normal, Self.trueDown)
        #expect(min(levelByIt, 180 - levelByIt) > 7)
    }

    static func degrees(_ a: SIMD3<Double>, _ b: SIMD3<Double>) -> Double {
        acos(min(1, max(-1, (a * b).sum() / ((a * a).sum() * (b * b).sum()).squareRoot()))) * 180 / .pi
    }

    /// Camera-to-world rotation (row-major) of a camera (x right, y down, z forward) in a
    /// y-up world, looking along +z, pitched down by `pitch` and rolled by `roll` degrees.
    static func rotation(pitch: Double, roll: Double) -> [Double] {
        let (p, r) = (pitch * .pi / 180, roll * .pi / 180)
        // Level camera: x → (1,0,0), y (down) → (0,-1,0), z → (0,0,1). Roll about z, then pitch about x.
        func turn(_ v: SIMD3<Double>) -> SIMD3<Double> {
            let rolled = SIMD3(v.x * cos(r) - v.y * sin(r), v.x * sin(r) + v.y * cos(r), v.z)
            let level = SIMD3(rolled.x, -rolled.y, rolled.z)
            return SIMD3(level.x, level.y * cos(p) - level.z * sin(p), level.y * sin(p) + level.z * cos(p))
        }
        let (x, y, z) = (turn(SIMD3(1, 0, 0)), turn(SIMD3(0, 1, 0)), turn(SIMD3(0, 0, 1)))
        return [x.x, y.x, z.x, x.y, y.y, z.y, x.z, y.z, z.z]
    }
}
