import WaymarkCore
import WaymarkVision

public struct ImageDetectorOptions: Equatable, Sendable {
    /// Features per frame of 640×480; frames of another size get as many per pixel. A poster
    /// across a room covers a few percent of the frame, so the pyramid is weighted to fine
    /// scales: one enlarged level, six in all (1.2 down to 1/2.1; references are described
    /// over a wider range of scales than any frame needs). Corners are ranked by FAST score,
    /// as the references' are, so a faint poster keeps features against a busy room; even so
    /// a faint or blurred one gets few of them, and 3000 rather than 2000 find more such
    /// posters (`search` pays for the extra ones). Half of each level's features are spread
    /// over the frame cell by cell (`FeatureOptions.spread`), so such a poster keeps its share:
    /// on the poster benchmark's development split 0.90 found instead of 0.86, for ~10 % more
    /// time. Short cells are searched again down to a FAST threshold of 10, not 7: below 10 a
    /// cell of plain wall yields mostly sensor noise (development split 216 posters found
    /// against 214, 1–2 ms a frame less in noisy scenes).
    public var frameFeatures: FeatureOptions = {
        var o = FeatureOptions(maxFeatures: 3000)
        o.levels = 6
        o.enlargedLevels = 1
        o.ranking = .fast
        o.spread = 0.5
        o.minFastThreshold = 10
        return o
    }()
    /// How frame features are looked up among the references'. A wider tree than
    /// `DescriptorIndex.Search.default`, probed in fewer leaves: about an eighth of its
    /// leaves' comparisons per query. On the poster benchmark's development split
    /// two, three and four leaves find the same posters (matching by projection recovers what
    /// the coarser search misses) and one finds fewer; three keeps a margin.
    public var search = DescriptorIndex.Search.tree(branching: 32, depth: 2, probes: 3)
    /// The references' coarse features (`ReferenceImage.coarseFeatures`) are looked up with the
    /// frame features of this many of its finest pyramid levels: a reference that small in the
    /// frame has few features at the coarser ones.
    public var coarseSearchLevels = 3
    /// Lowe's ratio test between the nearest and second-nearest descriptor.
    public var ratio = 0.8
    /// A reference describes each detail several times (at neighbouring scales and in its
    /// simulated oblique views); a second neighbour of the same reference within this many
    /// keypoint sizes of the nearest is that detail again, and is not its rival in the ratio
    /// test (0: every second neighbour is a rival).
    public var sameDetailRadius = 0.3
    public var maxDescriptorDistance = 64
    /// Matches a reference needs before a homography is tried.
    public var minMatches = 8
    /// Feature inliers the homography needs; alignment with the reference's pixels confirms
    /// every candidate, so few are enough.
    public var minInliers = 8
    /// Robust threshold for the first estimate, frame pixels.
    public var threshold = 6.0
    /// Smallest projected side, frame pixels.
    public var minProjectedSide = 16.0
    /// Largest ratio between projected sides (beyond this the view is too oblique to trust).
    public var maxSideRatio = 12.0
    /// Where too few matches pass the ratio test, or they do not hold, a rough placement from
    /// a few of them is enough to look for the reference's features where it puts them (nil:
    /// never).
    public var projectionSearch: ProjectionSearch? = ProjectionSearch()
    public var seed: UInt64 = 1
    /// Which references each frame is searched for.
    public var selection = ReferenceSelection.all

    public init() {}
}

/// Matching by projection from a rough placement: an affine map from as few as `seedMatches`
/// ratio-test matches, all of them agreeing within `threshold` (the detector's); then each of
/// the reference's features is compared with the frame features near where it lands.
public struct ProjectionSearch: Equatable, Sendable {
    /// Matches a rough placement needs: an affine map takes three, and two more check it (with
    /// one, chance agreements among a wrong reference's few matches set off a search in most
    /// frames).
    public var seedMatches = 5
    /// How far from where the placement puts it a feature is looked for, frame pixels.
    public var radius = 10.0
    /// A frame feature's size may differ from the size the placement predicts by this factor.
    public var sizeRatio = 2.0
    /// Ratio test among the frame features within `radius`.
    public var ratio = 0.9
    /// Robust threshold of the homography from the projected matches, frame pixels.
    public var threshold = 3.0
    /// Inliers that homography needs; alignment then confirms it like any other candidate.
    public var minInliers = 10

    public init() {}
}

public enum ReferenceSelection: Equatable, Sendable {
    /// Every reference, every frame; at most 25.
    case all
    /// A library of any size: per frame, bag-of-words retrieval picks the `limit` most likely
    /// references (25 at most), and only those are searched.
    case retrieval(limit: Int)
}

/// Finds active reference images in frames by feature matching, then verifies and refines
/// each candidate by aligning the reference's own pixels with the frame.
public final class ImageDetector {
    public let references: [ReferenceImage]
    public let options: ImageDetectorOptions
    private let index: DescriptorIndex
    private let coarseIndex: DescriptorIndex
    private let alignment = HomographyAlignment()
    /// Following starts from a close prediction, so one alignment pass suffices.
    private let followingAlignment: HomographyAlignment = {
        var options = HomographyAlignment.Options()
        options.iterations = 1
        return HomographyAlignment(options: options)
    }()

    private let retrieval: ReferenceRetrieval?

    public init(references: [ReferenceImage], options: ImageDetectorOptions = ImageDetectorOptions()) {
        self.references = references
        self.options = options
        switch options.selection {
        case .all:
            precondition(references.count <= ReferenceLibrary.maxActiveImages,
                         "at most \(ReferenceLibrary.maxActiveImages) reference images are searched at once")
            retrieval = nil
        case .retrieval(let limit):
            precondition((1...ReferenceLibrary.maxActiveImages).contains(limit),
                         "retrieval picks 1...\(ReferenceLibrary.maxActiveImages) references a frame")
            retrieval = references.isEmpty ? nil : ReferenceRetrieval(references: references, seed: options.seed)
        }
        index = DescriptorIndex(sets: references.map(\.features), search: options.search, seed: options.seed)
        coarseIndex = DescriptorIndex(sets: references.map(\.coarseFeatures), search: options.search,
                                      seed: options.seed)
    }

    /// The features searched for in a `width`×`height` frame: `options.frameFeatures`, their
    /// number scaled with the frame's area.
    public func frameFeatureOptions(width: Int, height: Int) -> FeatureOptions {
        var featureOptions = options.frameFeatures
        let area = Double(width * height) / (640 * 480)
        featureOptions.maxFeatures = max(250, Int((Double(featureOptions.maxFeatures) * area).rounded()))
        return featureOptions
    }

    /// Every active reference visible in `frame` (gray or colour), best first.
    /// `skipping` names references the caller already follows. `features`, when given, are the
    /// frame's own, detected with `frameFeatureOptions` (shared with another consumer).
    public func detect(in frame: Image, features: FeatureSet? = nil, intrinsics: Intrinsics? = nil, skipping: Set<Int> = [])
        -> [ImageDetection]
    {
        let gray = frame.gray()
        let features = features
            ?? FeatureSet(detectingIn: gray, options: frameFeatureOptions(width: gray.width, height: gray.height))
        let locations = features.keypoints.map(\.location)
        var enabled: [Bool]?
        if let retrieval, case .retrieval(let limit) = options.selection {
            var chosen = [Bool](repeating: false, count: references.count)
            for r in retrieval.rank(features, limit: limit) where !skipping.contains(r) { chosen[r] = true }
            enabled = chosen
        }
        var detections = locate(
            index.match(features, ratio: options.ratio, maxDistance: options.maxDescriptorDistance, enabled: enabled,
                        sameDetailRadius: options.sameDetailRadius),
            in: \.features, at: \.featureLocations, frame: features, frameLocations: locations, in: gray,
            skipping: skipping, intrinsics: intrinsics)
        // A reference far smaller in the frame than its own pyramid reaches is only found by its
        // coarse features; they are matched on their own, so that they never crowd the ratio
        // test of the others, and only with the frame's finest levels, where it has features.
        var searched = skipping.union(detections.map(\.reference))
        if let enabled { searched.formUnion(enabled.indices.filter { !enabled[$0] }) }
        if searched.count < references.count {
            let keypoints = features.keypoints
            let fine = keypoints.indices.filter { keypoints[$0].octave < options.coarseSearchLevels }
            let fineFeatures = features.subset(fine)
            detections += locate(
                coarseIndex.match(fineFeatures, ratio: options.ratio, maxDistance: options.maxDescriptorDistance,
                                  enabled: enabled, sameDetailRadius: options.sameDetailRadius),
                in: \.coarseFeatures, at: \.coarseFeatureLocations, frame: fineFeatures,
                frameLocations: fine.map { locations[$0] }, in: gray, skipping: searched, intrinsics: intrinsics)
        }
        return detections.sorted { $0.confidence > $1.confidence }
    }

    /// The references that `matches` (frame features → the features `set` of one of
    /// `references`, whose locations `at` gives) locate in `gray`, verified by alignment.
    private func locate(
        _ matches: [FeatureMatch], in set: KeyPath<ReferenceImage, FeatureSet>, at trainLocations: KeyPath<ReferenceImage, [Point2]>,
        frame features: FeatureSet, frameLocations: [Point2], in gray: Image, skipping: Set<Int>, intrinsics: Intrinsics?
    ) -> [ImageDetection] {
        var byReference = [[FeatureMatch]](repeating: [], count: references.count)
        for match in matches where !skipping.contains(match.set) { byReference[match.set].append(match) }
        var detections: [ImageDetection] = []
        let fewest = min(options.minMatches, options.projectionSearch?.seedMatches ?? .max)
        for (r, matches) in byReference.enumerated() where matches.count >= fewest {
            let reference = references[r]
            let locations = reference[keyPath: trainLocations]
            if matches.count >= options.minMatches,
                let found = confirm(r, matches, locations, frameLocations, in: gray, threshold: options.threshold,
                                    minInliers: options.minInliers, intrinsics: intrinsics)
            {
                detections.append(found)
                continue
            }
            guard let search = options.projectionSearch, matches.count >= search.seedMatches,
                let seed = estimate(matches, locations, frameLocations, method: .affine, threshold: options.threshold,
                                    minInliers: search.seedMatches),
                isPlausible(seed.homography, reference, gray)
            else { continue }
            let projected = features.matches(
                projecting: reference[keyPath: set], by: seed.homography, radius: search.radius,
                maxSizeRatio: search.sizeRatio, ratio: search.ratio, maxDistance: options.maxDescriptorDistance)
            guard projected.count >= search.minInliers,
                let found = confirm(r, projected, locations, frameLocations, in: gray, threshold: search.threshold,
                                    minInliers: search.minInliers, intrinsics: intrinsics)
            else { continue }
            detections.append(found)
        }
        return detections
    }

    /// Reference `r` where `matches` put it, when their homography is plausible and the
    /// reference's pixels line up with the frame there.
    private func confirm(
        _ r: Int, _ matches: [FeatureMatch], _ locations: [Point2], _ frameLocations: [Point2], in gray: Image,
        threshold: Double, minInliers: Int, intrinsics: Intrinsics?
    ) -> ImageDetection? {
        let reference = references[r]
        guard let estimate = estimate(matches, locations, frameLocations, method: .magsac, threshold: threshold,
                                      minInliers: minInliers),
            isPlausible(estimate.homography, reference, gray),
            let refined = alignment.refine(estimate.homography, of: reference, in: gray),
            isPlausible(refined.homography, reference, gray)
        else { return nil }
        return makeDetection(r, .detected, refined, featureInliers: estimate.inlierCount, intrinsics: intrinsics)
    }

    private func estimate(
        _ matches: [FeatureMatch], _ locations: [Point2], _ frameLocations: [Point2],
        method: HomographyEstimationOptions.Method, threshold: Double, minInliers: Int
    ) -> HomographyEstimate? {
        var o = HomographyEstimationOptions()
        o.method = method
        o.threshold = threshold
        o.seed = options.seed
        o.minInliers = minInliers
        return estimateHomography(from: matches.map { locations[$0.train] },
                                  to: matches.map { frameLocations[$0.query] }, options: o)
    }

    /// Re-aligns a reference near a predicted homography (for following it through video).
    func follow(_ r: Int, predicted: Homography, in gray: Image, intrinsics: Intrinsics?) -> ImageDetection? {
        let reference = references[r]
        guard isPlausible(predicted, reference, gray),
            let refined = followingAlignment.refine(predicted, of: reference, in: gray),
            isPlausible(refined.homography, reference, gray)
        else { return nil }
        return makeDetection(r, .tracked, refined, featureInliers: nil, intrinsics: intrinsics)
    }

    private func makeDetection(
        _ r: Int, _ state: ImageDetection.State, _ refined: HomographyAlignment.Result, featureInliers: Int?,
        intrinsics: Intrinsics?
    ) -> ImageDetection {
        let reference = references[r]
        let corners = reference.corners.map { refined.homography.apply($0)! }
        // Support from the aligned pixels, tempered by how many features agreed when searching.
        let featureSupport = featureInliers.map { min(1, Double($0) / 40) } ?? 1
        let confidence = refined.inlierFraction * (0.5 + 0.5 * featureSupport)
        return ImageDetection(
            name: reference.name, reference: r, state: state, homography: refined.homography, corners: corners,
            inliers: featureInliers ?? refined.inliers, confidence: confidence,
            pose: intrinsics.flatMap { pose(of: reference, corners: corners, intrinsics: $0) })
    }

    private func pose(of reference: ReferenceImage, corners: [Point2], intrinsics: Intrinsics) -> RigidTransform? {
        guard let physicalWidth = reference.entry.physicalWidth else { return nil }
        let w = physicalWidth
        let h = physicalWidth * Double(reference.height) / Double(reference.width)
        let object: [SIMD3<Double>] = [
            SIMD3(-w / 2, -h / 2, 0), SIMD3(w / 2, -h / 2, 0), SIMD3(w / 2, h / 2, 0), SIMD3(-w / 2, h / 2, 0),
        ]
        return try? estimatePlanarPose(objectPoints: object, imagePoints: corners, intrinsics: intrinsics).transform
    }

    /// A homography that cannot come from a flat picture seen by a camera is rejected:
    /// mirrored, folded, behind the camera, tiny, or absurdly oblique.
    private func isPlausible(_ h: Homography, _ reference: ReferenceImage, _ frame: Image) -> Bool {
        guard reference.corners.allSatisfy({ h.depthSign($0) > 0 }) else { return false }
        let projected = reference.corners.compactMap(h.apply)
        guard projected.count == 4 else { return false }
        let quad = Quadrilateral(projected)
        guard quad.isConvex, quad.signedArea > 0 else { return false }
        let sides = quad.sides
        guard let shortest = sides.min(), let longest = sides.max(), shortest >= options.minProjectedSide,
            longest / shortest <= options.maxSideRatio
        else { return false }
        // An outline hundreds of times larger than the frame comes from a near-degenerate fit.
        let frameArea = Double(frame.width * frame.height)
        return quad.signedArea < 400 * frameArea
    }
}

