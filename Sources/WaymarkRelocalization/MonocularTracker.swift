import Foundation
import WaymarkCore
import WaymarkVision

/// How a single camera without depth is tracked (ORB-SLAM's monocular defaults where it has one).
public struct MonocularTrackingOptions: Sendable {
    /// Frames further apart than this, seconds, are an interruption.
    public var gap = 0.5
    /// Consecutive frames not located before tracking is lost.
    public var lostAfterFailures = 5
    /// Fewer features than this: `limited(insufficientFeatures)`.
    public var minimumFeatures = 150
    public var features = FeatureOptions(maxFeatures: 1000)
    public var initialization = TwoViewInitializationOptions()
    /// Features of the first view and a later one matched to start the map.
    public var initializationRatio = 0.8
    public var localMap = LocalMapOptions()
    /// Without the motion model (after a jerk), the map is searched this many times wider.
    public var lostPredictionRadiusFactor = 3.0
    /// A frame becomes a keyframe when it tracks less than this share of its reference
    /// keyframe's trackable points (ORB-SLAM's 0.9 for a monocular camera: without depth new
    /// points come only from keyframes), or when this long has passed since the last one.
    public var keyframeTrackedShare = 0.9
    public var keyframeInterval = 1.0
    public var newPoints = NewPointOptions()
    /// The newest keyframes whose every feature is kept for new points to be triangulated with.
    public var keptImages = 30
    /// A keyframe is culled when this share of its points are held by `redundantHolders`
    /// other keyframes (ORB-SLAM's 90 % and 3), so a camera going over the same place does not
    /// grow the map.
    public var redundantShare = 0.9
    public var redundantHolders = 3
    /// Each new keyframe's neighbourhood is adjusted, keyframes included: without depth
    /// nothing else keeps triangulated points consistent.
    public var localAdjustment: LocalAdjustmentOptions? = {
        var options = LocalAdjustmentOptions()
        options.movesKeyframes = true
        return options
    }()
    public var relocalization = RelocalizationOptions()
    /// When set, a keyframe that shows a place mapped long before closes the loop: the path
    /// since, and its scale, are corrected (off by default, as for depth).
    public var loopClosure: LoopClosureOptions?
    /// After an interruption, find the camera in the map again (on) or start a new map (off).
    public var relocalizes = true
    /// A map of fewer keyframes than this is started again at an interruption: too little to
    /// come back to (ORB-SLAM resets below 5).
    public var minimumKeyframesToKeep = 5
    /// A map the tracker itself loses with fewer keyframes than this is started again rather
    /// than searched for (ORB-SLAM3 resets below 10): so young a map that cannot follow the
    /// camera has usually started from the wrong motion, and a new one tracks sooner than the
    /// view returns to it.
    public var minimumKeyframesToKeepAfterLoss = 10

    public init() {}

    /// A recording's frame interval, seconds: gaps are judged against it.
    public mutating func expectFrames(every interval: Double) {
        gap = max(gap, 5 * interval)
    }
}

/// Camera tracking from one camera's frames alone, as ORB-SLAM's monocular mode does: a map
/// started from two views with parallax (`TwoViewInitialization`), each frame tracked against
/// the points of its reference keyframe's neighbourhood, keyframes that triangulate new points
/// with their neighbours and adjust their neighbourhood, and relocalization in the whole map
/// after tracking is lost. The map's scale is that of the initialization (the first points'
/// median depth is 1) until something metric fixes it.
public final class MonocularTracker {
    private enum State {
        /// No map: waiting for a view with enough parallax to the `first` one.
        case initializing(first: (features: FeatureSet, timestamp: Double)?)
        case tracking(lastPose: RigidTransform, velocity: RigidTransform?, failures: Int)
        case relocalizing
    }

    public internal(set) var map = WorldMap(isMetric: false)
    public let intrinsics: Intrinsics
    public let options: MonocularTrackingOptions
    private var state: State = .initializing(first: nil)
    /// Whether the map's unit is the metre (`fixScale`, or a metric map loaded); else it is
    /// the initialization's.
    public var isMetric: Bool { map.isMetric }
    /// The last tracked frame's features and the map points it tracked (its pose is the
    /// tracking state's): what a scale is measured on.
    private var lastFrame: (features: FeatureSet, tracked: [(feature: Int, point: SIMD3<Double>)])?
    /// The last refusal of the two views tried: what the coaching tells the person.
    public private(set) var initializationRefusal: TwoViewInitialization.Refusal?
    private var lastTimestamp: Double?
    private var lastKeyframeTime: Double?
    private var reference: Int?
    private var localMap: LocalMap?
    private var relocalizer: Relocalizer?
    private var loopPlaces = LoopPlaces()
    private var trackedShare = TrackedShare()
    /// By keyframe id: every feature of the keyframe's image, those without a point too, which
    /// new points are triangulated from.
    var imageFeatures: [Int: FeatureSet] = [:]

    /// With `map` (loaded from a file) tracking starts by relocalizing into its world.
    public init(intrinsics: Intrinsics, options: MonocularTrackingOptions = MonocularTrackingOptions(), map: WorldMap? = nil) {
        self.intrinsics = intrinsics
        self.options = options
        if let map, map.hasPoints {
            self.map = map
            state = .relocalizing
        }
    }

    public var isRelocalizing: Bool {
        if case .relocalizing = state { true } else { false }
    }

    /// An interruption starts: tracking stops until the camera is found in the map again.
    public func pause() -> [TrackingEvent] { isRelocalizing ? [] : interrupt(.paused) }

    /// A new world from the next frame on.
    public func reset() -> [TrackingEvent] {
        map = WorldMap(isMetric: false)
        state = .initializing(first: nil)
        initializationRefusal = nil
        lastKeyframeTime = nil
        reference = nil
        localMap = nil
        relocalizer = nil
        loopPlaces.forget()
        trackedShare = TrackedShare()
        imageFeatures = [:]
        lastFrame = nil
        return [.reset]
    }

    /// Tracks one frame, detecting its features.
    public func track(_ frame: TrackingFrame) -> TrackingUpdate {
        track(frame, features: FeatureSet(detectingIn: frame.gray, options: options.features))
    }

    /// Tracks one frame with its features (detected with `options.features`). The frame's
    /// depth and recorded pose, if any, are not used.
    public func track(_ frame: TrackingFrame, features: FeatureSet) -> TrackingUpdate {
        var events: [TrackingEvent] = []
        if let last = lastTimestamp, frame.timestamp - last > options.gap, case .tracking = state {
            events += interrupt(.gap)
        }
        lastTimestamp = frame.timestamp
        switch state {
        case .initializing(let first):
            return initialize(frame, features: features, first: first, events: events)
        case .relocalizing:
            return relocalize(frame, features: features, events: events)
        case .tracking(let last, let velocity, let failures):
            return follow(frame, features: features, last: last, velocity: velocity, failures: failures, events: events)
        }
    }

    private func interrupt(_ cause: TrackingEvent.Cause) -> [TrackingEvent] {
        let needed = cause == .trackingLost ? options.minimumKeyframesToKeepAfterLoss : options.minimumKeyframesToKeep
        guard options.relocalizes, map.keyframes.count >= needed else {
            return [.interrupted(cause)] + reset()
        }
        state = .relocalizing
        return [.interrupted(cause)]
    }

    private func update(_ state: TrackingState, _ mapping: MappingStatus, pose: RigidTransform? = nil,
                        source: PoseSource? = nil, tracked: Int = 0, events: [TrackingEvent],
                        relocalization: Relocalization? = nil, features: FeatureSet) -> TrackingUpdate
    {
        TrackingUpdate(state: state, mapping: mapping, cameraToWorld: pose, poseSource: source, trackedPoints: tracked,
                       events: events, relocalization: relocalization, featureCount: features.count)
    }

    // MARK: Initialization

    /// Tries the frame against the first view kept; the map starts when the two views agree on
    /// a motion with parallax. The first view is replaced when too few of its features are
    /// still matched (the camera moved on or turned away).
    private func initialize(_ frame: TrackingFrame, features: FeatureSet, first: (features: FeatureSet, timestamp: Double)?,
                            events: [TrackingEvent]) -> TrackingUpdate
    {
        let waiting = update(.limited(.initializing), .notAvailable, events: events, features: features)
        guard let first, features.count >= options.initialization.minimumMatches else {
            state = .initializing(first: features.count >= options.initialization.minimumMatches ? (features, frame.timestamp) : nil)
            initializationRefusal = .tooFewMatches(features.count)
            return waiting
        }
        let matches = DescriptorIndex(sets: [first.features], search: .exact)
            .match(features, ratio: options.initializationRatio, maxDistance: 64)
        let firstKeypoints = first.features.keypoints
        let keypoints = features.keypoints
        let result = TwoViewInitialization.estimate(
            from: matches.map { firstKeypoints[$0.train].location }, to: matches.map { keypoints[$0.query].location },
            intrinsics: intrinsics, options: options.initialization)
        switch result {
        case .failure(let refusal):
            initializationRefusal = refusal
            if case .tooFewMatches = refusal { state = .initializing(first: (features, frame.timestamp)) }
            return waiting
        case .success(let found):
            initializationRefusal = nil
            let placed = found.points.map { (first: matches[$0.match].train, second: matches[$0.match].query, position: $0.position) }
            let pose = found.secondFromFirst.inverse
            startMap(first: first, second: (features, frame.timestamp, pose), placed: placed, width: frame.gray.width,
                     height: frame.gray.height)
            state = .tracking(lastPose: pose, velocity: nil, failures: 0)
            return update(.normal, .extending, pose: pose, source: .localMap, tracked: placed.count,
                          events: events + [.keyframeAdded(0), .keyframeAdded(1)], features: features)
        }
    }

    /// The map's first two keyframes: the first view at the world's origin, the second where
    /// the initialization put it, sharing the points it placed.
    private func startMap(first: (features: FeatureSet, timestamp: Double),
                          second: (features: FeatureSet, timestamp: Double, cameraToWorld: RigidTransform),
                          placed: [(first: Int, second: Int, position: SIMD3<Double>)], width: Int, height: Int)
    {
        let inFirst = placed.sorted { $0.first < $1.first }
        let inSecond = placed.sorted { $0.second < $1.second }
        map.add(Keyframe(id: 0, timestamp: first.timestamp, cameraToWorld: .identity, intrinsics: intrinsics,
                         width: width, height: height, features: first.features.subset(inFirst.map(\.first)),
                         points: inFirst.map(\.position)))
        map.add(Keyframe(id: 1, timestamp: second.timestamp, cameraToWorld: second.cameraToWorld, intrinsics: intrinsics,
                         width: width, height: height,
                         features: second.features.subset(inSecond.map(\.second)), points: inSecond.map(\.position)))
        imageFeatures = [0: first.features, 1: second.features]
        lastKeyframeTime = second.timestamp
        setReference(1)
    }

    // MARK: Tracking

    private func follow(_ frame: TrackingFrame, features: FeatureSet, last: RigidTransform, velocity: RigidTransform?,
                        failures: Int, events: [TrackingEvent]) -> TrackingUpdate
    {
        var events = events
        let (width, height) = (frame.gray.width, frame.gray.height)
        let search = ProjectedFeatureSearch(features, width: width, height: height)
        let predicted = velocity.map { last * $0 } ?? last
        // The motion model's prediction searched narrowly, then widely (a jerk), then the last
        // pose widely (a stop).
        let attempts = velocity == nil ? [(last, true)] : [(predicted, false), (predicted, true), (last, true)]
        var located: (RigidTransform, [(feature: Int, point: SIMD3<Double>)])?
        if let localMap {
            for (guess, wide) in attempts where located == nil {
                located = trackLocalMap(localMap, search, width: width, height: height, from: guess, wide: wide)
            }
        }
        var relocalization: Relocalization?
        var source = PoseSource.localMap
        if located == nil {
            // ORB-SLAM tracks the reference keyframe and then relocalizes; the whole map's
            // search does both when the local map misses.
            let found = wholeMap().relocalize(features: features, width: width, height: height, intrinsics: intrinsics)
            relocalization = found
            if let pose = found.cameraToWorld, let keyframe = found.keyframe, let index = map.index(ofKeyframe: keyframe) {
                setReference(index)
                located = localMap.flatMap {
                    trackLocalMap($0, search, width: width, height: height, from: pose, wide: false)
                } ?? (pose, [])
                source = .relocalization
            }
        }
        guard let (found, tracked) = located else {
            let failed = failures + 1
            if failed >= options.lostAfterFailures {
                events += interrupt(.trackingLost)
                return update(isRelocalizing ? .limited(.relocalizing) : .limited(.initializing), .limited, events: events,
                              relocalization: relocalization, features: features)
            }
            state = .tracking(lastPose: last, velocity: nil, failures: failed)
            return update(.limited(.excessiveMotion), .limited, events: events, relocalization: relocalization,
                          features: features)
        }
        var pose = found
        let quality: TrackingState = features.count < options.minimumFeatures ? .limited(.insufficientFeatures) : .normal
        let share = followReference(tracked)
        let due = lastKeyframeTime.map { frame.timestamp - $0 >= options.keyframeInterval } ?? true
        if quality == .normal, share < options.keyframeTrackedShare || due,
            let keyframePose = addKeyframe(frame, features: features, pose: pose, tracked: tracked, events: &events)
        {
            pose = keyframePose
        }
        // A loop's correction moves the world under the camera; it is not the camera's motion, and
        // the points tracked before it are no longer where they were.
        let closedLoop = events.contains { if case .loopClosed = $0 { true } else { false } }
        state = .tracking(lastPose: pose, velocity: source == .relocalization ? nil : last.inverse * (closedLoop ? found : pose),
                          failures: 0)
        lastFrame = closedLoop ? nil : (features, tracked)
        let mapping: MappingStatus =
            quality != .normal ? .limited : lastKeyframeTime.map { frame.timestamp - $0 < 1 } ?? false ? .extending : .mapped
        return update(quality, mapping, pose: pose, source: source, tracked: tracked.count, events: events,
                      relocalization: relocalization, features: features)
    }

    /// The frame's pose (camera-to-world) and the points it tracked, from the predicted pose;
    /// `wide`: the prediction is only the last pose, searched wider.
    private func trackLocalMap(_ localMap: LocalMap, _ search: ProjectedFeatureSearch, width: Int, height: Int,
                               from predicted: RigidTransform, wide: Bool) -> (RigidTransform, [(feature: Int, point: SIMD3<Double>)])?
    {
        var trackingOptions = options.localMap
        if wide { trackingOptions.predictionRadius *= options.lostPredictionRadiusFactor }
        guard let found = localMap.track(search, depth: nil, width: width, height: height, predicted: predicted.inverse,
                                         intrinsics: intrinsics, options: trackingOptions)
        else { return nil }
        return (found.worldToCamera.inverse, found.tracked.map { ($0.feature, localMap.positions[$0.landmark]) })
    }

    private func relocalize(_ frame: TrackingFrame, features: FeatureSet, events: [TrackingEvent]) -> TrackingUpdate {
        let found = wholeMap().relocalize(features: features, width: frame.gray.width, height: frame.gray.height,
                                          intrinsics: intrinsics)
        guard let pose = found.cameraToWorld, let keyframe = found.keyframe, let index = map.index(ofKeyframe: keyframe) else {
            return update(.limited(.relocalizing), .limited, events: events, relocalization: found, features: features)
        }
        setReference(index)
        state = .tracking(lastPose: pose, velocity: nil, failures: 0)
        return update(.normal, .mapped, pose: pose, source: .relocalization, tracked: found.inliers,
                      events: events + [.relocalized(keyframe: keyframe, inliers: found.inliers)], relocalization: found,
                      features: features)
    }

    /// Ends a relocalization with a pose found another way: a reference image seen in `frame`,
    /// whose world pose anchor `anchor` holds. Only in a metric map (the image's pose is in
    /// metres, an unscaled map's in its own unit), and only where a keyframe sees the view:
    /// the image's pose is coarser than the map's, and tracking against that keyframe's points
    /// (searched wide, as after a stop) refines it from the next frame on. Nil otherwise.
    public func adopt(_ cameraToWorld: RigidTransform, for frame: TrackingFrame, anchor: Int, replacing update: TrackingUpdate)
        -> TrackingUpdate?
    {
        guard isRelocalizing, isMetric,
            let index = map.keyframeSeeingMost(from: cameraToWorld.inverse, intrinsics: intrinsics, width: frame.gray.width,
                                               height: frame.gray.height)
        else { return nil }
        setReference(index)
        state = .tracking(lastPose: cameraToWorld, velocity: nil, failures: 0)
        return update.relocalized(at: cameraToWorld, onAnchor: anchor)
    }

    private func setReference(_ index: Int) {
        guard index != reference || localMap == nil else { return }
        reference = index
        localMap = LocalMap(map, reference: index, neighbours: options.localMap.neighbours)
    }

    /// Makes the keyframe that holds most of the tracked points the reference, and returns the
    /// share the frame tracked of its trackable points (0 when it tracked none).
    private func followReference(_ tracked: [(feature: Int, point: SIMD3<Double>)]) -> Double {
        guard let found = trackedShare.reference(of: tracked, in: map) else { return 0 }
        setReference(found.keyframe)
        return found.share
    }

    private func wholeMap() -> Relocalizer {
        if let relocalizer { return relocalizer }
        let made = Relocalizer(map: map, options: options.relocalization)
        relocalizer = made
        return made
    }

    /// Adds the frame as a keyframe with the points it tracked and those it triangulates with
    /// its neighbours, then adjusts its neighbourhood; returns the frame's pose as the keyframe's
    /// now, or nil when it was not added.
    private func addKeyframe(_ frame: TrackingFrame, features: FeatureSet, pose: RigidTransform,
                             tracked: [(feature: Int, point: SIMD3<Double>)], events: inout [TrackingEvent]) -> RigidTransform?
    {
        let id = map.nextKeyframeID
        guard let index = insertKeyframe(id: id, timestamp: frame.timestamp, features: features, width: frame.gray.width,
                                         height: frame.gray.height, cameraToWorld: pose, tracked: tracked)
        else { return nil }
        imageFeatures[id] = features
        // Old keyframes' images are rarely a new one's neighbours; keeping every one would grow
        // without bound over a long video.
        if imageFeatures.count > options.keptImages, let oldest = imageFeatures.keys.min() { imageFeatures[oldest] = nil }
        if let adjustment = options.localAdjustment {
            // The solver refuses only a malformed problem; the keyframes then stay as tracked.
            _ = try? map.adjustLocally(around: index, options: adjustment)
        }
        relocalizer = nil
        lastKeyframeTime = frame.timestamp
        events.append(.keyframeAdded(id))
        let culled = map.cullRedundantNeighbours(of: map.index(ofKeyframe: id)!, among: options.localMap.neighbours,
                                                 share: options.redundantShare, holders: options.redundantHolders)
        for removed in culled.removed {
            events.append(.keyframeRemoved(removed))
            trackedShare.forget(keyframe: removed)
            imageFeatures[removed] = nil
        }
        let now = map.index(ofKeyframe: id)!
        if let closure = closeLoop(at: now, features: features) { events.append(.loopClosed(closure)) }
        reference = nil
        setReference(now)
        return map.keyframes[now].cameraToWorld
    }

    /// When keyframe `index` (the newest) shows a place mapped long before (`LoopPlaces`): the
    /// path since that place is corrected, its scale with it, and the keyframe's points joined
    /// to the place's.
    private func closeLoop(at index: Int, features: FeatureSet) -> LoopClosure? {
        guard let policy = options.loopClosure,
            let place = loopPlaces.find(index, in: map, features: features, depth: nil, intrinsics: intrinsics, policy: policy,
                                        localMap: options.localMap, makeIndex: wholeMap)
        else { return nil }
        relocalizer = nil
        return loopPlaces.close(place, in: &map, localMap: options.localMap)
    }

    // MARK: Scale

    /// Metres per map unit, measured in the last frame on a plane whose place in the camera's
    /// coordinates is known in metres (a reference image of known width seen with a pose):
    /// the median, over the points the frame tracked whose pixels `lieOnPlane`, of how much
    /// farther the plane is along the point's ray than the point. Nil before a frame is
    /// tracked, while the map has fewer than `minimumKeyframes` (the points the first two views
    /// place, with little parallax, are the least sure) or with fewer than `minimumPoints` such
    /// points.
    public func metresPerUnit(planeNormal normal: SIMD3<Double>, planeOffset offset: Double,
                              lieOnPlane: (Point2) -> Bool, minimumKeyframes: Int = 4, minimumPoints: Int = 12) -> Double?
    {
        guard let lastFrame, case .tracking(let pose, _, _) = state, map.keyframes.count >= minimumKeyframes else { return nil }
        let keypoints = lastFrame.features.keypoints
        var ratios: [Double] = []
        for t in lastFrame.tracked where lieOnPlane(keypoints[t.feature].location) {
            let inCamera = pose.applyInverse(t.point)
            let along = (normal * inCamera).sum()
            guard inCamera.z > 0, along != 0 else { continue }
            let ratio = offset / along
            if ratio > 0 { ratios.append(ratio) }
        }
        guard ratios.count >= minimumPoints else { return nil }
        ratios.sort()
        return ratios[ratios.count / 2]
    }

    /// Makes the map metric: every length (camera positions, points, anchors, the motion
    /// model) multiplied by `metresPerUnit`.
    public func fixScale(metresPerUnit factor: Double) {
        precondition(factor > 0 && factor.isFinite, "a scale is a positive number")
        let scaled = { (pose: RigidTransform) in pose.scalingTranslation(by: factor) }
        let keyframes = map.keyframes.map { k in
            Keyframe(id: k.id, timestamp: k.timestamp, cameraToWorld: scaled(k.cameraToWorld), intrinsics: k.intrinsics,
                     width: k.width, height: k.height, features: k.features, points: k.points.map { $0 * factor },
                     depths: k.depths.map { $0 * Float(factor) })
        }
        var anchors = map.anchors
        for i in anchors.indices { anchors[i].transform = scaled(anchors[i].transform) }
        map = WorldMap(keyframes: keyframes, anchors: anchors, isMetric: true)
        if case .tracking(let last, let velocity, let failures) = state {
            state = .tracking(lastPose: scaled(last), velocity: velocity.map(scaled), failures: failures)
        }
        lastFrame = lastFrame.map { ($0.features, $0.tracked.map { ($0.feature, $0.point * factor) }) }
        relocalizer = nil
        loopPlaces.forget()
        let kept = reference
        reference = nil
        localMap = nil
        if let kept { setReference(kept) }
    }
}
