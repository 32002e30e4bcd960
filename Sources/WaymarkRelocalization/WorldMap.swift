import WaymarkCore
import WaymarkVision

public struct KeyframePolicy: Equatable, Sendable {
    /// A view becomes a keyframe when it is this far, metres, from every keyframe's camera…
    public var distance = 0.15
    /// …or turned this much, degrees, from every keyframe within that distance.
    public var angleDegrees = 15.0
    public var features = FeatureOptions(maxFeatures: 1000)

    public init() {}
}

/// What a session remembers of the world: keyframes to come back to, and the anchors placed
/// in it. A value: a session's map handed out is a snapshot that later frames do not change.
/// Saved to and loaded from `.waymap` files (WorldMap+File).
public struct WorldMap {
    public private(set) var keyframes: [Keyframe] = []
    public var anchors: [WorldAnchor] = []

    public init(keyframes: [Keyframe] = [], anchors: [WorldAnchor] = []) {
        self.keyframes = keyframes
        self.anchors = anchors
    }

    public var nextKeyframeID: Int { (keyframes.map(\.id).max() ?? -1) + 1 }

    public mutating func add(_ keyframe: Keyframe) {
        precondition(!keyframes.contains { $0.id == keyframe.id }, "keyframe ids are unique")
        keyframes.append(keyframe)
    }

    /// Whether a view from `cameraToWorld` sees the world from somewhere no keyframe does.
    public func needsKeyframe(at cameraToWorld: RigidTransform, policy: KeyframePolicy = KeyframePolicy()) -> Bool {
        !keyframes.contains {
            let d = $0.cameraToWorld.difference(to: cameraToWorld)
            return d.translation < policy.distance && d.rotationDegrees < policy.angleDegrees
        }
    }

    public var pointCount: Int { keyframes.reduce(0) { $0 + $1.points.count } }

    /// Whether some keyframe has points to relocalize against.
    public var hasPoints: Bool { keyframes.contains { !$0.points.isEmpty } }

    /// No points and no anchors: nothing to come back to.
    public var isEmpty: Bool { !hasPoints && anchors.isEmpty }
}
