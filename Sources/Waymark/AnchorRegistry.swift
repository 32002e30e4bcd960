/// Every anchor of a session's world and the identifiers they take: plane anchors (kept by the
/// plane map), named anchors placed on them, reference images placed where they were first
/// seen, and a loaded map's anchors (kept as stored). One `AnchorIdentifiers` hands out every
/// identifier, above the loaded map's, so no two anchors share one.
struct AnchorRegistry {
    private(set) var planes: PlaneMap
    /// A loaded world map's anchors: restored as stored when the camera is found in its world.
    private(set) var loaded: [WorldAnchor]
    /// Reference images placed in this session (the first pose they were seen at).
    private(set) var images: [WorldAnchor] = []
    /// The anchor identifier of each object placed on the planes (`PlacedObject.id` → id).
    private var namedIDs: [Int: Int] = [:]
    private var identifiers: AnchorIdentifiers

    init(planeOptions: PlaneMapOptions, loaded: [WorldAnchor]) {
        planes = PlaneMap(options: planeOptions)
        self.loaded = loaded
        identifiers = AnchorIdentifiers(after: loaded.map(\.id).max() ?? 0)
    }

    /// Every anchor, in the world.
    var all: [WorldAnchor] { loaded + images + planes.anchors.map(WorldAnchor.init(plane:)) + named }

    /// The named anchors of objects placed in this session, each on its surface as it is now.
    var named: [WorldAnchor] {
        planes.objects.compactMap { object in
            namedIDs[object.id].map { WorldAnchor(named: object, id: $0, on: object.anchorID.flatMap(planes.anchor(id:))) }
        }
    }

    /// The image anchor of a reference, loaded or placed in this session.
    func image(named name: String) -> WorldAnchor? {
        (loaded + images).first { $0.kind == .image && $0.name == name }
    }

    /// Gravity for the world's surfaces from now on (`PlaneMapOptions.down`); refused (false)
    /// once a surface has been seen or an object placed: what was judged by one gravity is not
    /// judged again by another.
    mutating func measuredDown(_ down: SIMD3<Double>) -> Bool {
        guard planes.anchors.isEmpty, planes.candidates.isEmpty, planes.objects.isEmpty else { return false }
        var options = planes.options
        options.down = down
        planes = PlaneMap(options: options)
        return true
    }

    /// Joins one frame's planes to the world's.
    mutating func integrate(_ detection: PlaneDetection, cameraToWorld: RigidTransform) -> PlaneMap.Update {
        planes.integrate(detection, cameraToWorld: cameraToWorld, identifiers: &identifiers)
    }

    /// A named anchor where `ray` meets the surfaces; nil when it meets nothing.
    mutating func place(_ name: String, along ray: Ray) -> WorldAnchor? {
        guard let object = planes.place(name, along: ray) else { return nil }
        let id = identifiers.take()
        namedIDs[object.id] = id
        return WorldAnchor(named: object, id: id, on: object.anchorID.flatMap(planes.anchor(id:)))
    }

    /// An image anchor for the reference `name`, seen at `transform` (image-to-world).
    mutating func addImage(named name: String, transform: RigidTransform, extent: SIMD2<Double>) -> WorldAnchor {
        let anchor = WorldAnchor(id: identifiers.take(), kind: .image, name: name, transform: transform, extent: extent)
        images.append(anchor)
        return anchor
    }

    /// Moves every anchor with the path a closed loop corrected (each with the keyframe whose
    /// camera was nearest it); returns those that moved, as they are now.
    mutating func correct(_ loop: LoopClosure) -> [WorldAnchor] {
        let before = Dictionary(all.map { ($0.id, $0.transform) }, uniquingKeysWith: { first, _ in first })
        func move(_ anchors: inout [WorldAnchor]) {
            for k in anchors.indices {
                let c = loop.correction(near: anchors[k].transform.translationVector)
                if c != .identity { anchors[k].transform = (c * anchors[k].transform).orthonormalized }
            }
        }
        move(&loaded)
        move(&images)
        planes.correct { loop.correction(near: $0) }
        return all.filter { before[$0.id] != $0.transform }
    }

    /// A new world: every anchor gone (identifiers keep counting, so none is reused).
    mutating func removeAll() {
        loaded = []
        images = []
        namedIDs = [:]
        _ = planes.reset()
    }
}
