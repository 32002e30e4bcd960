import WaymarkCore
import WaymarkVision

/// What a session needs of its camera tracker, with depth (`WorldTracker`) or from a single
/// camera (`MonocularTracker`).
public protocol CameraTracker: AnyObject {
    /// The world map so far (a snapshot).
    var map: WorldMap { get }
    var isRelocalizing: Bool { get }
    /// The features `track(_:features:prealigned:)` expects, detected once per frame.
    var featureOptions: FeatureOptions { get }
    /// The pose the frame is expected at before its features are matched; nil when unknown.
    func expectedPose(for frame: TrackingFrame) -> RigidTransform?
    /// Work on the frame that can run beside feature detection; nil when there is none.
    func prealign(_ frame: TrackingFrame) -> Prealignment?
    func track(_ frame: TrackingFrame, features: FeatureSet, prealigned: Prealignment?) -> TrackingUpdate
    /// An interruption starts; empty when one is already under way.
    func pause() -> [TrackingEvent]
    /// A new world from the next frame on.
    func reset() -> [TrackingEvent]
    /// Ends a relocalization with a pose found another way (a reference image whose world
    /// pose anchor `anchor` holds); nil when the tracker is not relocalizing or cannot take it.
    func adopt(_ cameraToWorld: RigidTransform, for frame: TrackingFrame, anchor: Int, replacing update: TrackingUpdate)
        -> TrackingUpdate?
}

extension WorldTracker: CameraTracker {
    public var featureOptions: FeatureOptions { options.relocalization.features }
}

extension MonocularTracker: CameraTracker {
    public var featureOptions: FeatureOptions { options.features }

    /// Nothing that runs beside the features needs a pose without depth.
    public func expectedPose(for frame: TrackingFrame) -> RigidTransform? { nil }

    public func prealign(_ frame: TrackingFrame) -> Prealignment? { nil }

    public func track(_ frame: TrackingFrame, features: FeatureSet, prealigned: Prealignment?) -> TrackingUpdate {
        track(frame, features: features)
    }
}

extension TrackingUpdate {
    /// This frame's update with the camera back at `cameraToWorld`, found on image anchor `anchor`.
    func relocalized(at cameraToWorld: RigidTransform, onAnchor anchor: Int) -> TrackingUpdate {
        var adopted = self
        adopted.state = .normal
        adopted.mapping = .mapped
        adopted.cameraToWorld = cameraToWorld
        adopted.poseSource = .imageAnchor
        adopted.events.append(.relocalizedOnAnchor(anchor))
        return adopted
    }
}
