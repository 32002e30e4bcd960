import Foundation
import Waymark

/// What `process` and `map build` do with each RGB-D frame: track the camera in a world that
/// survives interruptions, anchor the surfaces found in the depth, hide every anchor during an
/// interruption and restore it when the camera is found again, and save the world map at once
/// when an interruption starts (so a process killed during one resumes from the file).
struct SequenceSession {
    let tracker: WorldTracker
    private(set) var planes: PlaneMap
    private let planeOptions: PlaneMapOptions
    private let detector: PlaneDetector
    /// Anchors of a loaded map: restored as stored when the camera is found in its world.
    private(set) var loadedAnchors: [WorldAnchor]
    /// Reference images this session placed in the world (the first pose they were seen at).
    private(set) var imageAnchors: [WorldAnchor] = []
    /// Physical width and height, metres, of the references that have a physical width.
    private let imageExtents: [String: SIMD2<Double>]
    /// The anchor id of each object placed on the planes (`PlacedObject.id` → anchor id).
    private var namedAnchorIDs: [Int: Int] = [:]
    let savePath: String?
    private(set) var interruptions = 0
    private(set) var relocalizations = 0
    /// The last frame's pose; nil when it was unknown.
    private(set) var lastPose: RigidTransform?

    init(intrinsics: Intrinsics, options: WorldTrackingOptions, planeOptions: PlaneMapOptions, loadedMap: WorldMap?,
         savePath: String?, references: [ReferenceImage] = []) throws(WaymarkError)
    {
        var extents: [String: SIMD2<Double>] = [:]
        for reference in references {
            guard let width = reference.entry.physicalWidth else { continue }
            extents[reference.name] = SIMD2(width, width * Double(reference.height) / Double(reference.width))
        }
        imageExtents = extents
        tracker = WorldTracker(intrinsics: intrinsics, options: options, map: loadedMap)
        loadedAnchors = loadedMap?.anchors ?? []
        var planeOptions = planeOptions
        planeOptions.firstID = (loadedAnchors.map(\.id).max() ?? 0) + 1
        self.planeOptions = planeOptions
        planes = PlaneMap(options: planeOptions)
        detector = try PlaneDetector()
        self.savePath = savePath
    }

    /// Every anchor of the session, in the world.
    var anchors: [WorldAnchor] {
        loadedAnchors + imageAnchors + planes.anchors.map(WorldAnchor.init(plane:)) + planes.objects.compactMap { object in
            namedAnchorIDs[object.id].map { WorldAnchor(named: object, id: $0, on: object.anchorID.flatMap(planes.anchor(id:))) }
        }
    }

    /// Places a named anchor where the ray through `pixel` of the last frame meets the
    /// surfaces (as a person taps the screen): the `added` event, or nil when the camera's pose
    /// is unknown or the ray meets nothing.
    mutating func place(_ name: String, pixel: SIMD2<Double>, intrinsics: Intrinsics) -> JSONValue? {
        guard let pose = lastPose,
            let object = planes.place(name, along: Ray(pixel: pixel, intrinsics: intrinsics, cameraToWorld: pose))
        else { return nil }
        let id = planes.reserveIdentifier()
        namedAnchorIDs[object.id] = id
        return Self.anchorRecord(WorldAnchor(named: object, id: id, on: object.anchorID.flatMap(planes.anchor(id:))), event: "added")
    }

    /// Writes the world map with every anchor to `savePath`, if there is one.
    func save() throws(WaymarkError) {
        guard let savePath else { return }
        tracker.map.anchors = anchors
        try tracker.map.write(to: savePath)
    }

    /// An interruption the caller knows of (dropped frames, the app paused): the fields of its
    /// record (the tracking events and the anchors hidden), empty when one is already under way.
    mutating func pause() throws(WaymarkError) -> [(String, JSONValue)] {
        let events = tracker.pause()
        guard !events.isEmpty else { return [] }
        let anchorEvents = try handle(events)
        return [("events", .array(events.map(Self.record))), ("anchorEvents", .array(anchorEvents))]
    }

    /// Tracks one frame, anchors its planes and the reference images `detections` place; the
    /// record's fields. While relocalizing, a detected reference image whose world pose an
    /// anchor holds is another way back.
    mutating func process(timestamp: Double, gray: Image, depth: DepthImage, recordedPose: RigidTransform?,
                          intrinsics: Intrinsics, detections: [ImageDetection] = []) throws(WaymarkError) -> [(String, JSONValue)]
    {
        let frame = TrackingFrame(timestamp: timestamp, gray: gray, depth: depth.metres, recordedPose: recordedPose)
        var update = tracker.track(frame)
        let seen = detections.filter { $0.state != .lost && $0.confidence >= Self.imageConfidence && $0.pose != nil }
        if update.cameraToWorld == nil, tracker.isRelocalizing {
            for detection in seen {
                guard let anchor = imageAnchor(named: detection.name),
                    let adopted = tracker.adopt(anchor.transform * detection.pose!.inverse, for: frame, anchor: anchor.id,
                                                replacing: update)
                else { continue }
                update = adopted
                break
            }
        }
        lastPose = update.cameraToWorld
        var anchorEvents = try handle(update.events)
        if let pose = update.cameraToWorld, update.state == .normal {
            for detection in seen where imageAnchor(named: detection.name) == nil {
                guard let extent = imageExtents[detection.name] else { continue }
                let anchor = WorldAnchor(id: planes.reserveIdentifier(), kind: .image, name: detection.name,
                                         transform: pose * detection.pose!, extent: extent)
                imageAnchors.append(anchor)
                anchorEvents.append(Self.anchorRecord(anchor, event: "added"))
            }
        }
        var fields: [(String, JSONValue)] = [
            ("pose", update.cameraToWorld.map { .numbers($0.matrix) } ?? .null),
            ("tracking", .object([("state", .string(update.state.name)),
                                  ("reason", update.state.reason.map { .string($0.rawValue) } ?? .null)])),
            ("mapping", .string(update.mapping.rawValue)),
            ("events", .array(update.events.map(Self.record))),
        ]
        if let attempt = update.relocalization {
            fields.append(("relocalization", .object([("reason", .string(attempt.reason.rawValue)), ("inliers", .int(attempt.inliers))])))
        }
        let detection = detector.detect(
            in: depth, intrinsics: intrinsics,
            down: update.cameraToWorld.map { $0.applyInverseRotation(planeOptions.down) } ?? SIMD3(0, 1, 0))
        var anchorIDs = [Int?](repeating: nil, count: detection.planes.count)
        var planeEvents: [JSONValue] = []
        if let pose = update.cameraToWorld {
            let integrated = planes.integrate(detection, cameraToWorld: pose)
            anchorIDs = integrated.anchorIDs
            planeEvents = integrated.events.map { PlaneRecords.event($0, map: planes) }
        }
        fields.append(("planes", .array(detection.planes.enumerated().map { k, plane in
            PlaneRecords.geometry(plane, id: k + 1, extra: [("anchor", anchorIDs[k].map(JSONValue.int) ?? .null)])
        })))
        fields.append(("planeEvents", .array(planeEvents)))
        fields.append(("anchorEvents", .array(anchorEvents)))
        return fields
    }

    /// Anchor events for the tracker's events, saving the map when an interruption starts.
    private mutating func handle(_ events: [TrackingEvent]) throws(WaymarkError) -> [JSONValue] {
        var out: [JSONValue] = []
        for event in events {
            switch event {
            case .interrupted:
                interruptions += 1
                try save()
                out += anchors.map { .object([("event", .string("hidden")), ("id", .int($0.id))]) }
            case .relocalized, .relocalizedOnAnchor:
                relocalizations += 1
                out += anchors.map { Self.anchorRecord($0, event: "restored") }
            case .reset:
                out += anchors.map { .object([("event", .string("removed")), ("id", .int($0.id))]) }
                loadedAnchors = []
                imageAnchors = []
                namedAnchorIDs = [:]
                _ = planes.reset()
            case .relocalizationCancelled, .keyframeAdded:
                break
            }
        }
        return out
    }

    /// Detections below this confidence neither place an image anchor nor relocalize on one.
    static let imageConfidence = 0.5

    private func imageAnchor(named name: String) -> WorldAnchor? {
        (loadedAnchors + imageAnchors).first { $0.kind == .image && $0.name == name }
    }

    static func anchorRecord(_ anchor: WorldAnchor, event: String) -> JSONValue {
        .object([("event", .string(event)), ("id", .int(anchor.id)), ("kind", .string(anchor.kind.rawValue)),
                 ("name", .string(anchor.name)), ("transform", .numbers(anchor.transform.matrix)),
                 ("extent", .numbers([anchor.extent.x, anchor.extent.y]))])
    }

    static func record(_ event: TrackingEvent) -> JSONValue {
        switch event {
        case .interrupted(let cause): .object([("event", .string("interrupted")), ("cause", .string(cause.rawValue))])
        case .relocalized(let keyframe, let inliers):
            .object([("event", .string("relocalized")), ("keyframe", .int(keyframe)), ("inliers", .int(inliers))])
        case .relocalizedOnAnchor(let id): .object([("event", .string("relocalized")), ("anchor", .int(id))])
        case .relocalizationCancelled: .object([("event", .string("relocalization_cancelled"))])
        case .reset: .object([("event", .string("reset"))])
        case .keyframeAdded(let id): .object([("event", .string("keyframe_added")), ("keyframe", .int(id))])
        }
    }
}

extension WorldAnchor {
    /// A world plane anchor: x and z along the surface's rectangle, y its normal (flipped z if
    /// needed so the frame is right-handed).
    init(plane anchor: PlaneAnchor) {
        let s = anchor.surface
        let y = s.plane.normal
        let (x, z) = (s.axisU, s.axisV)
        let handed = (x.y * y.z - x.z * y.y) * z.x + (x.z * y.x - x.x * y.z) * z.y + (x.x * y.y - x.y * y.x) * z.z
        let zz = handed < 0 ? -z : z
        self.init(id: anchor.id, kind: .plane, name: s.classification.rawValue,
                  transform: RigidTransform(rotation: [x.x, y.x, zz.x, x.y, y.y, zz.y, x.z, y.z, zz.z],
                                            translation: [s.center.x, s.center.y, s.center.z]),
                  extent: s.extent)
    }

    /// A named anchor where an object was placed: y along its surface's normal, x as close to
    /// the world's x as that allows (so it keeps its heading while the surface grows); the
    /// world's axes when it rests on no established surface.
    init(named object: PlacedObject, id: Int, on anchor: PlaneAnchor?) {
        let p = object.position
        var rotation = RigidTransform.identity.rotation
        if let y = anchor?.surface.plane.normal {
            var x = SIMD3<Double>(1, 0, 0) - y.x * y
            if (x * x).sum() < 1e-6 { x = SIMD3(0, 0, 1) - y.z * y }
            x /= (x * x).sum().squareRoot()
            let z = SIMD3(x.y * y.z - x.z * y.y, x.z * y.x - x.x * y.z, x.x * y.y - x.y * y.x)
            rotation = [x.x, y.x, z.x, x.y, y.y, z.y, x.z, y.z, z.z]
        }
        self.init(id: id, kind: .named, name: object.name, transform: RigidTransform(rotation: rotation, translation: [p.x, p.y, p.z]))
    }
}
