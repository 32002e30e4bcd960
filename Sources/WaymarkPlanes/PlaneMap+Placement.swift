import WaymarkCore

/// A ray in world coordinates; `direction` need not be unit length.
public struct Ray: Sendable, Equatable {
    public var origin: SIMD3<Double>
    public var direction: SIMD3<Double>

    public init(origin: SIMD3<Double>, direction: SIMD3<Double>) {
        precondition((direction * direction).sum() > 0, "a ray needs a direction")
        self.origin = origin
        self.direction = normalize(direction)
    }

    /// The ray through a pixel (pixel centres at +0.5) of a camera at `cameraToWorld`.
    public init(pixel: SIMD2<Double>, intrinsics: Intrinsics, cameraToWorld: RigidTransform) {
        let inCamera = SIMD3((pixel.x - intrinsics.cx) / intrinsics.fx, (pixel.y - intrinsics.cy) / intrinsics.fy, 1)
        let origin = cameraToWorld.apply(.zero)
        self.init(origin: origin, direction: cameraToWorld.apply(inCamera) - origin)
    }
}

public struct RaycastHit: Sendable, Equatable {
    public var point: SIMD3<Double>
    public var normal: SIMD3<Double>
    /// The anchor hit; nil for a guess.
    public var anchorID: Int?
    /// A guess: a plane seen but not yet established, or, before any plane was seen, a floor
    /// assumed 1.4 m below the ray's origin.
    public var isEstimated: Bool
    /// Whether the point lies inside the anchor's outline.
    public var isWithinBoundary: Bool
}

/// An object a person placed: it stays on its anchor and moves when the anchor is refined.
public struct PlacedObject: Sendable, Equatable {
    public let id: Int
    public var name: String
    public internal(set) var position: SIMD3<Double>
    public internal(set) var anchorID: Int?
    /// Placed on a guess; refined when a plane along its ray is established.
    public internal(set) var isEstimated: Bool
    var ray: Ray
}

extension PlaneMap {
    /// Height of the assumed floor below the camera before any plane is seen (a standing person's phone).
    public static let assumedCameraHeight = 1.4
    /// How far inside the outline a position outside it is pulled back to (metres).
    public static let pullBackMargin = 0.05

    /// The first plane along `ray`: an anchor whose outline contains the hit, else the nearest
    /// anchor plane the ray meets (outside its outline), else a candidate plane or the assumed
    /// floor (estimated). Nil when nothing is in front of the ray.
    public func raycast(_ ray: Ray) -> RaycastHit? {
        var inside: (t: Double, hit: RaycastHit)?
        var outside: (t: Double, hit: RaycastHit)?
        for anchor in anchors {
            guard let (t, point) = intersect(ray, anchor.surface.plane) else { continue }
            let within = anchor.surface.outlineContains(point)
            let hit = RaycastHit(point: point, normal: anchor.surface.plane.normal, anchorID: anchor.id,
                                 isEstimated: false, isWithinBoundary: within)
            if within, t < inside?.t ?? .infinity { inside = (t, hit) }
            if !within, t < outside?.t ?? .infinity { outside = (t, hit) }
        }
        if let hit = inside?.hit ?? outside?.hit { return hit }
        let guesses = candidates.sorted { $0.surface.inlierCount > $1.surface.inlierCount }.map(\.surface.plane)
            + [Plane(normal: -options.down, offset: -(-options.down * ray.origin).sum() + Self.assumedCameraHeight)]
        for plane in guesses {
            if let (_, point) = intersect(ray, plane) {
                return RaycastHit(point: point, normal: plane.facing(ray.origin).normal, anchorID: nil, isEstimated: true,
                                  isWithinBoundary: false)
            }
        }
        return nil
    }

    /// Places an object where `ray` meets the planes (see `raycast`), pulled back inside the
    /// anchor's outline when it falls beyond it. Nil when the ray meets nothing.
    public mutating func place(_ name: String, along ray: Ray) -> PlacedObject? {
        guard let hit = raycast(ray) else { return nil }
        var object = PlacedObject(id: objects.count + 1, name: name, position: hit.point, anchorID: hit.anchorID,
                                  isEstimated: hit.isEstimated, ray: ray)
        if let id = hit.anchorID, let anchor = anchor(id: id) { object.position = settle(hit.point, on: anchor.surface) }
        objects.append(object)
        return object
    }

    /// After an update: objects follow their anchors (into the survivor of a merge), and
    /// objects placed on a guess move onto the plane now established along their ray.
    mutating func refreshObjects(mergedInto survivors: [Int: Int]) {
        for index in objects.indices {
            var object = objects[index]
            if var id = object.anchorID {
                while let survivor = survivors[id] { id = survivor }
                object.anchorID = id
                if let anchor = anchor(id: id) { object.position = settle(object.position, on: anchor.surface) }
            } else if let hit = raycast(object.ray), let id = hit.anchorID, let anchor = anchor(id: id) {
                object.anchorID = id
                object.isEstimated = false
                object.position = settle(hit.point, on: anchor.surface)
            }
            objects[index] = object
        }
    }

    /// `point` projected onto the surface and, if outside its outline, pulled back inside it
    /// (to `pullBackMargin` within the edge; points already inside are left where they are).
    func settle(_ point: SIMD3<Double>, on surface: DetectedPlane) -> SIMD3<Double> {
        var p = surface.planeCoordinates(of: point)
        if !PlaneOutline.contains(surface.boundary, p), surface.boundary.count >= 3 {
            let edge = PlaneOutline.closestPoint(to: p, on: surface.boundary).point
            let centre = surface.boundary.reduce(.zero, +) / Double(surface.boundary.count)
            let inward = centre - edge
            let length = (inward * inward).sum().squareRoot()
            p = length > 0 ? edge + inward * min(1, Self.pullBackMargin / length) : edge
        }
        return surface.point(atPlaneCoordinates: p)
    }

    private func intersect(_ ray: Ray, _ plane: Plane) -> (Double, SIMD3<Double>)? {
        let along = (plane.normal * ray.direction).sum()
        guard abs(along) > 1e-9 else { return nil }
        let t = -plane.signedDistance(to: ray.origin) / along
        return t > 0 ? (t, ray.origin + t * ray.direction) : nil
    }
}
