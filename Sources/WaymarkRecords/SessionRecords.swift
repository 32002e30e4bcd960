import Waymark

/// The coaching message on screen.
public struct CoachingRecord: Codable, Sendable {
    public var code: String
    public var text: String
    public var language: String

    public init(_ message: CoachingMessage) {
        code = message.code.rawValue
        text = message.text
        language = message.language.rawValue
    }
}

/// The scene's light on a frame (`LightEstimate`, smoothed): ARKit's ambient intensity (1000 for
/// a frame exposed for middle gray), and from a colour frame its colour temperature (kelvin) and
/// ARCore's colour correction (linear RGB gains, green 1); with depth, once the shading of the
/// planes tells, the main light's direction (world, towards the light) and its confidence (0–1).
public struct LightRecord: Codable, Sendable {
    public var ambientIntensity: Double
    public var colorTemperature: Double?
    public var colorCorrection: [Double]?
    public var mainLightDirection: [Double]?
    public var mainLightConfidence: Double?

    public init(_ light: LightEstimate) {
        ambientIntensity = (light.ambientIntensity * 10).rounded() / 10
        colorTemperature = light.colorTemperature?.rounded()
        colorCorrection = light.colorCorrection.map { [$0.x, $0.y, $0.z].map { ($0 * 10_000).rounded() / 10_000 } }
        mainLightDirection = light.mainLight.map { [$0.direction.x, $0.direction.y, $0.direction.z].map { ($0 * 10_000).rounded() / 10_000 } }
        mainLightConfidence = light.mainLight.map { ($0.confidence * 100).rounded() / 100 }
    }
}

/// The camera's tracking state and, when limited, why.
public struct TrackingStateRecord: Codable, Sendable {
    public var state: String
    public var reason: String?

    public init(_ state: TrackingState) {
        self.state = state.name
        reason = state.reason?.rawValue
    }
}

/// One of the session's tracking events.
public struct TrackingEventRecord: Codable, Sendable {
    /// interrupted, relocalized, relocalization_cancelled, reset, keyframe_added,
    /// keyframe_removed, loop_closed, scale_fixed.
    public var event: String
    /// interrupted: gap, tracking_lost or paused.
    public var cause: String?
    public var keyframe: Int?
    public var inliers: Int?
    /// relocalized on an image anchor: its id.
    public var anchor: Int?
    /// loop_closed: the earlier keyframe the place was found at, the drift corrected (metres
    /// and degrees; from a single camera also the scale, how many times longer the place
    /// measured lengths there, absent where depth measured them) and how many of the
    /// keyframe's points were joined to the place's.
    public var matched: Int?
    public var correctionMetres: Double?
    public var correctionDegrees: Double?
    public var scaleCorrection: Double?
    public var joinedPoints: Int?
    /// scale_fixed: what every length of the world was multiplied by, and the reference image
    /// of known width it was measured on.
    public var metresPerUnit: Double?
    public var reference: String?

    public init(_ event: TrackingEvent) {
        switch event {
        case .interrupted(let cause): (self.event, self.cause) = ("interrupted", cause.rawValue)
        case .relocalized(let keyframe, let inliers): (self.event, self.keyframe, self.inliers) = ("relocalized", keyframe, inliers)
        case .relocalizedOnAnchor(let id): (self.event, anchor) = ("relocalized", id)
        case .relocalizationCancelled: self.event = "relocalization_cancelled"
        case .reset: self.event = "reset"
        case .keyframeAdded(let id): (self.event, keyframe) = ("keyframe_added", id)
        case .keyframeRemoved(let id): (self.event, keyframe) = ("keyframe_removed", id)
        case .scaleFixed(let factor, let name): (self.event, metresPerUnit, reference) = ("scale_fixed", factor, name)
        case .loopClosed(let loop):
            (self.event, keyframe, matched, inliers, joinedPoints) = ("loop_closed", loop.keyframe, loop.matched, loop.inliers, loop.joinedPoints)
            (correctionMetres, correctionDegrees) = loop.correction
            scaleCorrection = loop.scaleCorrection == 1 ? nil : loop.scaleCorrection
        }
    }
}

/// A world anchor, or what happened to one: added, hidden, restored, removed, or present (the
/// summary's).
public struct AnchorRecord: Codable, Sendable {
    public var event: String
    public var id: Int
    /// plane, image or named; absent for hidden and removed.
    public var kind: String?
    public var name: String?
    /// Anchor-to-world 4×4, row-major.
    public var transform: [Double]?
    public var extent: [Double]?

    public init(event: String, id: Int, kind: String? = nil, name: String? = nil, transform: [Double]? = nil,
                extent: [Double]? = nil)
    {
        (self.event, self.id, self.kind, self.name, self.transform, self.extent) = (event, id, kind, name, transform, extent)
    }

    public init(_ anchor: WorldAnchor, event: String) {
        self.init(event: event, id: anchor.id, kind: anchor.kind.rawValue, name: anchor.name,
                  transform: anchor.transform.record, extent: [anchor.extent.x, anchor.extent.y])
    }

    public init(_ event: AnchorEvent) {
        switch event {
        case .added(let anchor): self.init(anchor, event: "added")
        case .restored(let anchor): self.init(anchor, event: "restored")
        case .moved(let anchor): self.init(anchor, event: "moved")
        case .hidden(let id): self.init(event: "hidden", id: id)
        case .removed(let id): self.init(event: "removed", id: id)
        }
    }
}

/// A relocalization attempt on this frame.
public struct RelocalizationRecord: Codable, Sendable {
    public var reason: String
    public var inliers: Int
}
