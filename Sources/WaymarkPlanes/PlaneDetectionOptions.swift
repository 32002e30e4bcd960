import WaymarkCore

/// How far a point may lie from its plane: `base + perSquareMetre · z²` metres at depth z, the
/// shape of structured-light and stereo depth noise (it grows with the square of the depth).
public struct DistanceTolerance: Sendable, Equatable {
    public var base: Double
    public var perSquareMetre: Double

    public init(base: Double, perSquareMetre: Double = 0) {
        precondition(base > 0 && perSquareMetre >= 0, "a distance tolerance is positive")
        self.base = base
        self.perSquareMetre = perSquareMetre
    }

    /// Kinect-class depth cameras: 9 mm at 1 m, 18 mm at 2 m, 33 mm at 3 m.
    public static let depthCamera = DistanceTolerance(base: 0.006, perSquareMetre: 0.003)

    @inline(__always)
    func at(depth z: Float) -> Float { Float(base) + Float(perSquareMetre) * z * z }
}

public struct PlaneDetectionOptions: Sendable, Equatable {
    public var tolerance = DistanceTolerance.depthCamera
    /// Side of the square pixel cells whose local fits seed the search (organized input).
    public var cellSize = 12
    /// A cell joins a plane only if its own normal is within this angle of the plane's.
    public var maximumCellAngleDegrees = 89.0
    /// Smallest plane, as a share of the input's valid points.
    public var minimumShare = 0.005
    /// Smallest plane in points, whatever the share.
    public var minimumPoints = 300
    public var maximumPlanes = 16
    /// Unorganized clouds: points closer than this belong to one connected surface.
    public var neighbourDistance = 0.05
    /// Normals within this angle of gravity (or perpendicular to it) count as horizontal (vertical).
    public var alignmentToleranceDegrees = 10.0
    public var seed: UInt64 = 1

    public init() {}

    /// Checks the options once, at the edge.
    public func validated() throws(WaymarkError) -> PlaneDetectionOptions {
        guard cellSize >= 3, cellSize <= 64 else { throw WaymarkError(.usage, "the cell size must be 3 to 64 pixels") }
        guard maximumCellAngleDegrees > 0, maximumCellAngleDegrees < 90, alignmentToleranceDegrees > 0,
            alignmentToleranceDegrees < 45
        else { throw WaymarkError(.usage, "angles must lie between 0 and 90 degrees (alignment: 0 to 45)") }
        guard minimumShare >= 0, minimumShare < 1, minimumPoints >= 3, maximumPlanes > 0 else {
            throw WaymarkError(.usage, "plane sizes and counts must be positive")
        }
        guard neighbourDistance >= 1e-6, neighbourDistance <= 1e3 else {
            throw WaymarkError(.usage, "the neighbour distance must be between a micrometre and a kilometre")
        }
        return self
    }
}

extension PlaneDetectionOptions {
    /// Planes among a monocular map's points for its gravity (`SceneGravity`) and for the floor
    /// under the camera: a few hundred triangulated corners, far apart on a plain floor. A plane
    /// needs 60 of them (and 5 % of the points), within 1 cm + 0.25 % of the squared distance of
    /// it (in the map's unit until its scale is known), linked by steps under 40 cm. Its surfaces
    /// use the wider `sparseSurfaces`.
    public static let sparse: PlaneDetectionOptions = {
        var options = PlaneDetectionOptions()
        options.tolerance = DistanceTolerance(base: 0.01, perSquareMetre: 0.0025)
        options.minimumPoints = 60
        options.minimumShare = 0.05
        options.neighbourDistance = 0.4
        options.maximumPlanes = 8
        return options
    }()

    /// The surfaces anchored among a metric monocular map's points (`sparse` looks for the
    /// scene's gravity and floor): 2 cm + 1.2 % of the squared distance. A triangulated
    /// depth's error grows with its square: on the walk-through's scan the points spread 7.8 cm
    /// about the north wall 3–4 m away, and within `sparse`'s tolerance the wall came apart
    /// into parallel slabs up to 10 cm off, each an anchor (Benchmarks/RESULTS.md). Not for
    /// points cleaner than that: with 5 mm noise, clutter within the wider tolerance tilted a
    /// table top 4°.
    public static let sparseSurfaces: PlaneDetectionOptions = {
        var options = sparse
        options.tolerance = DistanceTolerance(base: 0.02, perSquareMetre: 0.012)
        return options
    }()
}
