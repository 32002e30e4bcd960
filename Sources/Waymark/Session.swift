import Foundation

/// The engine's equivalent of ARSession: one per stream, it owns the world. Each frame is
/// tracked in a world that survives interruptions, searched for the active reference images,
/// its surfaces anchored in the world, and measured for coaching, which says at most one thing
/// at a time. Every anchor is hidden during an interruption and restored where it was when the
/// camera is found again (or removed when the world is reset).
public final class Session {
    public let configuration: SessionConfiguration
    public let input: SessionInput
    /// What the configuration cannot do with this input (checked before the first frame).
    public let support: SessionSupport
    /// With depth or recorded poses a `WorldTracker`; for frames without either (a video) a
    /// `MonocularTracker` when the camera's intrinsics are known, else nil. Not public:
    /// resetting or pausing it behind the session's back would leave the anchors out of step.
    let tracker: (any CameraTracker)?
    private let imageTracker: ImageTracker?
    private let planeDetector: PlaneDetector?
    /// Planes among a monocular map's points for its gravity and for its floor, to take the
    /// scale from the camera's height (`PlaneDetectionOptions.sparse`).
    let sparsePlaneDetector: PlaneDetector?
    /// Its surfaces, once it is metric (`PlaneDetectionOptions.sparseSurfaces`, wider for the
    /// points' noise).
    let sparseSurfaceDetector: PlaneDetector?
    private var coach: Coach
    let meter = FrameMeter()
    var lightSmoother = LightSmoother()
    private var shadingLight = ShadingLightEstimator()
    private(set) var registry: AnchorRegistry
    /// Physical width and height, metres, of the references that have a physical width.
    let imageExtents: [String: SIMD2<Double>]
    /// The sharpest each reference has been seen (its region's Laplacian variance).
    var sharpestSeen: [String: Double] = [:]
    var lastPose: RigidTransform?
    /// Metres per map unit measured on reference images of known width, per frame, while a
    /// world tracked from images alone waits for its scale (`fixScale`).
    var scaleMeasures: [Double] = []
    /// The same, measured on the floor by the camera's known height (`cameraHeight`).
    var heightMeasures: [Double] = []
    var lastTimestamp: Double?
    /// The sum of the frames' gravity in the world (`measureGravity`).
    private(set) var measuredGravity = SIMD3<Double>.zero
    /// The world's gravity was found among the map's points (`GravitySource.estimated`).
    private(set) var sceneGravityFound = false
    public private(set) var interruptions = 0
    public private(set) var relocalizations = 0

    /// Detections below this confidence neither place an image anchor nor relocalize on one.
    public static let imageConfidence = 0.5

    /// Fails (usage) when the configuration asks for something the input cannot give; the
    /// message lists every such problem.
    public init(configuration: SessionConfiguration, input: SessionInput) throws(WaymarkError) {
        let support = SessionSupport(configuration, input: input)
        guard support.isSupported else {
            throw WaymarkError(.usage, support.problems.joined(separator: "; "))
        }
        self.configuration = configuration
        self.input = input
        self.support = support
        var extents: [String: SIMD2<Double>] = [:]
        for reference in configuration.references {
            guard let width = reference.entry.physicalWidth else { continue }
            extents[reference.name] = SIMD2(width, width * Double(reference.height) / Double(reference.width))
        }
        imageExtents = extents
        var trackingOptions = configuration.tracking
        if !configuration.relocalization { trackingOptions.relocalizationTimeout = 0 }
        if input.hasDepth || input.hasRecordedPoses {
            tracker = WorldTracker(intrinsics: input.intrinsics ?? Intrinsics(fx: 1, fy: 1, cx: 0, cy: 0),
                                   options: trackingOptions, map: configuration.worldMap)
        } else if let intrinsics = input.intrinsics {
            var options = configuration.monocularTracking
            options.relocalizes = configuration.relocalization
            tracker = MonocularTracker(intrinsics: intrinsics, options: options, map: configuration.worldMap)
        } else {
            tracker = nil
        }
        var planeOptions = configuration.planeMap
        if tracker is MonocularTracker {
            planeOptions.establishingObservations = planeOptions.establishingObservationsFromPoints
            planeOptions.maximumOffset = planeOptions.maximumOffsetFromPoints
            // Not to a gravity estimated from the same planes: 2.8–7.2° off on the walk-through's
            // scans, it turned anchors that were within 3° away (Benchmarks/RESULTS.md).
            planeOptions.snapsToGravity = input.hasGravity || !configuration.measuresGravity
        }
        registry = AnchorRegistry(planeOptions: planeOptions, loaded: configuration.worldMap?.anchors ?? [])
        planeDetector = input.hasDepth && !configuration.surfaces.isEmpty ? try PlaneDetector() : nil
        sparsePlaneDetector = tracker is MonocularTracker && (!configuration.surfaces.isEmpty || configuration.cameraHeight != nil)
            ? try PlaneDetector(options: .sparse) : nil
        sparseSurfaceDetector = tracker is MonocularTracker && !configuration.surfaces.isEmpty
            ? try PlaneDetector(options: .sparseSurfaces) : nil
        imageTracker = configuration.references.isEmpty
            ? nil : ImageTracker(references: configuration.references, options: configuration.imageTracking)
        coach = Coach(options: configuration.coaching)
    }

    /// Whether the camera is tracked (the input has depth, recorded poses or intrinsics).
    public var isTracking: Bool { tracker != nil }

    /// Whether the camera is tracked from its images alone: the world's scale is unknown until a
    /// reference image of known width fixes it (`scale_fixed`).
    public var isMonocular: Bool { tracker is MonocularTracker }

    /// Keyframes in the world map so far.
    public var keyframeCount: Int { tracker?.map.keyframes.count ?? 0 }

    /// Every anchor of the session, in the world.
    public var anchors: [WorldAnchor] { registry.all }

    /// The plane anchors and the objects placed on them.
    public var planes: PlaneMap { registry.planes }

    /// A snapshot of the world map with every anchor, to save (`WorldMap.write`); nil without
    /// tracking.
    public var worldMap: WorldMap? {
        guard var snapshot = tracker?.map else { return nil }
        snapshot.anchors = anchors
        return snapshot
    }

    /// Places a named anchor where the ray through `pixel` of the last frame meets the
    /// surfaces (as a person taps the screen); nil when the camera's pose is unknown, the ray
    /// meets nothing, or the world's scale is (tracked from images alone before a reference
    /// image of known width fixed it: where no surface is known yet, the floor is assumed a
    /// camera's height below, in metres).
    public func place(_ name: String, pixel: SIMD2<Double>) -> WorldAnchor? {
        guard let pose = lastPose, let intrinsics = input.intrinsics, isMetric else { return nil }
        return registry.place(name, along: Ray(pixel: pixel, intrinsics: intrinsics, cameraToWorld: pose))
    }

    /// An interruption the caller knows of (dropped frames, the app paused): its tracking
    /// events and the anchors hidden; empty when one is already under way.
    public func pause() -> (events: [TrackingEvent], anchorEvents: [AnchorEvent]) {
        guard let events = tracker?.pause(), !events.isEmpty else { return ([], []) }
        return (events, handle(events))
    }

    /// A new world from the next frame on (a person tapped Reset).
    public func reset() -> (events: [TrackingEvent], anchorEvents: [AnchorEvent]) {
        guard let events = tracker?.reset() else { return ([], []) }
        return (events, handle(events))
    }

    /// Runs on two threads (OpenCV's own loops aside): see the steps below.
    public func process(_ frame: SessionFrame) -> FrameResult {
        precondition(frame.image.width == input.width && frame.image.height == input.height,
                     "frames must be \(input.width)×\(input.height), as the session's input said")
        let gray = frame.image.gray()
        let trackingFrame = TrackingFrame(timestamp: frame.timestamp, gray: gray, depth: frame.depth?.metres,
                                          recordedPose: frame.recordedPose)
        // Two steps on two threads. First the frame's features and its surfaces (seen from the
        // pose tracking expects) beside its signals and its dense alignment from that pose; with
        // a recorded pose, which needs no alignment, the surfaces go beside the signals. Then
        // image detection with those features, beside tracking and anchoring. What keeps the two
        // sides apart (the closures share `self`, which the compiler cannot split, so this is
        // checked by a ThreadSanitizer run of the session tests, `make tsan`): in the first step
        // the plane detector is on one side only, the frame meter and the tracker on the second,
        // and the first reads immutable options; in the second step the first side touches only
        // the image tracker, the second the tracker, the frame meter, the anchor registry, the
        // plane detector, the light's direction, the coach and the counters. Both only read the
        // frame, which neither changes.
        let expected = tracker?.expectedPose(for: trackingFrame)
        let surfacesBesideFeatures = frame.recordedPose == nil
        let surfaces = { self.tracker == nil ? nil : self.detectSurfaces(frame, seenFrom: expected) }
        let (early, beside) = runConcurrently(
            { () -> (features: SharedFeatures, surfaces: DetectedSurfaces?) in
                (self.sharedFeatures(gray), surfacesBesideFeatures ? surfaces() : nil)
            },
            { () -> (measured: FrameMeasurement, light: LightMeasurement, surfaces: DetectedSurfaces?, prealigned: Prealignment?) in
                (self.meter.measure(gray), self.meter.measureLight(frame.image), surfacesBesideFeatures ? nil : surfaces(),
                 self.tracker?.prealign(trackingFrame))
            })
        let (features, measured, detected) = (early.features, beside.measured, early.surfaces ?? beside.surfaces)
        let (detections, tracked) = runConcurrently(
            { self.imageTracker?.process(gray, features: features.forImages, intrinsics: self.input.intrinsics) ?? [] },
            { () -> (update: TrackingUpdate?, anchorEvents: [AnchorEvent], surfaces: Surfaces) in
                // Both are there whenever the tracker is.
                let update = self.tracker?.track(trackingFrame, features: features.forTracking!, prealigned: beside.prealigned)
                // Anchors are hidden, restored or removed as they were before this frame's surfaces join them.
                let events = update.map { self.handle($0.events) } ?? []
                let downChanged = self.measureGravity(frame.gravity, cameraToWorld: update?.cameraToWorld)
                return (update, events, self.anchorSurfaces(downChanged ? nil : detected, frame: frame,
                                                            cameraToWorld: update?.anchoringPose))
            })
        var (update, anchorEvents) = (tracked.update, tracked.anchorEvents)
        if let tracker, let lost = update, lost.cameraToWorld == nil, tracker.isRelocalizing {
            let adopted = relocalize(tracker, trackingFrame, on: detections, replacing: lost)
            anchorEvents += handle(Array(adopted.events.dropFirst(lost.events.count)))
            update = adopted
        }
        if let monocular = tracker as? MonocularTracker, update?.state == .normal, let pose = update?.cameraToWorld,
            let fixed = fixScale(monocular, on: detections)
                ?? fixScale(monocular, byCameraHeightSeenFrom: pose, events: update?.events ?? [])
        {
            update?.cameraToWorld = pose.scalingTranslation(by: fixed.metresPerUnit)
            update?.events.append(.scaleFixed(metresPerUnit: fixed.metresPerUnit, reference: fixed.reference))
        }
        var anchoredSurfaces = tracked.surfaces
        if let sparse = sparseSurfaces(seenFrom: update?.cameraToWorld, events: update?.events ?? []),
            let pose = update?.cameraToWorld
        {
            let integrated = registry.integrate(sparse, cameraToWorld: pose)
            anchoredSurfaces = Surfaces(found: sparse.planes, anchorIDs: integrated.anchorIDs, events: integrated.events)
        }
        // A reference image's pose is metric: it joins a world of another unit only once that is fixed.
        if let pose = update?.cameraToWorld, update?.state == .normal, isMetric {
            anchorEvents += anchorImages(detections, cameraToWorld: pose)
        }
        // Coaching reads this frame's own light, as it reads its other signals, unsmoothed: the
        // darkness is told at once, before the features it hides are missed.
        var light = LightEstimate(beside.light)
        light.mainLight = shadingLight.mainLight
        let signals = self.signals(frame, measured: measured, light: light, tracking: update, detections: detections)
        let coaching = coach.update(signals)
        lastPose = update?.cameraToWorld
        lastTimestamp = frame.timestamp
        return FrameResult(timestamp: frame.timestamp, tracking: update, detections: detections,
                           planes: anchoredSurfaces.found, planeAnchorIDs: anchoredSurfaces.anchorIDs,
                           planeEvents: anchoredSurfaces.events, anchorEvents: anchorEvents,
                           signals: signals, coaching: coaching,
                           light: lightSmoother.update(light, at: frame.timestamp))
    }

    private typealias SharedFeatures = (forImages: FeatureSet?, forTracking: FeatureSet?)

    /// The frame's features for tracking (nil without a tracker), detected once and shared with
    /// image detection when both ask for the same features; else (as with the defaults, whose
    /// image detection weights fine scales for distant posters) image detection finds its own
    /// (nil for images).
    private func sharedFeatures(_ gray: Image) -> SharedFeatures {
        guard let tracker else { return (nil, nil) }
        let options = tracker.featureOptions
        let features = FeatureSet(detectingIn: gray, options: options)
        let shared = imageTracker?.detector.frameFeatureOptions(width: gray.width, height: gray.height) == options
        return (shared ? features : nil, features)
    }

    private struct Surfaces {
        var found: [DetectedPlane] = []
        var anchorIDs: [Int?] = []
        var events: [PlaneEvent] = []
    }

    /// A frame's surfaces, the pose whose gravity they were classified by, and the shading of
    /// all its planes (of every kind: the main light's direction reads them all).
    private typealias DetectedSurfaces = (detection: PlaneDetection, seenFrom: RigidTransform?, shading: [PlaneShading])

    /// This frame's surfaces of the configured kinds, gravity taken from `pose` (else the
    /// frame's measured gravity, else the camera's +y); nil without depth or plane detection.
    private func detectSurfaces(_ frame: SessionFrame, seenFrom pose: RigidTransform?) -> DetectedSurfaces? {
        guard let planeDetector, let depth = frame.depth, let intrinsics = input.intrinsics else { return nil }
        var detection = planeDetector.detect(
            in: depth, intrinsics: intrinsics,
            down: pose.map { $0.applyInverseRotation(planes.options.down) } ?? frame.gravity ?? SIMD3(0, 1, 0))
        let shading = detection.shading(in: frame.image, labelsWidth: depth.width, labelsHeight: depth.height)
        detection.planes.removeAll { !configuration.surfaces.includes($0.alignment) }
        return (detection, pose, shading)
    }

    /// Joins the surfaces to the world's at the frame's pose; detected first when they were not
    /// yet (or the world's gravity changed since), or again when gravity from that pose is not
    /// the one they were classified by (a relocalization; the tracked pose differs from the
    /// expected one by far less).
    private func anchorSurfaces(_ detected: DetectedSurfaces?, frame: SessionFrame, cameraToWorld pose: RigidTransform?)
        -> Surfaces
    {
        let stale = detected.map { detected in
            pose.map { pose in detected.seenFrom.map { pose.difference(to: $0).rotationDegrees > Self.gravityToleranceDegrees } ?? true }
                ?? false
        } ?? true
        guard let (detection, _, shading) = stale ? detectSurfaces(frame, seenFrom: pose) : detected else { return Surfaces() }
        guard let pose else {
            return Surfaces(found: detection.planes, anchorIDs: [Int?](repeating: nil, count: detection.planes.count))
        }
        shadingLight.add(shading, cameraToWorld: pose)
        let integrated = registry.integrate(detection, cameraToWorld: pose)
        return Surfaces(found: detection.planes, anchorIDs: integrated.anchorIDs, events: integrated.events)
    }

    /// The world's gravity from a frame that carries it (in camera coordinates) and has a pose:
    /// the mean of such frames' gravity in the world becomes the surfaces' down until the first
    /// surface is seen (`measuresGravity`). True when the down changed, so that surfaces this
    /// frame classified by the one before are classified again.
    private func measureGravity(_ gravity: SIMD3<Double>?, cameraToWorld pose: RigidTransform?) -> Bool {
        guard configuration.measuresGravity, let gravity, let pose else { return false }
        measuredGravity += pose.applyRotation(gravity)
        return registry.measuredDown(measuredGravity)
    }

    /// Gravity found among the map's points, for a world nothing measures it in.
    func adoptSceneGravity(_ down: SIMD3<Double>) {
        sceneGravityFound = registry.measuredDown(down)
    }

    /// While relocalizing, a detected reference image whose world pose an anchor holds is
    /// another way back.
    private func relocalize(_ tracker: any CameraTracker, _ frame: TrackingFrame, on detections: [ImageDetection],
                            replacing update: TrackingUpdate) -> TrackingUpdate
    {
        for detection in detections where Self.isPlaceable(detection) {
            guard let anchor = registry.image(named: detection.name),
                let adopted = tracker.adopt(anchor.transform * detection.pose!.inverse, for: frame, anchor: anchor.id,
                                            replacing: update)
            else { continue }
            return adopted
        }
        return update
    }

    /// Surfaces classified by gravity from a pose this close in rotation, degrees, stand: a tenth
    /// of the classifier's alignment tolerance.
    private static let gravityToleranceDegrees = 1.0

    static func isPlaceable(_ detection: ImageDetection) -> Bool {
        detection.state != .lost && detection.confidence >= imageConfidence && detection.pose != nil
    }

    /// Reference images of known size seen for the first time become image anchors.
    private func anchorImages(_ detections: [ImageDetection], cameraToWorld pose: RigidTransform) -> [AnchorEvent] {
        var events: [AnchorEvent] = []
        for detection in detections where Self.isPlaceable(detection) && registry.image(named: detection.name) == nil {
            guard let extent = imageExtents[detection.name] else { continue }
            events.append(.added(registry.addImage(named: detection.name, transform: pose * detection.pose!, extent: extent)))
        }
        return events
    }

    /// Anchor events for the tracker's events.
    private func handle(_ events: [TrackingEvent]) -> [AnchorEvent] {
        var out: [AnchorEvent] = []
        for event in events {
            switch event {
            case .interrupted:
                interruptions += 1
                out += anchors.map { .hidden($0.id) }
            case .relocalized, .relocalizedOnAnchor:
                relocalizations += 1
                out += anchors.map { .restored($0) }
            case .reset:
                out += anchors.map { .removed($0.id) }
                registry.removeAll()
                sharpestSeen = [:]
                scaleMeasures = []
                heightMeasures = []
                measuredGravity = .zero
                sceneGravityFound = false
                shadingLight = ShadingLightEstimator()
                coach.reset()
            case .loopClosed(let loop):
                out += registry.correct(loop).map { .moved($0) }
            case .relocalizationCancelled, .keyframeAdded, .keyframeRemoved, .scaleFixed:
                break
            }
        }
        return out
    }

}
