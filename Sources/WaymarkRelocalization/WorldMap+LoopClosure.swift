import Foundation
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
    /// moves with the first keyframe that holds it.
    ///
    /// `scale`: how many times longer the place measures lengths at `current` than the map
    /// does there (a single camera's map drifts in scale as well as in pose). It is spread
    /// the same way, geometrically: each link's step, and the points its keyframe placed, grow
    /// by the scale's share at that link before the rigid part is spread. Returns every
    /// keyframe's camera centre before, and its correction, in map order.
    public mutating func spreadCorrection(of current: Int, to cameraToWorld: RigidTransform, after matched: Int,
                                          scale: Double = 1) -> [LoopClosure.KeyframeCorrection]
    {
        precondition(matched < current, "a loop closes on an earlier keyframe")
        precondition(scale > 0 && scale.isFinite, "a scale is a positive number")
        // The parts taken up to each keyframe.
        var taken = [Double](repeating: 0, count: keyframes.count)
        for k in ((matched + 1)...current) {
            let shared = keyframes[k].points.count { holders(of: $0).contains(k - 1) }
            taken[k] = taken[k - 1] + 1 / Double(shared + 1)
        }
        for k in keyframes.indices.dropFirst(current + 1) { taken[k] = taken[current] }
        let total = taken[current]
        let part = keyframes.indices.map { k in k <= matched ? 0 : taken[k] / total }
        // The chain of camera centres with each step grown by its link's scale.
        let centres = keyframes.map(\.cameraCentre)
        var scaled = centres
        for k in keyframes.indices.dropFirst(matched + 1) {
            scaled[k] = scaled[k - 1] + pow(scale, part[k]) * (centres[k] - centres[k - 1])
        }
        let shifts = keyframes.indices.map { k in
            let shift = scaled[k] - centres[k]
            return RigidTransform(rotation: RigidTransform.identity.rotation, translation: [shift.x, shift.y, shift.z])
        }
        let whole = (cameraToWorld * (shifts[current] * keyframes[current].cameraToWorld).inverse).orthonormalized
        let corrections = keyframes.indices.map { k in
            LoopClosure.KeyframeCorrection(centre: centres[k], correction: part[k] == 0 ? .identity : whole.share(part[k]) * shifts[k],
                                           scale: pow(scale, part[k]))
        }
        var moves: [SIMD3<Double>: SIMD3<Double>] = [:]
        for k in (matched + 1)..<keyframes.count {
            for point in keyframes[k].points where moves[point] == nil && holders(of: point).min() == k {
                moves[point] = corrections[k].apply(point)
            }
        }
        rewrite(poses: corrections.map(\.correction), moving: moves)
        return corrections
    }

    /// Joins keyframe `current`'s points to the points around keyframe `matched` they are: its
    /// features matched by projection from its pose (within `options.refinedRadius`), kept
    /// where the two positions lie within 3 % of the point's depth. Each joined point takes
    /// the earlier position in every keyframe that holds it, which ties the two places
    /// together (covisibility). Returns how many were joined.
    public mutating func joinPoints(of current: Int, toPlaceOf matched: Int, options: LocalMapOptions) -> Int {
        let worldToCamera = keyframes[current].cameraToWorld.inverse
        var moves: [SIMD3<Double>: SIMD3<Double>] = [:]
        for (from, to) in pointsMatched(of: current, at: keyframes[current].cameraToWorld, toPlaceOf: matched, options: options) {
            let depth = worldToCamera.apply(from).z
            guard from != to, moves[from] == nil, ((from - to) * (from - to)).sum() <= (0.03 * depth) * (0.03 * depth) else { continue }
            moves[from] = to
        }
        rewrite(poses: nil, moving: moves)
        return moves.count
    }

    /// Where keyframe `current` is by the place around keyframe `matched`, from their points:
    /// its features matched by projection to the place's points from `cameraToWorld` (where a
    /// relocalization put it), those pairs that agree in space (the keyframe's point, its offset
    /// from the camera grown by the scale, within `tolerance` of the place's point as a share of
    /// the latter's depth), and the similarity (a rigid transform where depth measured both,
    /// `withScale` off) that maps the keyframe's agreeing points onto the place's, fitted to
    /// them and fitted again to those that agree with it. The pose is that transform applied to
    /// the keyframe's, as ORB-SLAM fits its loops' Sim3 to 3D–3D matches; it is a second measure
    /// beside the relocalized pose (on the exact table-top the fit was 0.05–0.36° off, the
    /// relocalized poses 0.13–0.41°), and the scale comes with it. The scale starts as the
    /// median ratio of the pairs' depths (a single camera's map drifts in scale). A wrong place
    /// (a planar view's mirror pose passes the image checks) matches points by projection that
    /// lie elsewhere, and few agree. Nil when none match.
    public func alignment(of current: Int, at cameraToWorld: RigidTransform, withPlaceOf matched: Int,
                          options: LocalMapOptions, withScale: Bool, tolerance: Double) -> PlaceAlignment?
    {
        let keyframe = keyframes[current]
        let (own, place) = (keyframe.cameraToWorld.inverse, cameraToWorld.inverse)
        let pairs = pointsMatched(of: current, at: cameraToWorld, toPlaceOf: matched, options: options).filter { from, to in
            own.apply(from).z > 0 && place.apply(to).z > 0
        }
        guard !pairs.isEmpty else { return nil }
        let depths = pairs.map { place.apply($0.to).z }
        // The keyframe's points as the place sees them: offsets from the camera grown by the scale,
        // then carried by the relocalized pose. A similarity as `alignPoints` gives it:
        // x ↦ scale · R x + t.
        let scale = withScale ? {
            let ratios = pairs.indices.map { depths[$0] / own.apply(pairs[$0].from).z }.sorted()
            return ratios[ratios.count / 2]
        }() : 1
        let turn = cameraToWorld * own
        let shift = cameraToWorld.translationVector - scale * turn.applyRotation(keyframe.cameraCentre)
        var similarity = (transform: RigidTransform(rotation: turn.rotation, translation: [shift.x, shift.y, shift.z]),
                          scale: scale)
        func apply(_ x: SIMD3<Double>) -> SIMD3<Double> {
            similarity.scale * similarity.transform.applyRotation(x) + similarity.transform.translationVector
        }
        // Each pair's distance after the similarity, as a share of its depth from the place's camera.
        func misfits() -> [Double] {
            pairs.indices.map { k in
                let d = apply(pairs[k].from) - pairs[k].to
                return (d * d).sum().squareRoot() / depths[k]
            }
        }
        let firstMisfit = misfits()
        let agreeingAtFirst = pairs.indices.filter { firstMisfit[$0] <= tolerance }
        var inliers = agreeingAtFirst
        // Refitted thrice, each time to the pairs within three times the inliers' median misfit
        // (and the tolerance): a wrong match to a nearby point far from the camera passes the
        // tolerance and would tilt a fit by all.
        for _ in 0..<3 where inliers.count >= 3 {
            guard let fitted = try? alignPoints(inliers.map { pairs[$0].from }, onto: inliers.map { pairs[$0].to },
                                                withScale: withScale)
            else { break }
            similarity = fitted
            let misfit = misfits()
            let median = inliers.map { misfit[$0] }.sorted()[inliers.count / 2]
            inliers = pairs.indices.filter { misfit[$0] <= min(tolerance, 3 * median) }
        }
        let kept = inliers.map { depths[$0] }.sorted()
        let centre = apply(keyframe.cameraCentre)
        var pose = (similarity.transform * keyframe.cameraToWorld).orthonormalized
        pose.translation = [centre.x, centre.y, centre.z]
        return PlaceAlignment(cameraToWorld: pose, scale: similarity.scale, agreeing: agreeingAtFirst.count, matched: pairs.count,
                              medianDepth: kept.isEmpty ? 0 : kept[kept.count / 2])
    }

    /// Keyframe `current`'s points and the points around keyframe `matched` its features match
    /// by projection from `cameraToWorld`.
    private func pointsMatched(of current: Int, at cameraToWorld: RigidTransform, toPlaceOf matched: Int,
                               options: LocalMapOptions) -> [(from: SIMD3<Double>, to: SIMD3<Double>)]
    {
        let keyframe = keyframes[current]
        let place = LocalMap(self, reference: matched, neighbours: options.neighbours)
        let search = ProjectedFeatureSearch(keyframe.features, width: keyframe.width, height: keyframe.height)
        return place.match(search, worldToCamera: cameraToWorld.inverse, intrinsics: keyframe.intrinsics, width: keyframe.width,
                           height: keyframe.height, radius: options.refinedRadius, options: options)
            .map { (keyframe.points[$0.feature], place.positions[$0.landmark]) }
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

/// Where a keyframe is by a place it came back to (`WorldMap.alignment`): its pose and how many
/// times longer the place measures lengths there than the keyframe's points did, how many of
/// the point pairs matched by projection agree with the relocalized pose, and the median depth
/// of those the fit kept, in the place's units.
public struct PlaceAlignment: Equatable, Sendable {
    public var cameraToWorld: RigidTransform
    public var scale: Double
    public var agreeing: Int
    public var matched: Int
    public var medianDepth: Double
}

/// When tracking looks for a loop: after each keyframe, among keyframes neither recent nor
/// its neighbours, verified as a relocalization is and then in space.
public struct LoopClosureOptions: Equatable, Sendable {
    /// The last this many keyframes are not a loop (they are where the camera just was).
    public var recentKeyframes = 10
    /// Keyframes sharing at least this many points with the new one are its neighbourhood, not
    /// a loop (ORB-SLAM's covisibility graph links keyframes at 15). A camera coming round an
    /// object re-finds a few of the first keyframes' points before the loop is closed: on the
    /// table-top circle from a single camera, the last keyframes shared 4–12 with the first.
    public var connectedPoints = 15
    /// The places are indexed once the map has this many keyframes, and again each time it
    /// has grown by `reindexGrowth` (an index of 200 keyframes costs about 0.8 s, nearly all of
    /// it training a vocabulary, which the tracker renews on the same growth; the places a
    /// loop returns to are old ones, so a lagging index loses none).
    public var minimumKeyframes = 20
    public var reindexGrowth = 1.5
    /// A place found in the image must also agree in space (`WorldMap.alignment`, ORB-SLAM
    /// checks its Sim3 on 3D–3D matches): at least this many of the keyframe's points matched
    /// to the place's within `agreementTolerance` of their depth, and at least
    /// `minimumAgreeingShare` of the matched. On the table-top circle from a single camera the
    /// relocalizer accepted mirror poses 80–108° off (a planar view passes its image checks);
    /// their points agreed 48–60 of 140–159, the true place's 229 of 230.
    public var minimumAgreeingPoints = 30
    public var minimumAgreeingShare = 0.5
    public var agreementTolerance = 0.05
    /// The pose the points' fit gives and the relocalized pose, two measures of one thing, may
    /// differ by this much (degrees; camera centre, a share of the points' median depth). A
    /// mirror pose 104° off on the table-top of another seed had 66 of 131 points agree, and
    /// its points' fit put the camera 1.6° from where it was; true loops differed by 0.2–1.2°.
    public var largestDisagreementDegrees = 5.0
    public var largestDisagreementDepthShare = 0.1
    /// A loop whose correction is smaller than these in every part (rotation, degrees; camera
    /// centre, a share of the median depth of the points it was measured on; scale, a share)
    /// leaves the path where it is and only joins the points: it is no larger than a loop's
    /// own measurement error. On the exact table-top, whose keyframes were 0.003° off, the
    /// loops measured 0.14–0.36° (their points' fit) and 0.13–0.41° (the relocalized pose).
    public var smallestCorrectionDegrees = 0.5
    public var smallestCorrectionDepthShare = 0.01
    public var smallestScaleCorrection = 0.01

    public init() {}
}
