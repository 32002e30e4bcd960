import WaymarkCore
import WaymarkVision

/// When tracking makes a keyframe: by what the camera sees, never by metres, so that a table
/// top and a hall take the same defaults (ORB-SLAM's rule).
public struct KeyframePolicy: Equatable, Sendable {
    /// A view becomes a keyframe when it tracks less than this share of its reference
    /// keyframe's points (the keyframe it shares most tracked points with).
    public var trackedShare = 0.5
    public var features = FeatureOptions(maxFeatures: 1000)

    public init() {}
}

/// What a session remembers of the world: keyframes to come back to, and the anchors placed
/// in it. A value: a session's map handed out is a snapshot that later frames do not change.
/// Saved to and loaded from `.waymap` files (WorldMap+File).
public struct WorldMap {
    public private(set) var keyframes: [Keyframe] = []
    public var anchors: [WorldAnchor] = []
    /// The keyframes (indices) that hold each point. A keyframe made while tracking takes over
    /// the positions of the points it tracked, exactly, so equal positions are one landmark seen
    /// from several keyframes: what ties keyframes together (covisibility) without an identifier
    /// to keep in the file.
    private var holders: [SIMD3<Double>: [Int]] = [:]

    public init(keyframes: [Keyframe] = [], anchors: [WorldAnchor] = []) {
        self.anchors = anchors
        for keyframe in keyframes { add(keyframe) }
    }

    public var nextKeyframeID: Int { (keyframes.map(\.id).max() ?? -1) + 1 }

    public mutating func add(_ keyframe: Keyframe) {
        precondition(!keyframes.contains { $0.id == keyframe.id }, "keyframe ids are unique")
        for point in Set(keyframe.points) { holders[point, default: []].append(keyframes.count) }
        keyframes.append(keyframe)
    }

    /// Keyframe `index` replaced by `keyframe` (the same keyframe adjusted: its id).
    public mutating func replace(_ index: Int, with keyframe: Keyframe) {
        precondition(keyframes[index].id == keyframe.id, "a keyframe is replaced by itself adjusted")
        for point in Set(keyframes[index].points) {
            holders[point]?.removeAll { $0 == index }
            if holders[point]?.isEmpty ?? false { holders[point] = nil }
        }
        for point in Set(keyframe.points) { holders[point, default: []].append(index) }
        keyframes[index] = keyframe
    }

    public func index(ofKeyframe id: Int) -> Int? { keyframes.firstIndex { $0.id == id } }

    /// The keyframes (indices) that hold `point`.
    public func holders(of point: SIMD3<Double>) -> [Int] { holders[point] ?? [] }

    /// The keyframes that share points with keyframe `index`, most shared first, and how many.
    public func covisible(with index: Int) -> [(keyframe: Int, shared: Int)] {
        var shared: [Int: Int] = [:]
        for point in Set(keyframes[index].points) {
            for other in holders[point] ?? [] where other != index { shared[other, default: 0] += 1 }
        }
        return shared.map { ($0.key, $0.value) }.sorted { $0.shared > $1.shared || ($0.shared == $1.shared && $0.keyframe > $1.keyframe) }
    }

    /// Distinct points: one seen from several keyframes counts once.
    public var pointCount: Int { holders.count }

    /// Whether some keyframe has points to relocalize against.
    public var hasPoints: Bool { keyframes.contains { !$0.points.isEmpty } }

    /// No points and no anchors: nothing to come back to.
    public var isEmpty: Bool { !hasPoints && anchors.isEmpty }
}
