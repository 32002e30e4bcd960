import Foundation
import WaymarkCore
import WaymarkVision

/// When tracking makes a keyframe: by what the camera sees, never by metres, so that a table
/// top and a hall take the same defaults (ORB-SLAM's rule).
public struct KeyframePolicy: Equatable, Sendable {
    /// A view becomes a keyframe when it tracks less than this share of its reference
    /// keyframe's trackable points (the keyframe it shares most tracked points with; its
    /// trackable points: as many as the first frame to track it tracked).
    /// ORB-SLAM2's ratio for RGB-D.
    public var trackedShare = 0.75
    /// A keyframe is redundant, and culled, when at least this share of its points are held
    /// by `redundantHolders` other keyframes or more (ORB-SLAM's 90 % and 3).
    public var redundantShare = 0.9
    public var redundantHolders = 3
    public var features = FeatureOptions(maxFeatures: 1000)

    public init() {}
}

/// What a session remembers of the world: keyframes to come back to, and the anchors placed
/// in it. A value: a session's map handed out is a snapshot that later frames do not change.
/// Saved to and loaded from `.waymap` files (WorldMap+File).
public struct WorldMap {
    public private(set) var keyframes: [Keyframe] = []
    public var anchors: [WorldAnchor] = []
    /// Whether its lengths are metres: not for a map tracked from images alone whose scale
    /// nothing has fixed yet (its unit is the initialization's).
    public var isMetric: Bool
    /// The keyframes (indices) that hold each point. A keyframe made while tracking takes over
    /// the positions of the points it tracked, exactly, so equal positions are one landmark seen
    /// from several keyframes: what ties keyframes together (covisibility) without an identifier
    /// to keep in the file.
    private var holders: [SIMD3<Double>: [Int]] = [:]

    public init(keyframes: [Keyframe] = [], anchors: [WorldAnchor] = [], isMetric: Bool = true) {
        self.anchors = anchors
        self.isMetric = isMetric
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
        forgetHolder(index)
        for point in Set(keyframe.points) { holders[point, default: []].append(index) }
        keyframes[index] = keyframe
    }

    /// The keyframes (indices) among `candidates` that others make redundant: at least `share`
    /// of their points held by `holders` other keyframes that stay. Judged one after the other,
    /// so two keyframes that only hold each other's points are not both redundant.
    public func redundantKeyframes(among candidates: [Int], share: Double, holders required: Int) -> [Int] {
        var culled = Set<Int>()
        for k in candidates {
            let points = Set(keyframes[k].points)
            guard !points.isEmpty else { continue }
            let held = points.filter { point in
                (holders[point] ?? []).lazy.filter { $0 != k && !culled.contains($0) }.count >= required
            }.count
            if Double(held) >= share * Double(points.count) { culled.insert(k) }
        }
        return candidates.filter(culled.contains)
    }

    /// Removes those of keyframe `index`'s `among` most covisible keyframes that others make
    /// redundant (`redundantKeyframes`), never the first keyframe (it holds the world's origin)
    /// nor `index`; returns the removed keyframes' ids and `index` after removal.
    public mutating func cullRedundantNeighbours(of index: Int, among neighbours: Int, share: Double, holders: Int)
        -> (removed: [Int], index: Int)
    {
        let candidates = covisible(with: index).prefix(neighbours).map(\.keyframe).filter { $0 != 0 }
        let redundant = redundantKeyframes(among: candidates, share: share, holders: holders)
        guard !redundant.isEmpty else { return ([], index) }
        let id = keyframes[index].id
        let removed = redundant.sorted().map { keyframes[$0].id }
        removeKeyframes(Set(redundant))
        return (removed, self.index(ofKeyframe: id)!)
    }

    /// Removes the keyframes at `indices`; later keyframes move down. Their points stay where
    /// another keyframe holds them.
    public mutating func removeKeyframes(_ indices: Set<Int>) {
        guard !indices.isEmpty else { return }
        for index in indices { forgetHolder(index) }
        // Each remaining index moves down by the number of removed ones before it.
        var newIndex = [Int](repeating: -1, count: keyframes.count)
        var next = 0
        for k in keyframes.indices where !indices.contains(k) {
            newIndex[k] = next
            next += 1
        }
        holders = holders.mapValues { $0.map { newIndex[$0] } }
        keyframes = keyframes.indices.filter { !indices.contains($0) }.map { keyframes[$0] }
    }

    /// Keyframe `index` no longer holds its points (a point no keyframe holds is gone).
    private mutating func forgetHolder(_ index: Int) {
        for point in Set(keyframes[index].points) {
            holders[point]?.removeAll { $0 == index }
            if holders[point]?.isEmpty ?? false { holders[point] = nil }
        }
    }

    public func index(ofKeyframe id: Int) -> Int? { keyframes.firstIndex { $0.id == id } }

    /// The keyframes (indices) that hold `point`.
    public func holders(of point: SIMD3<Double>) -> [Int] { holders[point] ?? [] }

    /// The largest angle, degrees, between the rays to `point` from the keyframes that hold
    /// it: how well two views pin its depth (0 for a point one keyframe holds).
    public func parallaxDegrees(of point: SIMD3<Double>) -> Double {
        let rays = holders(of: point).map { k in
            let ray = point - keyframes[k].cameraCentre
            return ray / (ray * ray).sum().squareRoot()
        }
        var smallestCosine = 1.0
        for i in rays.indices {
            for j in rays.indices where j > i { smallestCosine = min(smallestCosine, (rays[i] * rays[j]).sum()) }
        }
        return acos(max(-1, smallestCosine)) * 180 / .pi
    }

    /// The keyframes that share points with keyframe `index`, most shared first, and how many.
    public func covisible(with index: Int) -> [(keyframe: Int, shared: Int)] {
        var shared: [Int: Int] = [:]
        for point in Set(keyframes[index].points) {
            for other in holders[point] ?? [] where other != index { shared[other, default: 0] += 1 }
        }
        return shared.map { ($0.key, $0.value) }.sorted { $0.shared > $1.shared || ($0.shared == $1.shared && $0.keyframe > $1.keyframe) }
    }

    /// The keyframe (index) with most points in a `width`×`height` view from `worldToCamera`;
    /// nil when no keyframe has a point in it.
    public func keyframeSeeingMost(from worldToCamera: RigidTransform, intrinsics: Intrinsics, width: Int, height: Int) -> Int? {
        let counts = keyframes.map { keyframe in
            keyframe.points.count { intrinsics.pixel(seeing: worldToCamera.apply($0), width: width, height: height) != nil }
        }
        guard let best = counts.indices.max(by: { counts[$0] < counts[$1] }), counts[best] > 0 else { return nil }
        return best
    }

    /// Distinct points: one seen from several keyframes counts once.
    public var pointCount: Int { holders.count }

    /// Whether some keyframe has points to relocalize against.
    public var hasPoints: Bool { keyframes.contains { !$0.points.isEmpty } }

    /// No points and no anchors: nothing to come back to.
    public var isEmpty: Bool { !hasPoints && anchors.isEmpty }
}
