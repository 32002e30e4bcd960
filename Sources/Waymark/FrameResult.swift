/// One frame into a session. `image` is gray or BGR; colour lets reference images be found in
/// colour-converted gray exactly as in a still.
public struct SessionFrame {
    public var timestamp: Double
    public var image: Image
    public var depth: DepthImage?
    /// A pose recorded with the frame (motion capture, a robot's odometry), camera-to-world.
    public var recordedPose: RigidTransform?
    /// The direction of gravity in the camera's coordinates (an IMU's): surfaces are classified
    /// by it when the frame has no pose.
    public var gravity: SIMD3<Double>?

    public init(timestamp: Double, image: Image, depth: DepthImage? = nil, recordedPose: RigidTransform? = nil,
                gravity: SIMD3<Double>? = nil)
    {
        self.timestamp = timestamp
        self.image = image
        self.depth = depth
        self.recordedPose = recordedPose
        self.gravity = gravity
    }
}

/// What happened to a world anchor.
public enum AnchorEvent: Sendable {
    case added(WorldAnchor)
    /// An interruption: the anchor is not shown until the camera is found again.
    case hidden(Int)
    case restored(WorldAnchor)
    /// A loop closed: the anchor moved with the corrected path (its new pose).
    case moved(WorldAnchor)
    /// A reset: the anchor is gone.
    case removed(Int)
}

/// Everything one frame gave.
public struct FrameResult {
    public var timestamp: Double
    /// The camera's tracking; nil when the input has no depth (a video).
    public var tracking: TrackingUpdate?
    public var detections: [ImageDetection]
    /// This frame's surfaces (camera coordinates) and the world anchor each joined.
    public var planes: [DetectedPlane]
    public var planeAnchorIDs: [Int?]
    public var planeEvents: [PlaneEvent]
    public var anchorEvents: [AnchorEvent]
    public var signals: GuidanceSignals
    public var coaching: CoachingUpdate
    /// The scene's light, smoothed over the last frames (`LightSmoother`); its colour is nil for
    /// gray input.
    public var light: LightEstimate

    /// An interruption began on this frame (a time gap, or tracking lost): save the map now.
    public var interruptionStarted: Bool {
        tracking?.events.contains { if case .interrupted = $0 { true } else { false } } ?? false
    }

    /// The camera's pose in the world, when known.
    public var cameraToWorld: RigidTransform? { tracking?.cameraToWorld }
}
