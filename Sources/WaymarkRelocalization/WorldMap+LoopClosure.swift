import WaymarkCore
import WaymarkVision

extension WorldMap {
    /// Moves keyframe `current` to `cameraToWorld` (where an earlier place, keyframe `matched`,
    /// says it is) and spreads that correction over the keyframes made after `matched`: each
    /// link from one keyframe to the next takes a part in inverse proportion to the points
    /// the two share, plus one (a relative pose measured on n points has a variance about
    /// 1/n, so this is what a pose graph over the chain would do). A link that shares none,
    /// where tracking broke (a plain wall, a blurred turn carried over by odometry alone),
    /// takes the most. (Spread by the distance travelled instead, the coaching walk-through's
    /// 4 m jump at its plain wall left its keyframes 25 cm off; this way 2 cm.) Each point
    /// moves with the first keyframe that holds it. Returns every keyframe's camera centre
    /// before, and its correction (world side), in map order.
    public mutating func spreadCorrection(of current: Int, to cameraToWorld: RigidTransform, after matched: Int)
        -> [LoopClosure.KeyframeCorrection]
    {
        precondition(matched < current, "a loop closes on an earlier keyframe")
        let whole = (cameraToWorld * keyframes[current].cameraToWorld.inverse).orthonormalized
        let links = (matched + 1)...current
        // The parts taken up to each keyframe.
        var taken = [Double](repeating: 0, count: keyframes.count)
        for k in links {
            let shared = keyframes[k].points.count { holders(of: $0).contains(k - 1) }
            taken[k] = taken[k - 1] + 1 / Double(shared + 1)
        }
        let total = taken[current]
        let corrections = keyframes.indices.map { k -> RigidTransform in
            k <= matched ? .identity : k >= current ? whole : whole.share(taken[k] / total)
        }
        var moves: [SIMD3<Double>: SIMD3<Double>] = [:]
        for k in (matched + 1)..<keyframes.count {
            for point in keyframes[k].points where moves[point] == nil && holders(of: point).min() == k {
                moves[point] = corrections[k].apply(point)
            }
        }
        let before = zip(keyframes, corrections).map { LoopClosure.KeyframeCorrection(centre: $0.cameraCentre, correction: $1) }
        rewrite(poses: corrections, moving: moves)
        return before
    }

    /// Joins keyframe `current`'s points to the points around keyframe `matched` they are: its
    /// features matched by projection from its pose (within `options.refinedRadius`), kept
    /// where the two positions lie within 3 % of the point's depth. Each joined point takes
    /// the earlier position in every keyframe that holds it, which ties the two places
    /// together (covisibility). Returns how many were joined.
    public mutating func joinPoints(of current: Int, toPlaceOf matched: Int, options: LocalMapOptions) -> Int {
        let keyframe = keyframes[current]
        let place = LocalMap(self, reference: matched, neighbours: options.neighbours)
        let search = ProjectedFeatureSearch(keyframe.features, width: keyframe.width, height: keyframe.height)
        let worldToCamera = keyframe.cameraToWorld.inverse
        var moves: [SIMD3<Double>: SIMD3<Double>] = [:]
        for match in place.match(search, worldToCamera: worldToCamera, intrinsics: keyframe.intrinsics,
                                 width: keyframe.width, height: keyframe.height, radius: options.refinedRadius, options: options)
        {
            let (from, to) = (keyframe.points[match.feature], place.positions[match.landmark])
            let depth = worldToCamera.apply(from).z
            guard from != to, moves[from] == nil, ((from - to) * (from - to)).sum() <= (0.03 * depth) * (0.03 * depth) else { continue }
            moves[from] = to
        }
        rewrite(poses: nil, moving: moves)
        return moves.count
    }

    /// Each keyframe moved by its correction (`poses`, world side; nil leaves them) and each
    /// point in `moving` at its new position in every keyframe that holds it.
    private mutating func rewrite(poses corrections: [RigidTransform]?, moving moves: [SIMD3<Double>: SIMD3<Double>]) {
        for k in keyframes.indices {
            let keyframe = keyframes[k]
            let correction = corrections?[k] ?? .identity
            let points = keyframe.points.map { moves[$0] ?? $0 }
            guard correction != .identity || points != keyframe.points else { continue }
            let pose = correction == .identity ? keyframe.cameraToWorld : (correction * keyframe.cameraToWorld).orthonormalized
            replace(k, with: keyframe.adjusted(cameraToWorld: pose, points: points, keeping: Array(keyframe.points.indices)))
        }
    }
}

/// When tracking looks for a loop: after each keyframe, among keyframes neither recent nor
/// sharing points with it, verified as a relocalization is.
public struct LoopClosureOptions: Equatable, Sendable {
    /// The last this many keyframes are not a loop (they are where the camera just was).
    public var recentKeyframes = 10
    /// The places are indexed once the map has this many keyframes, and again each time it
    /// has grown by `reindexGrowth` (an index of 200 keyframes costs about 0.8 s, nearly all of
    /// it training a vocabulary, which the tracker renews on the same growth; the places a
    /// loop returns to are old ones, so a lagging index loses none).
    public var minimumKeyframes = 20
    public var reindexGrowth = 1.5

    public init() {}
}
