/// How well the camera's pose is known, as ARKit reports it.
public enum TrackingState: Equatable, Sendable {
    public enum Reason: String, Sendable {
        /// No keyframe yet: the world is still being set up.
        case initializing
        /// The camera moves or turns faster than poses can be trusted, or the odometry gave up
        /// on a frame that had enough detail.
        case excessiveMotion = "excessive_motion"
        /// Too little distinct detail in the frame.
        case insufficientFeatures = "insufficient_features"
        /// After an interruption, until the camera is found in the map again.
        case relocalizing
    }

    case notAvailable
    case limited(Reason)
    case normal

    /// "normal", "limited" or "not_available".
    public var name: String {
        switch self {
        case .notAvailable: "not_available"
        case .limited: "limited"
        case .normal: "normal"
        }
    }

    public var reason: Reason? {
        if case .limited(let reason) = self { reason } else { nil }
    }
}

/// How much of the world around the camera the map holds, as ARKit's world-mapping status.
public enum MappingStatus: String, Sendable {
    /// No map yet.
    case notAvailable = "not_available"
    /// Tracking is limited: the map is not growing.
    case limited
    /// Keyframes were added in the last second: the camera is somewhere new.
    case extending
    /// The camera is where the map already has keyframes.
    case mapped
}

public enum TrackingEvent: Equatable, Sendable {
    public enum Cause: String, Sendable {
        /// `pause()` was called (another app, a call).
        case paused
        /// The frames jumped forward in time beyond the gap threshold.
        case gap
        /// The odometry failed on several frames in a row.
        case trackingLost = "tracking_lost"
    }

    /// Tracking stopped: anchors should be hidden and the map saved now.
    case interrupted(Cause)
    /// Found again in the map's world: anchors are back where they were.
    case relocalized(keyframe: Int, inliers: Int)
    /// Found again through an anchor seen in the frame (a reference image of known world pose).
    case relocalizedOnAnchor(Int)
    /// Relocalization ran out of time and was given up (a reset follows).
    case relocalizationCancelled
    /// A new world: the map and its anchors are gone.
    case reset
    case keyframeAdded(Int)
    /// A keyframe culled: other keyframes hold nearly all its points.
    case keyframeRemoved(Int)
    /// A world tracked from images alone became metric: every length in it was multiplied by
    /// `metresPerUnit`, measured on the reference image `reference` of known width.
    case scaleFixed(metresPerUnit: Double, reference: String)
    /// The camera came back to a place it had mapped: the trajectory since and its points
    /// were corrected, and anchors should move with them.
    case loopClosed(LoopClosure)
}

/// A loop closed: keyframe `keyframe` found again at keyframe `matched`, made long before.
public struct LoopClosure: Equatable, Sendable {
    /// A keyframe's camera centre before the correction, its correction (applied on the
    /// world's side: corrected = correction · before) and, for a map from a single camera,
    /// how much lengths around it grow (1 where depth measured them).
    public struct KeyframeCorrection: Equatable, Sendable {
        public var centre: SIMD3<Double>
        public var correction: RigidTransform
        public var scale: Double

        public init(centre: SIMD3<Double>, correction: RigidTransform, scale: Double = 1) {
            (self.centre, self.correction, self.scale) = (centre, correction, scale)
        }

        /// Where a point the keyframe placed goes: its offset from the camera grown by `scale`,
        /// then moved by `correction`.
        public func apply(_ point: SIMD3<Double>) -> SIMD3<Double> {
            correction.apply(centre + scale * (point - centre))
        }
    }

    public var keyframe: Int
    public var matched: Int
    /// Points of the matched place the keyframe's pose rests on.
    public var inliers: Int
    /// Every keyframe's, in the order they were made (the identity for those before the loop).
    public var corrections: [KeyframeCorrection]
    /// Points of the keyframe joined to the matched place's points.
    public var joinedPoints: Int

    public init(keyframe: Int, matched: Int, inliers: Int, corrections: [KeyframeCorrection], joinedPoints: Int) {
        (self.keyframe, self.matched, self.inliers, self.corrections, self.joinedPoints) =
            (keyframe, matched, inliers, corrections, joinedPoints)
    }

    /// How far the keyframe was from where the place says it is, metres and degrees: the drift
    /// around the loop.
    public var correction: (translation: Double, rotationDegrees: Double) {
        (corrections.last?.correction ?? .identity).difference(to: .identity)
    }

    /// How far lengths grew at the keyframe: 1 but for a single camera's map, whose scale drifts.
    public var scaleCorrection: Double { corrections.last?.scale ?? 1 }

    /// How something in the world at `position` (before the correction) moves: with the
    /// keyframe whose camera was nearest it, turned as that keyframe turns and taken where that
    /// keyframe's correction takes its position (its own size is kept).
    public func correction(near position: SIMD3<Double>) -> RigidTransform {
        func distance(_ c: SIMD3<Double>) -> Double { ((c - position) * (c - position)).sum() }
        guard let nearest = corrections.min(by: { distance($0.centre) < distance($1.centre) }) else { return .identity }
        guard nearest.scale != 1 else { return nearest.correction }
        let shift = nearest.apply(position) - nearest.correction.applyRotation(position)
        return RigidTransform(rotation: nearest.correction.rotation, translation: [shift.x, shift.y, shift.z])
    }
}
