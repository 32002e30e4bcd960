import WaymarkCore
import WaymarkVision

/// The places a loop can return to, for either tracker: an index of the map as it was when
/// last made, renewed when the map has grown by `LoopClosureOptions.reindexGrowth`, searched
/// for a new keyframe among the keyframes neither recent nor its neighbours.
struct LoopPlaces {
    private var index: Relocalizer?

    /// The index holds positions from before a correction, or a map that is gone.
    mutating func forget() { index = nil }

    /// A keyframe found at an earlier place: where the place says it is, the place's keyframe
    /// (index), the relocalization's inliers, and how many times longer the place measures
    /// lengths there than the keyframe's own points (1 with depth).
    struct Place {
        var keyframe: Int
        var cameraToWorld: RigidTransform
        var matched: Int
        var inliers: Int
        var scale: Double
        /// Whether the correction is larger than a loop measures (`LoopClosureOptions.smallestCorrectionDegrees`).
        var corrects: Bool
    }

    /// Closes the loop `place` found: the path since the place is corrected
    /// (`WorldMap.spreadCorrection`; from a single camera its scale with it) where the
    /// correction is larger than a loop measures, the keyframe's points joined to the place's,
    /// and the index forgotten.
    mutating func close(_ place: Place, in map: inout WorldMap, localMap: LocalMapOptions) -> LoopClosure {
        let (id, matchedID) = (map.keyframes[place.keyframe].id, map.keyframes[place.matched].id)
        let corrections = place.corrects
            ? map.spreadCorrection(of: place.keyframe, to: place.cameraToWorld, after: place.matched, scale: place.scale)
            : map.keyframes.map { LoopClosure.KeyframeCorrection(centre: $0.cameraCentre, correction: .identity) }
        let joined = map.joinPoints(of: place.keyframe, toPlaceOf: place.matched, options: localMap)
        forget()
        return LoopClosure(keyframe: id, matched: matchedID, inliers: place.inliers, corrections: corrections,
                           joinedPoints: joined)
    }

    /// Where keyframe `keyframe` (an index; `features` are its image's) is at an earlier place,
    /// found as a relocalization is and as surely verified, then checked in space: enough of its
    /// points agree with the place's from there (`WorldMap.alignment`; with depth at the scale
    /// it measured, else at the scale the place's points measure), and the pose their fit gives
    /// agrees with the relocalized one. `makeIndex` indexes the map as it is now.
    mutating func find(_ keyframe: Int, in map: WorldMap, features: FeatureSet, depth: [Float]?, intrinsics: Intrinsics,
                       policy: LoopClosureOptions, localMap: LocalMapOptions, makeIndex: () -> Relocalizer)
        -> Place?
    {
        let count = map.keyframes.count
        guard count >= policy.minimumKeyframes else { return nil }
        if index.map({ Double(count) >= policy.reindexGrowth * Double($0.map.keyframes.count) }) ?? true { index = makeIndex() }
        guard let places = index else { return nil }
        let present = Set(map.keyframes.map(\.id))
        let neighbours = map.covisible(with: keyframe).filter { $0.shared >= policy.connectedPoints }
        let excluded = Set(neighbours.map { map.keyframes[$0.keyframe].id } + map.keyframes.suffix(policy.recentKeyframes).map(\.id))
        let image = map.keyframes[keyframe]
        let found = places.relocalize(features: features, width: image.width, height: image.height, depth: depth,
                                      intrinsics: intrinsics, admitting: { present.contains($0) && !excluded.contains($0) })
        guard let pose = found.cameraToWorld, let matchedID = found.keyframe, let matched = map.index(ofKeyframe: matchedID),
            let aligned = map.alignment(of: keyframe, at: pose, withPlaceOf: matched, options: localMap,
                                        withScale: depth == nil, tolerance: policy.agreementTolerance),
            aligned.agreeing >= policy.minimumAgreeingPoints,
            Double(aligned.agreeing) >= policy.minimumAgreeingShare * Double(aligned.matched)
        else { return nil }
        let disagreement = aligned.cameraToWorld.difference(to: pose)
        guard disagreement.rotationDegrees <= policy.largestDisagreementDegrees,
            disagreement.translation <= policy.largestDisagreementDepthShare * aligned.medianDepth
        else { return nil }
        let correction = aligned.cameraToWorld.difference(to: image.cameraToWorld)
        let corrects = correction.rotationDegrees >= policy.smallestCorrectionDegrees
            || correction.translation >= policy.smallestCorrectionDepthShare * aligned.medianDepth
            || abs(aligned.scale - 1) >= policy.smallestScaleCorrection
        return Place(keyframe: keyframe, cameraToWorld: aligned.cameraToWorld, matched: matched, inliers: found.inliers,
                     scale: aligned.scale, corrects: corrects)
    }
}
