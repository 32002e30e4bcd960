import WaymarkCore
import WaymarkVision

public struct WorldTrackingOptions: Sendable {
    /// A jump forward in time beyond this, seconds, is an interruption.
    public var gap = 0.5
    /// Relocalization is given up (and the world reset) after this long, seconds of stream time;
    /// nil tries for ever.
    public var relocalizationTimeout: Double?
    /// This many odometry failures in a row lose tracking (an interruption).
    public var lostAfterFailures = 5
    /// Fewer features than this in a frame is insufficient detail.
    public var minimumFeatures = 150
    /// Faster than this, metres per second or degrees per second, is excessive motion.
    public var maximumSpeed = 1.5
    public var maximumTurnRate = 100.0
    public var keyframes = KeyframePolicy()
    public var relocalization = RelocalizationOptions()
    /// A keyframe needs this many features with depth.
    public var minimumKeyframePoints = 50
    /// For depth without colour, `.icp`.
    public var odometry = RGBDOdometry.Method.rgbdICP

    public init() {}
}

/// One frame for the tracker.
public struct TrackingFrame {
    public var timestamp: Double
    public var gray: Image
    /// Metres, row-major, the gray image's size; nil without depth (no odometry, no keyframes).
    public var depth: [Float]?
    /// A pose from a recorded source (device log, ground truth), camera-to-world in that
    /// source's own world; nil to track with the engine's odometry.
    public var recordedPose: RigidTransform?

    public init(timestamp: Double, gray: Image, depth: [Float]?, recordedPose: RigidTransform? = nil) {
        self.timestamp = timestamp
        self.gray = gray
        self.depth = depth
        self.recordedPose = recordedPose
    }
}

public struct TrackingUpdate: Sendable {
    public var state: TrackingState
    public var mapping: MappingStatus
    /// Camera-to-world in the session's world; nil while it is unknown (relocalizing).
    public var cameraToWorld: RigidTransform?
    public var events: [TrackingEvent]
    /// This frame's relocalization attempt, if it made one.
    public var relocalization: Relocalization?
    public var featureCount: Int
}

/// Camera tracking for an RGB-D stream in a world that survives interruptions: poses from a
/// recorded source or the engine's odometry, a tracking state from measured signals, keyframes
/// into the world map, and after an interruption (pause, time gap, lost tracking) no pose
/// until the camera is relocalized in the map, then poses in the original world again.
/// A recorded source is trusted only within a stretch without interruption: its world is tied
/// to the session's again by each relocalization.
public final class WorldTracker {
    /// Where tracking stands. Every change goes through `enter(_:)`, the one place the
    /// invariants that come with a state are restored.
    private enum State {
        /// A new world: the next frame with a pose starts it (its recorded pose, or the identity).
        case initializing
        /// Following the camera from its last pose; `odometryFailures` in a row so far.
        case tracking(lastPose: RigidTransform, odometryFailures: Int)
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
    /// Valid only while tracking; dropped with every other state.
    private var odometry: RGBDOdometry?
    /// Reused half-size copies for the odometry.
    private let halfGray = Image(width: 1, height: 1, channels: 1)
    private var halfDepth: [Float] = []
    private var lastTimestamp: Double?
    private var lastKeyframeTime: Double?
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
        if case .tracking(let pose, _) = state { pose } else { nil }
    }

    private func enter(_ next: State) {
        switch next {
        case .initializing:
            map = WorldMap()
            relocalizer = nil
            odometry = nil
            lastKeyframeTime = nil
            recordedToWorld = .identity
        case .relocalizing:
            odometry = nil
        case .tracking:
            break
        }
        state = next
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

    /// The odometry's step for a frame, measured apart from its features (see `track(_:features:motion:)`).
    public enum Motion {
        /// This frame does not use the odometry (recorded pose, no depth, relocalizing, a gap).
        case unused
        /// The odometry's first frame.
        case started
        case moved(RigidTransform)
        case failed
    }

    /// Tracks one frame: its features and its odometry step run at the same time.
    public func track(_ frame: TrackingFrame) -> TrackingUpdate {
        let (features, motion) = runConcurrently(
            { FeatureSet(detectingIn: frame.gray, options: self.options.relocalization.features) },
            { self.measureMotion(frame) })
        return track(frame, features: features, motion: motion)
    }

    /// The first half of tracking a frame, which needs no features: the odometry's motion since
    /// the previous frame, when this frame will use it. Call `track(_:features:motion:)` next.
    public func measureMotion(_ frame: TrackingFrame) -> Motion {
        guard usesOdometry(frame), let depth = frame.depth else { return .unused }
        let starting = odometry == nil
        let motion = trackOdometry(frame.gray, depth)
        return starting ? .started : motion.map(Motion.moved) ?? .failed
    }

    /// Whether `measureMotion` runs the odometry on this frame (the costliest step of tracking).
    public func usesOdometry(_ frame: TrackingFrame) -> Bool {
        frame.recordedPose == nil && frame.depth != nil && !isRelocalizing && !startsGap(frame)
    }

    private func startsGap(_ frame: TrackingFrame) -> Bool {
        guard let last = lastTimestamp, case .tracking = state else { return false }
        return frame.timestamp - last > options.gap
    }

    /// The pose `track(_:features:motion:)` will give `frame` when it follows on from the last
    /// frame; nil when it will not (relocalizing, a gap, no pose source). Work that needs the
    /// pose can start with it before the frame's features are ready.
    public func expectedPose(for frame: TrackingFrame, motion: Motion) -> RigidTransform? {
        guard !isRelocalizing, !startsGap(frame) else { return nil }
        return continuedPose(frame, motion: motion)
    }

    /// The pose when the frame follows on: recorded, or the last moved by the odometry (kept
    /// when the odometry fails on it; the identity when there is no last pose).
    private func continuedPose(_ frame: TrackingFrame, motion: Motion) -> RigidTransform? {
        if let recorded = frame.recordedPose { return recordedToWorld * recorded }
        guard frame.depth != nil else { return nil }
        switch motion {
        case .moved(let step): return lastPose.map { $0 * step.inverse }
        case .failed: return lastPose
        case .started, .unused: return lastPose ?? .identity
        }
    }

    /// The second half: `features` detected with `options.relocalization.features`, and the
    /// frame's `measureMotion`.
    public func track(_ frame: TrackingFrame, features: FeatureSet, motion: Motion) -> TrackingUpdate {
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
        return follow(frame, features: features, motion: motion, events: events)
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
            if relocalizer == nil { relocalizer = Relocalizer(map: map, options: options.relocalization) }
            attempt = relocalizer!.relocalize(features: features, width: frame.gray.width, height: frame.gray.height,
                                              depth: frame.depth, intrinsics: intrinsics)
        }
        guard let attempt, let pose = attempt.cameraToWorld, let keyframe = attempt.keyframe else {
            return TrackingUpdate(state: .limited(.relocalizing), mapping: .limited, cameraToWorld: nil, events: events,
                                  relocalization: attempt, featureCount: features.count)
        }
        resume(at: pose, frame)
        return TrackingUpdate(state: .normal, mapping: .mapped, cameraToWorld: pose,
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
        resume(at: cameraToWorld, frame)
        var adopted = update
        adopted.state = .normal
        adopted.mapping = .mapped
        adopted.cameraToWorld = cameraToWorld
        adopted.events.append(.relocalizedOnAnchor(anchor))
        return adopted
    }

    /// Tracking goes on from `pose`, in the map's world.
    private func resume(at pose: RigidTransform, _ frame: TrackingFrame) {
        enter(.tracking(lastPose: pose, odometryFailures: 0))
        if let recorded = frame.recordedPose { recordedToWorld = pose * recorded.inverse }
        if frame.recordedPose == nil, let depth = frame.depth {
            _ = trackOdometry(frame.gray, depth)  // its first frame
        }
    }

    /// The odometry's motion since the previous frame (nil for its first frame and when it
    /// fails). Frames 640 pixels wide or more are tracked at half size: a quarter of the work.
    private func trackOdometry(_ gray: Image, _ depth: [Float]) -> RigidTransform? {
        let halve = gray.width >= 640 && gray.width % 2 == 0 && gray.height % 2 == 0
        if odometry == nil {
            let k = halve ? Intrinsics(fx: intrinsics.fx / 2, fy: intrinsics.fy / 2, cx: intrinsics.cx / 2, cy: intrinsics.cy / 2)
                : intrinsics
            odometry = RGBDOdometry(intrinsics: k, method: options.odometry)
        }
        guard halve else { return odometry!.track(gray: gray, depth: depth) }
        DepthImage.halve(depth, width: gray.width, height: gray.height, into: &halfDepth)
        gray.resize(width: gray.width / 2, height: gray.height / 2, into: halfGray)
        return odometry!.track(gray: halfGray, depth: halfDepth)
    }

    private func follow(_ frame: TrackingFrame, features: FeatureSet, motion: Motion, events: [TrackingEvent])
        -> TrackingUpdate
    {
        var events = events
        var odometryFailed = false
        var odometryFailures = if case .tracking(_, let failures) = state { failures } else { 0 }
        if frame.recordedPose == nil, frame.depth != nil {
            switch motion {
            case .unused:
                // Unused, yet following: the world was reset on this frame (a gap before any
                // keyframe, or a relocalization given up), so the odometry starts here.
                odometry = nil
                _ = measureMotion(frame)
            case .started:
                break
            case .moved:
                odometryFailures = 0
            case .failed:
                odometryFailures += 1
                odometryFailed = true
                if odometryFailures >= options.lostAfterFailures {
                    events += interrupt(.trackingLost)
                    return TrackingUpdate(state: isRelocalizing ? .limited(.relocalizing) : .notAvailable, mapping: .limited,
                                          cameraToWorld: nil, events: events, relocalization: nil, featureCount: features.count)
                }
            }
        }
        guard let pose = continuedPose(frame, motion: motion) else {
            return TrackingUpdate(state: .notAvailable, mapping: map.keyframes.isEmpty ? .notAvailable : .limited,
                                  cameraToWorld: nil, events: events, relocalization: nil, featureCount: features.count)
        }
        let tooFast = lastPose.flatMap { last in
            lastTimestamp.map { t -> Bool in
                let dt = max(frame.timestamp - t, 1e-3)
                let d = pose.difference(to: last)
                return d.translation / dt > options.maximumSpeed || d.rotationDegrees / dt > options.maximumTurnRate
            }
        } ?? false
        let fewFeatures = features.count < options.minimumFeatures
        var quality: TrackingState =
            fewFeatures ? .limited(.insufficientFeatures) : tooFast || odometryFailed ? .limited(.excessiveMotion) : .normal
        if quality == .normal, let depth = frame.depth, map.needsKeyframe(at: pose, policy: options.keyframes) {
            let keyframe = Keyframe(id: map.nextKeyframeID, timestamp: frame.timestamp, features: features,
                                    width: frame.gray.width, height: frame.gray.height, depth: depth, cameraToWorld: pose,
                                    intrinsics: intrinsics)
            if keyframe.points.count >= options.minimumKeyframePoints {
                map.add(keyframe)
                relocalizer = nil
                lastKeyframeTime = frame.timestamp
                events.append(.keyframeAdded(keyframe.id))
            }
        }
        if map.keyframes.isEmpty, quality == .normal { quality = .limited(.initializing) }
        enter(.tracking(lastPose: pose, odometryFailures: odometryFailures))
        let mapping: MappingStatus =
            map.keyframes.isEmpty ? .notAvailable
            : quality != .normal ? .limited
            : lastKeyframeTime.map { frame.timestamp - $0 < 1 } ?? false ? .extending : .mapped
        return TrackingUpdate(state: quality, mapping: mapping, cameraToWorld: pose, events: events, relocalization: nil,
                              featureCount: features.count)
    }
}
