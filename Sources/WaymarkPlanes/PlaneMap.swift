import WaymarkCore

/// A plane kept in the world over many frames.
public struct PlaneAnchor: Sendable {
    /// Stable for the anchor's life; given when the plane is established (seen in enough frames).
    public internal(set) var id: Int
    /// The plane in world coordinates, with its outline, extent, alignment and classification
    /// (the normal faces the side it was seen from).
    public internal(set) var surface: DetectedPlane
    /// Frames the plane was seen in.
    public internal(set) var observations: Int
    /// Index of the last frame it was seen in.
    public internal(set) var lastSeen: Int
    /// Outline points in the world, accumulated over observations.
    var outline: [SIMD3<Double>]
    var viewpoint: SIMD3<Double>
}

public enum PlaneEvent: Sendable, Equatable {
    case added(id: Int)
    /// The plane's geometry changed (refit, grown outline).
    case updated(id: Int)
    /// `absorbed` turned out to be part of `into`; `absorbed` no longer exists.
    case merged(absorbed: Int, into: Int)
    case removed(id: Int)
}

public struct PlaneMapOptions: Sendable, Equatable {
    /// An observation joins an anchor whose normal is this close…
    public var maximumAngleDegrees = 10.0
    /// …whose plane passes this close to the observation's centre (metres)…
    public var maximumOffset = 0.06
    /// …and whose outline comes this close to the observation's (metres).
    public var maximumGap = 0.1
    /// Frames a plane must be seen in before it becomes an anchor.
    public var establishingObservations = 2
    /// The same for planes found among a monocular map's points (on its keyframes), which are
    /// less sure: on the walk-through's scan, with 2, two stray walls 2 m from any surface were
    /// anchored after two sightings each (then each piece of a frame counted as one); with 3
    /// every anchor lay within 11 cm of a true surface (Benchmarks/RESULTS.md).
    public var establishingObservationsFromPoints = 3
    /// `maximumOffset` for planes found among a monocular map's points, whose search allows
    /// 17 cm at 3.5 m (`PlaneDetectionOptions.sparseSurfaces`): on the walk-through's scans a
    /// piece of the north wall 11–16 cm in front of it stayed an anchor of its own.
    public var maximumOffsetFromPoints = 0.2
    /// Horizontal anchors perpendicular to gravity and vertical ones parallel to it (as ARKit's
    /// are), for planes less sure of their direction than of their place: on the walk-through's
    /// scan, a table top among a monocular map's points came 3.3° off unsnapped, 0.9° snapped
    /// to the accelerometer's gravity (Benchmarks/RESULTS.md). Only where gravity is measured
    /// or given.
    public var snapsToGravity = false
    /// A plane not yet established is forgotten after this many frames unseen.
    public var candidateLifetime = 15
    /// Gravity in world coordinates (world y up).
    public var down = SIMD3<Double>(0, -1, 0)
    public var alignmentToleranceDegrees = 10.0

    public init() {}
}

/// Plane anchors in a world frame, fed by per-frame detections and camera poses: observations
/// of one surface merge into one anchor with a stable identifier, outlines grow, and anchors
/// that turn out to be one surface merge (the older one survives).
public struct PlaneMap: Sendable {
    public let options: PlaneMapOptions
    /// Established anchors, by identifier.
    public private(set) var anchors: [PlaneAnchor] = []
    /// Planes seen, not yet in enough frames to be anchors (placement's best guesses).
    public private(set) var candidates: [PlaneAnchor] = []
    /// Objects placed with `place(_:along:)`.
    public internal(set) var objects: [PlacedObject] = []
    private var frame = -1

    /// `options.down` may have any length (not zero); the map keeps it as a unit vector.
    public init(options: PlaneMapOptions = PlaneMapOptions()) {
        precondition((options.down * options.down).sum() > 0, "gravity needs a direction")
        var options = options
        options.down = normalize(options.down)
        self.options = options
    }

    /// What one frame changed.
    public struct Update: Sendable {
        public var events: [PlaneEvent]
        /// Per detected plane, in the detection's order: the anchor it became part of, or nil
        /// while it is still a candidate.
        public var anchorIDs: [Int?]
    }

    /// Adds one frame's planes, seen from `cameraToWorld`; a new anchor takes its identifier
    /// from `identifiers`, which the world's other anchors share.
    public mutating func integrate(_ detection: PlaneDetection, cameraToWorld: RigidTransform,
                                   identifiers: inout AnchorIdentifiers) -> Update
    {
        frame += 1
        let camera = cameraToWorld.translationVector
        var events: [PlaneEvent] = []
        var touched = Set<Int>()
        var assigned: [Int?] = []
        for observed in detection.planes {
            assigned.append(nil)
            let moments = observed.inliers.transformed(by: cameraToWorld)
            let outline = observed.boundaryPoints.map { cameraToWorld.apply($0) }
            guard let world = makeSurface(moments, outline: outline, viewpoint: camera) else { continue }
            var all = anchors + candidates
            let matches = all.indices.filter { agree(all[$0].surface, world) }
            if matches.isEmpty {
                candidates.append(PlaneAnchor(id: 0, surface: world, observations: 1, lastSeen: frame, outline: outline,
                                              viewpoint: camera))
                continue
            }
            // The oldest match survives: established anchors by identifier first, then candidates.
            var survivor = all[matches[0]]
            for index in matches.dropFirst() {
                let absorbed = all[index]
                survivor = combine(survivor, absorbed)
                if absorbed.id != 0 {
                    if survivor.id == 0 { survivor.id = absorbed.id } else { events.append(.merged(absorbed: absorbed.id, into: survivor.id)) }
                }
            }
            survivor.outline += outline
            survivor.surface.inliers = survivor.surface.inliers + moments
            // Pieces of one surface in one frame are one sighting.
            if survivor.lastSeen != frame { survivor.observations += 1 }
            survivor.lastSeen = frame
            survivor.viewpoint = camera
            if let refreshed = makeSurface(survivor.surface.inliers, outline: survivor.outline, viewpoint: camera) {
                survivor.surface = refreshed
                survivor.outline = refreshed.boundaryPoints
            }
            let removed = Set(matches)
            all = all.indices.filter { !removed.contains($0) }.map { all[$0] }
            if survivor.id == 0, survivor.observations >= options.establishingObservations {
                survivor.id = identifiers.take()
                events.append(.added(id: survivor.id))
            } else if survivor.id != 0 {
                touched.insert(survivor.id)
            }
            assigned[assigned.count - 1] = survivor.id == 0 ? nil : survivor.id
            all.append(survivor)
            anchors = all.filter { $0.id != 0 }.sorted { $0.id < $1.id }
            candidates = all.filter { $0.id == 0 }
        }
        candidates.removeAll { frame - $0.lastSeen > options.candidateLifetime }
        let merged = Set(events.compactMap { if case .merged(let absorbed, _) = $0 { absorbed } else { nil } })
        let added = Set(events.compactMap { if case .added(let id) = $0 { id } else { nil } })
        events += touched.subtracting(merged).subtracting(added).sorted().map { PlaneEvent.updated(id: $0) }
        classify()
        var survivors: [Int: Int] = [:]
        for case .merged(let absorbed, let into) in events { survivors[absorbed] = into }
        refreshObjects(mergedInto: survivors)
        let ids = assigned.map { id -> Int? in
            guard var id else { return nil }
            while let survivor = survivors[id] { id = survivor }
            return id
        }
        return Update(events: events, anchorIDs: ids)
    }

    /// Forgets every plane (a new world).
    public mutating func reset() -> [PlaneEvent] {
        let events = anchors.map { PlaneEvent.removed(id: $0.id) }
        anchors = []
        candidates = []
        objects = []
        return events
    }

    public func anchor(id: Int) -> PlaneAnchor? { anchors.first { $0.id == id } }

    /// Moves each plane (and each object placed on one) by the rigid correction `correction`
    /// gives for its centre, as when a loop closes and the path the planes were seen from is
    /// corrected.
    public mutating func correct(by correction: (SIMD3<Double>) -> RigidTransform) {
        func moved(_ plane: PlaneAnchor) -> PlaneAnchor? {
            let c = correction(plane.surface.center)
            guard c != .identity else { return nil }
            var result = plane
            result.outline = plane.outline.map(c.apply)
            result.viewpoint = c.apply(plane.viewpoint)
            guard let surface = makeSurface(plane.surface.inliers.transformed(by: c), outline: result.outline,
                                            viewpoint: result.viewpoint)
            else { return nil }
            result.surface = surface
            result.surface.classification = plane.surface.classification
            return result
        }
        for k in anchors.indices { anchors[k] = moved(anchors[k]) ?? anchors[k] }
        for k in candidates.indices { candidates[k] = moved(candidates[k]) ?? candidates[k] }
        for k in objects.indices {
            let c = correction(objects[k].position)
            objects[k].position = c.apply(objects[k].position)
            objects[k].ray = Ray(origin: c.apply(objects[k].ray.origin), direction: c.applyRotation(objects[k].ray.direction))
        }
    }

    private func makeSurface(_ moments: PointMoments, outline: [SIMD3<Double>], viewpoint: SIMD3<Double>) -> DetectedPlane? {
        PlaneOutline.make(inliers: moments, boundaryPoints: outline, down: options.down,
                          alignmentToleranceDegrees: options.alignmentToleranceDegrees, viewpoint: viewpoint,
                          snapsToGravity: options.snapsToGravity)
    }

    /// Same surface: normals agree, each plane passes near the other's centre, outlines meet.
    private func agree(_ a: DetectedPlane, _ b: DetectedPlane) -> Bool {
        guard a.plane.angle(to: b.plane) <= options.maximumAngleDegrees * .pi / 180 else { return false }
        guard abs(a.plane.signedDistance(to: b.center)) <= options.maximumOffset,
            abs(b.plane.signedDistance(to: a.center)) <= options.maximumOffset
        else { return false }
        let other = b.boundaryPoints.map(a.planeCoordinates)
        return PlaneOutline.gap(between: a.boundary, and: other) <= options.maximumGap
    }

    private func combine(_ a: PlaneAnchor, _ b: PlaneAnchor) -> PlaneAnchor {
        var c = a
        c.surface.inliers = a.surface.inliers + b.surface.inliers
        c.outline = a.outline + b.outline
        c.observations = a.observations + b.observations
        c.lastSeen = max(a.lastSeen, b.lastSeen)
        return c
    }

    private mutating func classify() {
        var surfaces = anchors.map(\.surface)
        SurfaceClassifier.classify(&surfaces, down: options.down)
        for index in anchors.indices { anchors[index].surface.classification = surfaces[index].classification }
    }
}
