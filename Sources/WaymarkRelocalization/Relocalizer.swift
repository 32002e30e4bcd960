import WaymarkCore
import WaymarkVision

public struct RelocalizationOptions: Equatable, Sendable {
    public var features = FeatureOptions(maxFeatures: 1000)
    /// Keyframes most alike the frame (bag of words) whose matches are pooled for the pose.
    public var candidates = 3
    public var ratio = 0.8
    public var maximumDistance = 64
    public var pose = CameraPoseOptions()
    /// ORB-SLAM2's bar for accepting a relocalization: inliers of the pose that is returned.
    public var minimumInliers = 50
    /// With the frame's depth, the bar for a first pose from the candidates' matches alone: one
    /// that falls short of `minimumInliers` may still reach it once the points around its
    /// keyframe are matched by projection from it (a frame far from its nearest keyframe shares
    /// few ratio-tested matches with it, but sees many of its neighbours' points), and the
    /// depth then checks it. As many as a frame needs to track (ORB-SLAM's 30). Without depth
    /// a first pose needs `minimumInliers`: on the TUM fr3 office frames (1 s apart, no depth)
    /// first poses of 16–44 inliers, refined by projection to 117–172, were a metre off.
    public var minimumFirstInliers = 30
    /// Largest RMS reprojection error of the inliers, each in units of its feature's scale
    /// (pixels at the finest octave, 1.2× as many per octave above).
    public var maximumReprojectionError = 2.5
    /// Largest first-order standard deviation of the camera centre, metres: a pose the inliers
    /// pin down less well than this is refused however many there are.
    public var maximumCentreUncertainty = 0.025
    /// With the frame's depth: the largest median disagreement between the depth the pose
    /// predicts for the inlier points and the depth measured there, as a fraction.
    public var maximumDepthDisagreement = 0.05
    /// A second pose this far from the best, metres or degrees, with half its support or more
    /// makes the place ambiguous.
    public var ambiguityDistance = 0.2
    public var ambiguityDegrees = 5.0
    /// The first pose is refined against the points around its keyframe (matched by
    /// projection, as tracking does; with the frame's depth where it has one).
    public var localMap = LocalMapOptions()

    public init() {}
}

/// The outcome of one attempt. Not being relocalized is a normal result; `reason` says why.
public struct Relocalization: Sendable {
    public enum Reason: String, Sendable {
        case relocalized
        case tooFewFeatures = "too_few_features"
        case noSimilarPlace = "no_similar_place"
        case tooFewInliers = "too_few_inliers"
        case inaccurate = "inaccurate_pose"
        case depthDisagrees = "depth_disagrees"
        /// Another pose, far from the best one, explains the frame nearly as well (a repeated pattern).
        case ambiguous = "ambiguous_place"
    }

    public var reason: Reason
    /// Only when relocalized.
    public var cameraToWorld: RigidTransform?
    public var inliers: Int
    /// The keyframe that contributed most inliers.
    public var keyframe: Int?
    /// Each inlier's error in units of its feature's scale (`maximumReprojectionError`).
    public var rmsReprojectionError: Double?
    /// First-order standard deviation of the camera centre, metres, from the inliers' geometry.
    public var centreUncertainty: Double?

    public var isRelocalized: Bool { reason == .relocalized }
}

/// Finds where a frame was taken in a world map: the keyframes most alike it by bag of words,
/// their ratio-tested matches pooled into 2D-3D correspondences, a first pose by PnP in RANSAC,
/// refined on the points around its keyframe matched by projection (ORB-SLAM2's order), then
/// verified (inlier count, reprojection error, and the frame's depth when there is one).
/// A frame of a place the map does not hold is refused rather than snapped to a keyframe.
public final class Relocalizer {
    public let map: WorldMap
    public let options: RelocalizationOptions
    private let places: BagOfWordsIndex
    private let matcher: DescriptorIndex
    private var enabled: [Bool]

    /// Indexes the map as it is now; a relocalizer for a grown map is made anew. `vocabulary`:
    /// the words to index it with, as one trained for an earlier state of the map (training is
    /// most of the cost of indexing: `waymark-bench relocalization --part timing`); nil trains
    /// one on the map, seeded with `seed`.
    public init(map: WorldMap, options: RelocalizationOptions = RelocalizationOptions(), seed: UInt64 = 1,
                vocabulary: Vocabulary? = nil)
    {
        precondition(map.hasPoints, "relocalization needs a map with keyframes")
        precondition(options.candidates > 0 && options.minimumFirstInliers >= 6 && options.minimumInliers >= options.minimumFirstInliers,
                     "needs candidates, and ≥ 6 first inliers, no more than the final bar")
        self.map = map
        self.options = options
        let documents = map.keyframes.map(\.features)
        places = BagOfWordsIndex(vocabulary: vocabulary ?? Self.trainVocabulary(documents, seed: seed), documents: documents)
        matcher = DescriptorIndex(sets: documents, search: .exact)
        enabled = [Bool](repeating: false, count: documents.count)
    }

    /// The words the map is indexed with.
    public var vocabulary: Vocabulary { places.vocabulary }

    /// 1,000 words, 10,000 for large maps: with fewer, every word is in every keyframe of a
    /// small map and says nothing about which one a frame shows.
    private static func trainVocabulary(_ documents: [FeatureSet], seed: UInt64) -> Vocabulary {
        let descriptorCount = documents.reduce(0) { $0 + $1.count }
        return Vocabulary(training: documents, branching: 10, depth: descriptorCount < 100_000 ? 3 : 4, seed: seed)
    }

    public func relocalize(gray: Image, depth: [Float]? = nil, intrinsics: Intrinsics) -> Relocalization {
        relocalize(features: FeatureSet(detectingIn: gray, options: options.features), width: gray.width, height: gray.height,
                   depth: depth, intrinsics: intrinsics)
    }

    /// With the features already detected in a `width`×`height` frame (as `options.features` asks).
    /// `admitting`: the keyframes (by id) the frame may be found at; nil admits all.
    public func relocalize(features: FeatureSet, width: Int, height: Int, depth: [Float]? = nil, intrinsics: Intrinsics,
                           admitting: ((Int) -> Bool)? = nil) -> Relocalization
    {
        guard features.count >= options.minimumInliers else { return Relocalization(reason: .tooFewFeatures, inliers: 0) }
        let admitted = map.keyframes.indices.filter { admitting?(map.keyframes[$0].id) ?? true }
        // No more keyframes than candidates are searched whole: their bag-of-words weights say
        // little (a word in every keyframe weighs nothing). Else the best ranked of those admitted.
        let candidates = admitted.count <= options.candidates
            ? admitted
            : Array(places.rank(features, limit: admitting == nil ? options.candidates : map.keyframes.count).map(\.document)
                .filter(Set(admitted).contains).prefix(options.candidates))
        guard !candidates.isEmpty else { return Relocalization(reason: .noSimilarPlace, inliers: 0) }
        let keypoints = features.keypoints
        // Per query feature, its closest ratio-tested match over the candidates, each matched
        // on its own (a point seen by two keyframes would fail a ratio test over both).
        var pooled: [Int: FeatureMatch] = [:]
        for k in candidates {
            enabled[k] = true
            for match in matcher.match(features, ratio: options.ratio, maxDistance: options.maximumDistance,
                                       enabled: enabled)
            where pooled[match.query].map({ match.distance < $0.distance }) ?? true {
                pooled[match.query] = match
            }
            enabled[k] = false
        }
        let matches = pooled.values.sorted { $0.query < $1.query }
        let firstBar = depth == nil ? options.minimumInliers : options.minimumFirstInliers
        guard matches.count >= firstBar else {
            return Relocalization(reason: .tooFewInliers, inliers: 0)
        }
        let world = matches.map { map.keyframes[$0.set].points[$0.train] }
        let image = matches.map { keypoints[$0.query].location }
        guard let estimate = estimateCameraPose(worldPoints: world, imagePoints: image, intrinsics: intrinsics,
                                                options: options.pose)
        else { return Relocalization(reason: .tooFewInliers, inliers: 0) }
        guard estimate.inlierCount >= firstBar else {
            return Relocalization(reason: .tooFewInliers, inliers: estimate.inlierCount)
        }
        var contributions = [Int: Int]()
        for (match, inlier) in zip(matches, estimate.inliers) where inlier { contributions[match.set, default: 0] += 1 }
        let keyframe = contributions.max { $0.value < $1.value || ($0.value == $1.value && $0.key > $1.key) }
            .map { map.keyframes[$0.key].id }
        // The first pose rests on the candidates' matches alone; the points around its keyframe
        // are matched by projection from it and the pose refined on them all (as tracking
        // does). The checks then judge the pose that would be used, on its support.
        var worldToCamera = estimate.worldToCamera
        var support = matches.indices.filter { estimate.inliers[$0] }.map {
            Support(world: world[$0], keypoint: keypoints[matches[$0].query])
        }
        if let keyframe, let reference = map.index(ofKeyframe: keyframe) {
            let local = LocalMap(map, reference: reference, neighbours: options.localMap.neighbours)
            let search = ProjectedFeatureSearch(features, width: width, height: height)
            if let refined = local.track(search, depth: depth, width: width, height: height,
                                         predicted: estimate.worldToCamera, intrinsics: intrinsics, options: options.localMap),
                refined.tracked.count > support.count
            {
                worldToCamera = refined.worldToCamera
                support = refined.tracked.map { Support(world: local.positions[$0.landmark], keypoint: keypoints[$0.feature]) }
            }
        }
        guard support.count >= options.minimumInliers else {
            return Relocalization(reason: .tooFewInliers, inliers: support.count)
        }
        let cameraToWorld = worldToCamera.inverse
        let rmsError = Self.rmsReprojectionError(support, worldToCamera: worldToCamera, intrinsics: intrinsics)
        var result = Relocalization(reason: .relocalized, cameraToWorld: cameraToWorld, inliers: support.count,
                                    keyframe: keyframe, rmsReprojectionError: rmsError)
        let uncertainty = PoseUncertainty(
            worldPoints: support.map(\.world), imagePoints: support.map(\.pixel), sigmas: support.map(\.sigma),
            worldToCamera: worldToCamera, intrinsics: intrinsics, rmsError: rmsError)
        result.centreUncertainty = uncertainty?.centre
        if rmsError > options.maximumReprojectionError
            || (uncertainty?.centre ?? .infinity) > options.maximumCentreUncertainty
        {
            result.reason = .inaccurate
        } else if let gap = rivalPose(world: world, image: image, besides: estimate, intrinsics: intrinsics)?
            .difference(to: cameraToWorld), gap.translation > options.ambiguityDistance || gap.rotationDegrees > options.ambiguityDegrees
        {
            result.reason = .ambiguous
        } else if let depth, let disagreement = Self.depthDisagreement(
            support, worldToCamera: worldToCamera, depth: depth, width: width, height: height),
            disagreement > options.maximumDepthDisagreement
        {
            result.reason = .depthDisagrees
        }
        if !result.isRelocalized { result.cameraToWorld = nil }
        return result
    }

    /// In units of each point's pixel deviation (the feature's octave scale), as the refinement weighs them.
    private static func rmsReprojectionError(_ support: [Support], worldToCamera: RigidTransform, intrinsics k: Intrinsics) -> Double {
        var sum = 0.0
        for point in support {
            let p = worldToCamera.apply(point.world)
            let dx = k.fx * p.x / p.z + k.cx - point.pixel.x
            let dy = k.fy * p.y / p.z + k.cy - point.pixel.y
            sum += (dx * dx + dy * dy) / (point.sigma * point.sigma)
        }
        return (sum / Double(max(1, support.count))).squareRoot()
    }

    /// The pose the correspondences left over by `best` support, when they support one with
    /// at least half as many inliers (and the minimum).
    private func rivalPose(world: [SIMD3<Double>], image: [Point2], besides best: CameraPoseEstimate,
                           intrinsics: Intrinsics) -> RigidTransform?
    {
        let rest = world.indices.filter { !best.inliers[$0] }
        let needed = max(options.minimumInliers, best.inlierCount / 2)
        guard rest.count >= needed,
            let rival = estimateCameraPose(worldPoints: rest.map { world[$0] }, imagePoints: rest.map { image[$0] },
                                           intrinsics: intrinsics, options: options.pose),
            rival.inlierCount >= needed
        else { return nil }
        return rival.worldToCamera.inverse
    }

    /// The median relative difference between predicted and measured depth over the support
    /// where depth is measured, or nil when fewer than 10 have it.
    private static func depthDisagreement(_ support: [Support], worldToCamera: RigidTransform, depth: [Float], width: Int,
                                          height: Int) -> Double?
    {
        precondition(depth.count == width * height, "depth and image sizes differ")
        var differences: [Double] = []
        for point in support {
            guard let measured = depthAt(point.pixel, depth: depth, width: width, height: height) else { continue }
            differences.append(abs(worldToCamera.apply(point.world).z - measured) / measured)
        }
        guard differences.count >= 10 else { return nil }
        differences.sort()
        return differences[differences.count / 2]
    }
}

/// A map point and the frame feature that sees it, with that feature's pixel deviation.
private struct Support {
    var world: SIMD3<Double>
    var pixel: Point2
    var sigma: Double

    init(world: SIMD3<Double>, keypoint: Keypoint) {
        self.world = world
        pixel = keypoint.location
        sigma = keypoint.octaveScale
    }
}
