import WaymarkCore

/// What a frame tracked of its reference keyframe, the measure keyframes are made by: the
/// reference is the keyframe that holds most of the frame's tracked points, and its trackable
/// points are as many as the first frame to track it tracked. Fixed then: a maximum would rise
/// when a frame repeats the keyframe's view, and a revisit would re-add every keyframe.
struct TrackedShare {
    /// By keyframe id: its trackable points.
    private var trackable: [Int: Int] = [:]

    /// The keyframe (index into `map`) holding most of `tracked` (ties: the later) and the
    /// share of its trackable points they are; nil when no keyframe holds any.
    mutating func reference(of tracked: [(feature: Int, point: SIMD3<Double>)], in map: WorldMap)
        -> (keyframe: Int, share: Double)?
    {
        var counts: [Int: Int] = [:]
        for t in tracked {
            for holder in map.holders(of: t.point) { counts[holder, default: 0] += 1 }
        }
        guard let best = counts.max(by: { $0.value < $1.value || ($0.value == $1.value && $0.key < $1.key) }) else { return nil }
        let id = map.keyframes[best.key].id
        let trackableCount = trackable[id] ?? best.value
        trackable[id] = trackableCount
        return (best.key, Double(best.value) / Double(trackableCount))
    }

    /// A removed keyframe's count is forgotten.
    mutating func forget(keyframe id: Int) { trackable[id] = nil }
}
