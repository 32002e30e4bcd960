import Foundation
import WaymarkCore
import WaymarkVision

public struct WorldTrackingOptions: Sendable {
    /// A jump forward in time beyond this, seconds, is an interruption (see `expectFrames(every:)`).
    public var gap = 0.5
    /// Relocalization is given up (and the world reset) after this long, seconds of stream time;
    /// nil tries for ever.
    public var relocalizationTimeout: Double?
    /// This many frames in a row that neither the map nor the odometry tracks lose tracking (an interruption).
    public var lostAfterFailures = 5
    /// Fewer features than this in a frame is insufficient detail.
    public var minimumFeatures = 150
    /// Faster than this, metres per second or degrees per second, is excessive motion.
    public var maximumSpeed = 1.5
    public var maximumTurnRate = 100.0
    public var keyframes = KeyframePolicy()
    public var localMap = LocalMapOptions()
    /// When set, each new keyframe's points are adjusted with its neighbourhood's. Off by
    /// default: it took the walk-through's ATE from 0.034 to 0.014 cm but the session from 45 to
    /// 18 frames/s (Benchmarks/RESULTS.md, 2026-12-05, local adjustment).
    public var localAdjustment: LocalAdjustmentOptions?
    public var relocalization = RelocalizationOptions()
    /// When set, loops are closed with the engine's own tracking (a recorded pose is trusted as
    /// it is). Off by default: since a fast turn is relocalized rather than carried by odometry,
    /// the coaching walk-through leaves no loop to close (keyframe ATE 1.0 cm with it or
    /// without), while re-indexing the map for it costs a frame ~150 ms
    /// (Benchmarks/RESULTS.md, 2026-12-06). `waymark process --loop-closure` sets it.
    public var loopClosure: LoopClosureOptions?
    /// A keyframe needs this many features with depth.
    public var minimumKeyframePoints = 50
    /// How each frame is aligned densely to its anchor keyframe: from the features' pose, a few
    /// iterations on the three finest levels suffice; for depth without colour, method `.icp`.
    public var odometry: RGBDOdometry.Options = {
        var options = RGBDOdometry.Options()
        options.iterations = [4, 4, 4]
        // The anchor can be a keyframe some way back.
        options.maximumTranslation = 0.5
        options.maximumRotationDegrees = 30
        return options
    }()
    /// A dense pose is kept when it is this near the features' pose: an angle, degrees, and a
    /// distance as a share of the tracked points' median depth; else the features' pose is.
    public var denseAgreementDegrees = 2.0
    public var denseAgreementDepthShare = 0.05
    /// The alignment from the expected pose (`prealign`) stands only within this share of those
    /// bounds of the features' pose; else the frame is aligned again from the features' pose.
    /// From a prediction it can stop in another minimum that the loose bounds let through
    /// (12 cm off at 2.5 m after a relocalization, WorldTrackerTests).
    public var prealignedAgreement = 0.2

    public init() {}

    /// A stream recorded at a low rate (a robot's 1 Hz log) is not interrupted by its own frame
    /// interval: the gap becomes at least three intervals.
    public mutating func expectFrames(every interval: Double) {
        guard interval.isFinite, interval > 0 else { return }
        gap = max(gap, 3 * interval)
    }
}

/// One frame for the tracker.
public struct TrackingFrame {
    public var timestamp: Double
    public var gray: Image
    /// Metres, row-major, the gray image's size; nil without depth (no odometry, no keyframes).
    public var depth: [Float]?
    /// A pose from a recorded source (device log, ground truth), camera-to-world in that
    /// source's own world; nil for the engine's own tracking.
    public var recordedPose: RigidTransform?

    public init(timestamp: Double, gray: Image, depth: [Float]?, recordedPose: RigidTransform? = nil) {
        self.timestamp = timestamp
        self.gray = gray
        self.depth = depth
        self.recordedPose = recordedPose
    }
}

/// Where a frame's pose came from.
public enum PoseSource: String, Sendable {
    /// The source's own pose (a device log, ground truth).
    case recorded
    /// Matched against the map's points around the reference keyframe.
    case localMap = "local_map"
    /// RGB-D odometry from the previous frame, where too few points tracked (a textureless view).
    case odometry
    /// Found again in the map after an interruption.
    case relocalization
    /// Found again by a reference image whose anchor the map holds.
    case imageAnchor = "image_anchor"
}

/// A frame aligned densely to the tracker's anchor keyframe from its expected pose
/// (`WorldTracker.prealign`).
public struct Prealignment {
    let timestamp: Double
    let prepared: RGBDOdometry.Frame
    /// The expected pose the alignment started from, and its result (nil when it failed).
    let guess: RigidTransform
    let pose: RigidTransform?
}

public struct TrackingUpdate: Sendable {
    public var state: TrackingState
    public var mapping: MappingStatus
    /// Camera-to-world in the session's world; nil while it is unknown (relocalizing).
    public var cameraToWorld: RigidTransform?
    /// Nil when there is no pose.
    public var poseSource: PoseSource?
    /// Map points the frame tracked (inliers of its pose).
    public var trackedPoints: Int
    public var events: [TrackingEvent]
    /// This frame's relocalization attempt, if it made one.
    public var relocalization: Relocalization?
    public var featureCount: Int

    /// The pose when what the frame sees may join the world at it: a recorded pose, or tracking
    /// normal (not odometry drifting along a plain wall, nor the last pose kept through a fast turn).
    public var anchoringPose: RigidTransform? { state == .normal || poseSource == .recorded ? cameraToWorld : nil }
}

/// Camera tracking for an RGB-D stream in a world that survives interruptions. Each frame's
/// pose comes from a recorded source, or from the frame's features matched by projection
/// against the map's points around its reference keyframe (a motion-only bundle adjustment with
/// depth), or, where too few points track, from RGB-D odometry. Keyframes join the map when
/// the camera tracks less than a share of its reference keyframe's trackable points, and
/// leave it when other keyframes hold nearly all their points; after an
/// interruption (pause, time gap, lost tracking) there is no pose until the camera is
/// relocalized in the map, then poses in the original world again. A recorded source is trusted
/// only within a stretch without interruption: its world is tied to the session's again by each
/// relocalization.
public final class WorldTracker {
    /// Where tracking stands. Every change goes through `enter(_:)`, the one place the
    /// invariants that come with a state are restored.
    private enum State {
        /// A new world: the next frame with a pose starts it (its recorded pose, or the identity).
        case initializing
        /// Following the camera: its last pose, its motion over the last frame (the last
        /// camera's pose in the one before's coordinates) and `failures` in a row so far.
        case tracking(lastPose: RigidTransform, velocity: RigidTransform, failures: Int)
        /// After an interruption: no pose until the camera is found in the map. `since`: the
        /// first frame that tried (for the timeout).
        case relocalizing(since: Double?)
    }

    public private(set) var map: WorldMap
    public let intrinsics: Intrinsics
    public let options: WorldTrackingOptions
    private var state: State
    /// The map's index, built on the first relocalization attempt after the map changed.
    private var relocalizer: Relocalizer?
    /// The vocabulary the map was last indexed with, trained on this many keyframes: an index
    /// remade for the grown map keeps it until the map has grown by `vocabularyGrowth` since
    /// (its training is most of the cost of an index, which a frame waits for).
    private var vocabulary: (words: Vocabulary, keyframes: Int)?
    /// How much the map grows before its index trains a new vocabulary.
    public static let vocabularyGrowth = 1.5
    private var loopPlaces = LoopPlaces()
    /// The keyframe (index) the camera shares most tracked points with, and the points around
    /// it; rebuilt when it changes or the map grows.
    private var reference: Int?
    private var localMap: LocalMap?
    /// Made for the first frame with depth; its anchor is valid only while tracking.
    private var dense: DenseAlignment?
    /// The last frame prepared for it and its pose, while tracking: the anchor when the anchor
    /// itself is out of reach.
    private var previous: (frame: RGBDOdometry.Frame, pose: RigidTransform)?
    private var lastTimestamp: Double?
    private var lastKeyframeTime: Double?
    private var trackedShare = TrackedShare()
    /// The recorded source's world in the session's.
    private var recordedToWorld = RigidTransform.identity

    /// With `map` (loaded from a file) the session starts by relocalizing into its world.
    public init(intrinsics: Intrinsics, options: WorldTrackingOptions = WorldTrackingOptions(), map: WorldMap? = nil) {
        self.intrinsics = intrinsics
        self.options = options
        self.map = map ?? WorldMap()
        state = map.map { !$0.isEmpty } ?? false ? .relocalizing(since: nil) : .initializing
    }

    public var isRelocalizing: Bool {
        if case .relocalizing = state { true } else { false }
    }

    private var lastPose: RigidTransform? {
        if case .tracking(let pose, _, _) = state { pose } else { nil }
    }

    private func enter(_ next: State) {
        switch next {
        case .initializing:
            map = WorldMap()
            relocalizer = nil
            vocabulary = nil
            loopPlaces.forget()
            reference = nil
            localMap = nil
            lastKeyframeTime = nil
            trackedShare = TrackedShare()
            recordedToWorld = .identity
            forgetDenseFrames()
        case .relocalizing:
            forgetDenseFrames()
        case .tracking:
            break
        }
        state = next
    }

    private func forgetDenseFrames() {
        dense?.forget()
        previous = nil
    }

    /// An interruption starts (the app went to the background): tracking stops until frames
    /// come again and the camera is found in the map. Save the map now.
    public func pause() -> [TrackingEvent] {
        guard !isRelocalizing else { return [] }
        return interrupt(.paused)
    }

    /// Gives relocalization up: a new world (the map and its anchors are dropped).
    public func cancelRelocalization() -> [TrackingEvent] {
        guard isRelocalizing else { return [] }
        return [.relocalizationCancelled] + reset()
    }

    /// A new world from the next frame on.
    public func reset() -> [TrackingEvent] {
        enter(.initializing)
        return [.reset]
    }

    /// Tracks one frame, detecting its features.
    public func track(_ frame: TrackingFrame) -> TrackingUpdate {
        track(frame, features: FeatureSet(detectingIn: frame.gray, options: options.relocalization.features))
    }

    private func startsGap(_ frame: TrackingFrame) -> Bool {
        guard let last = lastTimestamp, case .tracking = state else { return false }
        return frame.timestamp - last > options.gap
    }

    /// The pose `frame` is expected at before its features are matched: recorded, or the last
    /// pose moved as the camera last moved; nil when the frame will not follow on (relocalizing,
    /// a gap, no pose source). Work that needs a pose (classifying surfaces by gravity) can
    /// start with it beside feature detection.
    public func expectedPose(for frame: TrackingFrame) -> RigidTransform? {
        guard !isRelocalizing, !startsGap(frame) else { return nil }
        if let recorded = frame.recordedPose { return recordedToWorld * recorded }
        guard frame.depth != nil else { return nil }
        guard case .tracking(let last, let velocity, _) = state else { return .identity }
        return last * velocity
    }

    /// Dense alignment of `frame` to the anchor keyframe from its expected pose, which needs
    /// neither its features nor their match: it can run beside feature detection and be handed
    /// to `track(_:features:prealigned:)`. Nil when the frame will not be aligned (a recorded
    /// pose, no depth, not following on).
    public func prealign(_ frame: TrackingFrame) -> Prealignment? {
        guard frame.recordedPose == nil, let depth = frame.depth, !startsGap(frame),
            case .tracking(let last, let velocity, _) = state
        else { return nil }
        let prepared = prepare(frame, depth: depth)
        let guess = last * velocity
        return Prealignment(timestamp: frame.timestamp, prepared: prepared, guess: guess,
                            pose: dense!.align(prepared, guess: guess))
    }

    /// Tracks one frame with its features, detected with `options.relocalization.features`;
    /// `prealigned`: `prealign(frame)`'s result, else the tracker aligns it itself.
    public func track(_ frame: TrackingFrame, features: FeatureSet, prealigned: Prealignment? = nil) -> TrackingUpdate {
        var events: [TrackingEvent] = []
        defer { lastTimestamp = frame.timestamp }
        if startsGap(frame) { events += interrupt(.gap) }
        if case .relocalizing(let since) = state {
            if let timeout = options.relocalizationTimeout, let since, frame.timestamp - since > timeout {
                events += cancelRelocalization()
            } else {
                return relocalize(frame, features: features, events: events)
            }
        }
        return follow(frame, features: features, prealigned: prealigned, events: events)
    }

    private func interrupt(_ cause: TrackingEvent.Cause) -> [TrackingEvent] {
        guard !map.isEmpty else { return [.interrupted(cause)] + reset() }
        enter(.relocalizing(since: nil))
        return [.interrupted(cause)]
    }

    private func relocalize(_ frame: TrackingFrame, features: FeatureSet, events: [TrackingEvent]) -> TrackingUpdate {
        if case .relocalizing(nil) = state { state = .relocalizing(since: frame.timestamp) }
        var attempt: Relocalization?
        // A map of anchors alone (no keyframes) waits for another way back (`adopt`).
        if map.hasPoints {
            attempt = wholeMap().relocalize(features: features, width: frame.gray.width, height: frame.gray.height,
                                            depth: frame.depth, intrinsics: intrinsics)
        }
        guard let attempt, let pose = attempt.cameraToWorld, let keyframe = attempt.keyframe else {
            return TrackingUpdate(state: .limited(.relocalizing), mapping: .limited, cameraToWorld: nil, poseSource: nil,
                                  trackedPoints: 0, events: events, relocalization: attempt, featureCount: features.count)
        }
        resume(at: pose, frame, reference: map.index(ofKeyframe: keyframe))
        return TrackingUpdate(state: .normal, mapping: .mapped, cameraToWorld: pose, poseSource: .relocalization,
                              trackedPoints: attempt.inliers,
                              events: events + [.relocalized(keyframe: keyframe, inliers: attempt.inliers)],
                              relocalization: attempt, featureCount: features.count)
    }

    /// Ends a relocalization with a pose found another way: a reference image seen in
    /// `frame`, whose world pose anchor `anchor` holds. `update` is what `track` returned for
    /// the frame; the result replaces it. Nil when not relocalizing.
    public func adopt(_ cameraToWorld: RigidTransform, for frame: TrackingFrame, anchor: Int, replacing update: TrackingUpdate)
        -> TrackingUpdate?
    {
        guard isRelocalizing else { return nil }
        // The image's pose is coarser than the map's: tracking against the keyframe that sees
        // most of the view refines it, or, where it is too far off to track, finds the frame in
        // the map (`recover`), before a keyframe can be made at it. Nothing is aligned to this
        // frame at this pose.
        resume(at: cameraToWorld, frame, reference: map.keyframeSeeingMost(
            from: cameraToWorld.inverse, intrinsics: intrinsics, width: frame.gray.width, height: frame.gray.height),
            coarse: true)
        return update.relocalized(at: cameraToWorld, onAnchor: anchor)
    }

    /// Tracking goes on from `pose`, in the map's world; `reference` (a keyframe index): the
    /// keyframe to track against. Without one, the odometry carries the camera until a
    /// keyframe is made. A `coarse` pose does not anchor the dense alignment.
    private func resume(at pose: RigidTransform, _ frame: TrackingFrame, reference: Int?, coarse: Bool = false) {
        enter(.tracking(lastPose: pose, velocity: .identity, failures: 0))
        if let recorded = frame.recordedPose { recordedToWorld = pose * recorded.inverse }
        if frame.recordedPose == nil, !coarse, let depth = frame.depth {
            let prepared = prepare(frame, depth: depth)
            dense?.anchor(at: prepared, pose: pose)
            previous = (prepared, pose)
        }
        self.reference = nil
        localMap = nil
        if let reference { setReference(reference) }
    }

    private func setReference(_ index: Int) {
        guard index != reference || localMap == nil else { return }
        reference = index
        localMap = LocalMap(map, reference: index, neighbours: options.localMap.neighbours)
    }

    private func prepare(_ frame: TrackingFrame, depth: [Float]) -> RGBDOdometry.Frame {
        if dense == nil {
            dense = DenseAlignment(intrinsics: intrinsics, width: frame.gray.width, height: frame.gray.height,
                                   options: options.odometry)
        }
        return dense!.prepare(gray: frame.gray, depth: depth)
    }

    /// A frame's pose and the map points it tracked.
    private struct Located {
        var cameraToWorld: RigidTransform
        var source: PoseSource
        /// Frame feature → the map point it tracked.
        var tracked: [(feature: Int, point: SIMD3<Double>)] = []
        /// Neither the map nor a trusted odometry located the frame: a step towards losing tracking.
        var failed = false
        /// The frame prepared for dense alignment (nil for a recorded pose).
        var prepared: RGBDOdometry.Frame?
        /// The attempt to find the frame in the whole map, where one was made (`recover`).
        var relocalization: Relocalization?
    }

    /// Where the frame is, when it follows on from the last: recorded; else by its features
    /// against the local map, refined by dense alignment to the anchor keyframe; else by dense
    /// alignment alone where the view has too little detail for features (or, when that fails
    /// too, where the last frame was). The alignment starts from the expected pose (`prealign`)
    /// and again from the features' pose where the two disagree. A detailed view whose features
    /// miss the map points it should show is found in the whole map (`recover`).
    private func locate(_ frame: TrackingFrame, features: FeatureSet, _ search: ProjectedFeatureSearch?,
                        prealigned: Prealignment?) -> Located?
    {
        if let recorded = frame.recordedPose {
            let pose = recordedToWorld * recorded
            return Located(cameraToWorld: pose, source: .recorded, tracked: points(search, seenFrom: pose, frame))
        }
        guard let depth = frame.depth else { return nil }
        guard case .tracking(let last, let velocity, _) = state else {
            return Located(cameraToWorld: .identity, source: .odometry, prepared: prepare(frame, depth: depth))
        }
        guard let early = prealigned ?? prealign(frame) else { return nil }
        let prepared = early.prepared
        var byFeatures: (pose: RigidTransform, tracked: [(feature: Int, point: SIMD3<Double>)])?
        if let search, let localMap,
            let found = localMap.track(search, depth: depth, width: frame.gray.width, height: frame.gray.height,
                                       predicted: (last * velocity).inverse, intrinsics: intrinsics, options: options.localMap)
        {
            byFeatures = (found.worldToCamera.inverse, found.tracked.map { ($0.feature, localMap.positions[$0.landmark]) })
        }
        let guess = byFeatures?.pose ?? early.guess
        var aligned = early.pose
        if let byFeatures, !(aligned.map {
            agrees($0, with: byFeatures.pose, tracked: byFeatures.tracked, scale: options.prealignedAgreement)
        } ?? false) {
            aligned = dense!.align(prepared, guess: guess)
        }
        if aligned == nil, byFeatures == nil, let previous {
            // The anchor is out of reach and no features track (a textureless wall): the last
            // frame becomes the anchor, as chained odometry.
            dense!.anchor(at: previous.frame, pose: previous.pose)
            aligned = dense!.align(prepared, guess: guess)
        }
        if let byFeatures {
            let pose = aligned.flatMap { agrees($0, with: byFeatures.pose, tracked: byFeatures.tracked) ? $0 : nil } ?? byFeatures.pose
            return Located(cameraToWorld: pose, source: .localMap, tracked: byFeatures.tracked, prepared: prepared)
        }
        if let search, let localMap, features.count >= options.minimumFeatures,
            localMap.countInView(worldToCamera: (aligned ?? guess).inverse, intrinsics: intrinsics, width: frame.gray.width,
                                 height: frame.gray.height) >= options.localMap.minimumTracked
        {
            return recover(frame, features: features, search, depth: depth, prepared: prepared, last: last)
        }
        guard let aligned else {
            return Located(cameraToWorld: last, source: .odometry, failed: true, prepared: prepared)
        }
        return Located(cameraToWorld: aligned, source: .odometry, tracked: points(search, seenFrom: aligned, frame),
                       prepared: prepared)
    }

    /// The frame found in the whole map, as after an interruption, when its features missed the
    /// local map though the view has detail and the map's points should be in it: the
    /// prediction was wrong (a fast turn, motion blur), and dense alignment from it is no more
    /// to be trusted than the prediction (on the coaching walk-through it ran metres off in a
    /// fast turn and mapped the error). ORB-SLAM2 relocalizes at this point too.
    /// Not found, the frame keeps the `last` pose and counts as a failure.
    private func recover(_ frame: TrackingFrame, features: FeatureSet, _ search: ProjectedFeatureSearch, depth: [Float],
                         prepared: RGBDOdometry.Frame, last: RigidTransform) -> Located
    {
        let found = wholeMap().relocalize(features: features, width: frame.gray.width, height: frame.gray.height,
                                          depth: depth, intrinsics: intrinsics)
        guard let pose = found.cameraToWorld, let keyframe = found.keyframe, let index = map.index(ofKeyframe: keyframe)
        else { return Located(cameraToWorld: last, source: .odometry, failed: true, prepared: prepared, relocalization: found) }
        setReference(index)
        return Located(cameraToWorld: pose, source: .relocalization, tracked: points(search, seenFrom: pose, frame),
                       prepared: prepared, relocalization: found)
    }

    /// Whether the dense pose is near the features' pose: it may correct their error (a few
    /// pixels on real sensors, where colour and depth are not quite registered) but not
    /// replace it (a dense alignment that slid along a plane or fell into another minimum).
    /// Scale-free: an angle, and a share of the tracked points' median depth.
    /// `scale` shrinks both bounds.
    private func agrees(_ aligned: RigidTransform, with features: RigidTransform,
                        tracked: [(feature: Int, point: SIMD3<Double>)], scale: Double = 1) -> Bool
    {
        let difference = aligned.difference(to: features)
        guard difference.rotationDegrees <= scale * options.denseAgreementDegrees else { return false }
        let worldToCamera = features.inverse
        let depths = tracked.map { worldToCamera.apply($0.point).z }.sorted()
        guard !depths.isEmpty else { return false }
        return difference.translation <= scale * options.denseAgreementDepthShare * depths[depths.count / 2]
    }

    /// The local map's points matched from a pose that is not refined by them.
    private func points(_ search: ProjectedFeatureSearch?, seenFrom pose: RigidTransform, _ frame: TrackingFrame)
        -> [(feature: Int, point: SIMD3<Double>)]
    {
        guard let search, let localMap else { return [] }
        return localMap.match(search, worldToCamera: pose.inverse, intrinsics: intrinsics, width: frame.gray.width,
                              height: frame.gray.height, radius: options.localMap.refinedRadius, options: options.localMap)
            .map { ($0.feature, localMap.positions[$0.landmark]) }
    }

    private func follow(_ frame: TrackingFrame, features: FeatureSet, prealigned: Prealignment?, events: [TrackingEvent])
        -> TrackingUpdate
    {
        var events = events
        let search = localMap == nil ? nil : ProjectedFeatureSearch(features, width: frame.gray.width, height: frame.gray.height)
        guard let located = locate(frame, features: features, search,
                                   prealigned: prealigned?.timestamp == frame.timestamp ? prealigned : nil)
        else {
            return TrackingUpdate(state: .notAvailable, mapping: map.keyframes.isEmpty ? .notAvailable : .limited,
                                  cameraToWorld: nil, poseSource: nil, trackedPoints: 0, events: events, relocalization: nil,
                                  featureCount: features.count)
        }
        var pose = located.cameraToWorld
        let previousFailures = if case .tracking(_, _, let failures) = state { failures } else { 0 }
        let failures = located.failed ? previousFailures + 1 : 0
        // Found in the map after frames that were not: the jump from where those were put is no motion.
        let jumped = located.source == .relocalization && previousFailures > 0
        if failures >= options.lostAfterFailures {
            events += interrupt(.trackingLost)
            return TrackingUpdate(state: isRelocalizing ? .limited(.relocalizing) : .notAvailable, mapping: .limited,
                                  cameraToWorld: nil, poseSource: nil, trackedPoints: 0, events: events,
                                  relocalization: located.relocalization,
                                  featureCount: features.count)
        }
        let tooFast = jumped ? false : lastPose.flatMap { last in
            lastTimestamp.map { t -> Bool in
                let dt = max(frame.timestamp - t, 1e-3)
                let d = pose.difference(to: last)
                return d.translation / dt > options.maximumSpeed || d.rotationDegrees / dt > options.maximumTurnRate
            }
        } ?? false
        let fewFeatures = features.count < options.minimumFeatures
        // A view smeared by a fast turn has few features too; the speed is the cause to tell.
        var quality: TrackingState =
            tooFast ? .limited(.excessiveMotion)
            : fewFeatures ? .limited(.insufficientFeatures) : located.failed ? .limited(.excessiveMotion) : .normal
        let share = followReference(located.tracked)
        var keyframePose: RigidTransform?
        if quality == .normal, let depth = frame.depth, share < options.keyframes.trackedShare {
            keyframePose = addKeyframe(frame, features: features, depth: depth, pose: pose, tracked: located.tracked,
                                       events: &events)
        }
        // The camera's motion is measured before a keyframe moves it (an adjustment, a loop closed).
        let velocity = located.failed || jumped ? .identity : lastPose.map { $0.inverse * pose } ?? .identity
        if let keyframePose { pose = keyframePose }
        if let prepared = located.prepared {
            if keyframePose != nil || located.source == .relocalization { dense?.anchor(at: prepared, pose: pose) }
            previous = located.failed ? nil : (prepared, pose)
        }
        if map.keyframes.isEmpty, quality == .normal { quality = .limited(.initializing) }
        enter(.tracking(lastPose: pose, velocity: velocity, failures: failures))
        let mapping: MappingStatus =
            map.keyframes.isEmpty ? .notAvailable
            : quality != .normal ? .limited
            : lastKeyframeTime.map { frame.timestamp - $0 < 1 } ?? false ? .extending : .mapped
        return TrackingUpdate(state: quality, mapping: mapping, cameraToWorld: pose, poseSource: located.source,
                              trackedPoints: located.tracked.count, events: events, relocalization: located.relocalization,
                              featureCount: features.count)
    }

    /// Makes the keyframe that holds most of the tracked points the reference, and returns the
    /// share the frame tracked of its trackable points (0 when it tracked none).
    private func followReference(_ tracked: [(feature: Int, point: SIMD3<Double>)]) -> Double {
        guard let found = trackedShare.reference(of: tracked, in: map) else { return 0 }
        setReference(found.keyframe)
        return found.share
    }

    /// Adds the frame as a keyframe when it has enough points, adjusts it with its
    /// neighbourhood and closes a loop it makes; returns the frame's pose as the keyframe's
    /// now, or nil when it was not added.
    private func addKeyframe(_ frame: TrackingFrame, features: FeatureSet, depth: [Float], pose: RigidTransform,
                             tracked: [(feature: Int, point: SIMD3<Double>)], events: inout [TrackingEvent]) -> RigidTransform?
    {
        let known = Dictionary(tracked.map { ($0.feature, $0.point) }, uniquingKeysWith: { first, _ in first })
        let keyframe = Keyframe(id: map.nextKeyframeID, timestamp: frame.timestamp, features: features,
                                width: frame.gray.width, height: frame.gray.height, depth: depth, cameraToWorld: pose,
                                intrinsics: intrinsics, tracked: known)
        guard keyframe.points.count >= options.minimumKeyframePoints else { return nil }
        map.add(keyframe)
        let index = map.keyframes.count - 1
        if let adjustment = options.localAdjustment {
            // The solver refuses only a malformed problem, which the map's checks rule out; the
            // keyframes then stay where tracking put them.
            _ = try? map.adjustLocally(around: index, options: adjustment)
        }
        relocalizer = nil
        lastKeyframeTime = frame.timestamp
        events.append(.keyframeAdded(keyframe.id))
        let added = cullRedundantNeighbours(of: index, events: &events)
        if frame.recordedPose == nil, let closure = closeLoop(at: added, features: features, depth: depth) {
            events.append(.loopClosed(closure))
        }
        // The new keyframe holds what the next frames see best; its neighbours come with it.
        reference = nil
        setReference(added)
        return map.keyframes[added].cameraToWorld
    }

    /// When keyframe `index` (the newest) shows a place mapped long before (`LoopPlaces`): the
    /// path since that place is corrected and the keyframe's points joined to the place's.
    private func closeLoop(at index: Int, features: FeatureSet, depth: [Float]) -> LoopClosure? {
        guard let policy = options.loopClosure,
            let place = loopPlaces.find(index, in: map, features: features, depth: depth, intrinsics: intrinsics, policy: policy,
                                        localMap: options.localMap, makeIndex: makeIndex)
        else { return nil }
        return loopPlaces.close(place, in: &map, localMap: options.localMap)
    }

    /// The map's index for relocalization, remade after the map changed.
    private func wholeMap() -> Relocalizer {
        if let relocalizer { return relocalizer }
        let made = makeIndex()
        relocalizer = made
        return made
    }

    /// An index of the map as it is now, with the vocabulary kept from an earlier index, or with
    /// a new one once the map has outgrown it.
    private func makeIndex() -> Relocalizer {
        let kept = vocabulary.flatMap { Double(map.keyframes.count) < Self.vocabularyGrowth * Double($0.keyframes) ? $0.words : nil }
        let made = Relocalizer(map: map, options: options.relocalization, vocabulary: kept)
        if kept == nil { vocabulary = (made.vocabulary, map.keyframes.count) }
        return made
    }

    /// Culls keyframe `index`'s redundant neighbours (`WorldMap.cullRedundantNeighbours`);
    /// returns `index` after removal.
    private func cullRedundantNeighbours(of index: Int, events: inout [TrackingEvent]) -> Int {
        let culled = map.cullRedundantNeighbours(of: index, among: options.localMap.neighbours,
                                                 share: options.keyframes.redundantShare,
                                                 holders: options.keyframes.redundantHolders)
        for id in culled.removed {
            events.append(.keyframeRemoved(id))
            trackedShare.forget(keyframe: id)
        }
        return culled.index
    }
}
