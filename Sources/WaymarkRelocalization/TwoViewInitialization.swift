import Foundation
import WaymarkCore
import WaymarkVision

/// How a map starts from a single camera: two views with enough parallax, as ORB-SLAM's
/// initializer decides (Mur-Artal et al. 2015, section IV).
public struct TwoViewInitializationOptions: Equatable, Sendable {
    /// Fewer matches than this cannot decide between the two models (ORB-SLAM asks 100).
    public var minimumMatches = 100
    /// The chosen pose must place at least this many points, and `minimumPlacedShare` of
    /// the model's inliers, in front of both cameras where both saw them (ORB-SLAM: 50, 0.9).
    public var minimumPoints = 50
    public var minimumPlacedShare = 0.9
    /// The points' median parallax, degrees: less leaves their depth, and the pose, unsure.
    public var minimumParallaxDegrees = 1.0
    /// A point's own rays must meet at least this wide to be kept (ORB-SLAM: cos = 0.99998).
    public var minimumPointParallaxDegrees = 0.36
    /// A feature's position noise, pixels: the tests below are chi-square at 95 % with it.
    public var sigma = 1.0
    /// The homography is chosen when its share of the two models' scores is above this: a
    /// plane, or a view too shallow for the essential matrix to be sure (ORB-SLAM's paper: 0.45).
    public var homographyShare = 0.45
    /// Another candidate pose that places this share of the matches the best one places makes
    /// the choice unsure. ORB-SLAM asks 0.7 (0.75 for the homography) of the model's inliers;
    /// counted over every match, a wrong decomposition of a wall's homography still places
    /// the wall (four in five of a room's matches), and only the points off it tell.
    public var ambiguousShare = 0.9

    public init() {}
}

/// A point placed by the initialization: the match it came from and where it is, in the first
/// camera's coordinates at the initialization's scale.
public struct TwoViewPoint: Equatable, Sendable {
    public var match: Int
    public var position: SIMD3<Double>
}

/// The two views' relative pose and the points they place. Without depth the scale is
/// unknown: it is chosen so that the points' median depth in the first camera is 1.
public struct TwoViewInitialization: Equatable, Sendable {
    public enum Model: String, Equatable, Sendable {
        /// A plane, or a view too shallow to tell the scene's depth: the homography's motion.
        case homography
        /// A scene with depth: the essential matrix's motion.
        case essential
    }

    public var model: Model
    /// The first camera's coordinates → the second's.
    public var secondFromFirst: RigidTransform
    public var points: [TwoViewPoint]
    public var medianParallaxDegrees: Double
    /// The homography's share of the two models' scores (ORB-SLAM's R_H).
    public var homographyShare: Double

    /// Why two views cannot start a map.
    public enum Refusal: Error, Equatable, Sendable {
        case tooFewMatches(Int)
        /// Neither model is supported by the matches.
        case noModel
        /// The views are too close together for depth (the camera turned, or hardly moved).
        case tooLittleParallax(degrees: Double)
        /// Two candidate motions explain the matches about equally well.
        case ambiguous
        /// The chosen motion places too few of its points.
        case tooFewPoints(Int)
    }

    /// The relative pose and points from pixel matches (`first[i]` ↔ `second[i]`) of one camera
    /// with `intrinsics`: an essential matrix and a homography are both estimated and scored as
    /// ORB-SLAM does (symmetric transfer errors, chi-square tests at 95 %); the pose is the
    /// candidate of the chosen model that places the most points in front of both cameras
    /// within 2σ, provided no other comes close and the points have parallax; then the pose
    /// and the points are adjusted together.
    public static func estimate(from first: [Point2], to second: [Point2], intrinsics: Intrinsics,
                                options: TwoViewInitializationOptions = TwoViewInitializationOptions())
        -> Result<TwoViewInitialization, Refusal>
    {
        precondition(first.count == second.count, "matches come in pairs")
        guard first.count >= options.minimumMatches else { return .failure(.tooFewMatches(first.count)) }
        let views = PixelPair(first: first, second: second, intrinsics: intrinsics)
        let focal = (intrinsics.fx + intrinsics.fy) / 2
        let homographyThreshold = (5.991).squareRoot() * options.sigma / focal
        let homography = estimateHomography(
            from: views.normalizedFirst, to: views.normalizedSecond,
            options: { var o = HomographyEstimationOptions(); o.method = .ransac; o.threshold = homographyThreshold; return o }())
        let essential = TwoViewGeometry.essential(from: views.normalizedFirst, to: views.normalizedSecond,
                                                  threshold: (3.841).squareRoot() * options.sigma / focal)
        let scoredH = homography.map { views.score(homography: $0.homography, sigma: options.sigma) }
        let scoredE = essential.map { views.score(essential: $0.matrix, sigma: options.sigma) }
        let (sH, sE) = (scoredH?.score ?? 0, scoredE?.score ?? 0)
        guard sH + sE > 0 else { return .failure(.noModel) }
        let share = sH / (sH + sE)
        // A positive share means the homography scored, and a share at most 0.45 that the
        // essential matrix did.
        if share > options.homographyShare, let homography, let scoredH {
            let candidates = TwoViewGeometry.poses(homography: homography.homography).map(\.secondFromFirst)
            return views.reconstruct(.homography, candidates, inliers: scoredH.inliers.count { $0 }, share: share,
                                     options: options)
        }
        guard let essential, let scoredE else { return .failure(.noModel) }
        return views.reconstruct(.essential, TwoViewGeometry.poses(essential: essential.matrix),
                                 inliers: scoredE.inliers.count { $0 }, share: share, options: options)
    }
}

extension PixelPair {
    /// The candidate motion that places the most matches, refined, if it places enough,
    /// clearly more than any other candidate, with parallax.
    func reconstruct(_ model: TwoViewInitialization.Model, _ candidates: [RigidTransform], inliers inlierCount: Int,
                     share: Double, options: TwoViewInitializationOptions) -> Result<TwoViewInitialization, TwoViewInitialization.Refusal>
    {
        // Candidates are judged by every match they explain, not only the model's inliers: of a
        // homography's two decompositions that keep a floor in front of both cameras, only the
        // true one also places the things standing on it.
        let placements = candidates.map { place(secondFromFirst: $0, options: options) }
        let ranked = placements.indices.sorted { placements[$0].count > placements[$1].count }
        let best = placements[ranked[0]]
        let needed = max(options.minimumPoints, Int((options.minimumPlacedShare * Double(inlierCount)).rounded(.up)))
        guard best.count >= needed else { return .failure(.tooFewPoints(best.count)) }
        if ranked.count > 1, Double(placements[ranked[1]].count) > options.ambiguousShare * Double(best.count) {
            return .failure(.ambiguous)
        }
        // The parallax is judged after the adjustment: a five-point sample can start the motion
        // tens of degrees off along the valley a sideways step leaves, with its points far away.
        let (pose, adjusted) = refine(candidates[ranked[0]], best, options: options)
        guard !adjusted.isEmpty else { return .failure(.tooFewPoints(0)) }
        let centre = pose.inverse.translationVector
        let parallaxes = adjusted.map { parallax($0.position, centre) }
        let sorted = parallaxes.sorted()
        let medianParallax = sorted[sorted.count / 2]
        guard medianParallax >= options.minimumParallaxDegrees else {
            return .failure(.tooLittleParallax(degrees: medianParallax))
        }
        let kept = adjusted.indices.filter { parallaxes[$0] >= options.minimumPointParallaxDegrees }.map { adjusted[$0] }
        guard kept.count >= options.minimumPoints else { return .failure(.tooFewPoints(kept.count)) }
        let depths = kept.map(\.position.z).sorted()
        let scale = 1 / depths[depths.count / 2]
        return .success(TwoViewInitialization(
            model: model,
            secondFromFirst: pose.scalingTranslation(by: scale),
            points: kept.map { TwoViewPoint(match: $0.match, position: $0.position * scale) },
            medianParallaxDegrees: medianParallax, homographyShare: share))
    }
}

/// Pixel matches of one camera in two views, with their normalized coordinates.
private struct PixelPair {
    let first: [Point2]
    let second: [Point2]
    let normalizedFirst: [Point2]
    let normalizedSecond: [Point2]
    let intrinsics: Intrinsics

    init(first: [Point2], second: [Point2], intrinsics: Intrinsics) {
        self.first = first
        self.second = second
        self.intrinsics = intrinsics
        let normalize = { (p: Point2) in
            let ray = intrinsics.backproject(p, depth: 1)
            return Point2(ray.x, ray.y)
        }
        normalizedFirst = first.map(normalize)
        normalizedSecond = second.map(normalize)
    }

    private func pixel(_ normalized: Point2) -> Point2 { intrinsics.project(SIMD3(normalized.x, normalized.y, 1)) }

    /// ORB-SLAM's score of a homography: over the matches whose transfer error (pixels) is
    /// within the chi-square bound (2 degrees of freedom, 5.991σ²) both ways, the sum of the
    /// bound's margins.
    func score(homography h: Homography, sigma: Double) -> (score: Double, inliers: [Bool]) {
        let bound = 5.991
        guard let inverse = h.inverse else { return (0, Array(repeating: false, count: first.count)) }
        var score = 0.0
        var inliers = [Bool](repeating: false, count: first.count)
        for i in first.indices {
            guard let forward = h.apply(normalizedFirst[i]), let backward = inverse.apply(normalizedSecond[i]) else { continue }
            let e2 = pow(pixel(forward).distance(to: second[i]) / sigma, 2)
            let e1 = pow(pixel(backward).distance(to: first[i]) / sigma, 2)
            guard e1 < bound, e2 < bound else { continue }
            score += (bound - e1) + (bound - e2)
            inliers[i] = true
        }
        return (score, inliers)
    }

    /// ORB-SLAM's score of an essential (fundamental) matrix: over the matches whose distance
    /// to the other's epipolar line (pixels) is within the chi-square bound of one degree of
    /// freedom (3.841σ²) both ways, the sum of the margins to 5.991, the homography's bound,
    /// so that the two models' scores compare.
    func score(essential e: [Double], sigma: Double) -> (score: Double, inliers: [Bool]) {
        let (bound, margin) = (3.841, 5.991)
        var score = 0.0
        var inliers = [Bool](repeating: false, count: first.count)
        for i in first.indices {
            let (a, b) = (normalizedFirst[i], normalizedSecond[i])
            // The line E·a in the second view and Eᵀ·b in the first, as distances in pixels.
            let line2 = SIMD3(e[0] * a.x + e[1] * a.y + e[2], e[3] * a.x + e[4] * a.y + e[5], e[6] * a.x + e[7] * a.y + e[8])
            let line1 = SIMD3(e[0] * b.x + e[3] * b.y + e[6], e[1] * b.x + e[4] * b.y + e[7], e[2] * b.x + e[5] * b.y + e[8])
            let e2 = lineDistanceSquared(line2, b, intrinsics) / (sigma * sigma)
            let e1 = lineDistanceSquared(line1, a, intrinsics) / (sigma * sigma)
            guard e1 < bound, e2 < bound else { continue }
            score += (margin - e1) + (margin - e2)
            inliers[i] = true
        }
        return (score, inliers)
    }

    struct Placed {
        var match: Int
        var position: SIMD3<Double>
    }

    /// The matches `secondFromFirst` places: triangulated in front of both cameras and
    /// reprojecting within 2σ in both (ORB-SLAM's 4σ² bound on the squared error).
    func place(secondFromFirst: RigidTransform, options: TwoViewInitializationOptions) -> [Placed] {
        let secondToFirst = secondFromFirst.inverse
        let origin = SIMD3<Double>(0, 0, 0)
        let centre = secondToFirst.translationVector
        let limit = 2 * options.sigma
        var placed: [Placed] = []
        for i in first.indices {
            let rayA = viewingRay(through: first[i], cameraToWorld: .identity, intrinsics: intrinsics)
            let rayB = viewingRay(through: second[i], cameraToWorld: secondToFirst, intrinsics: intrinsics)
            guard let point = closestPoint(origin, rayA, centre, rayB),
                let errorA = reprojectionError(point, first[i], cameraToWorld: .identity, intrinsics: intrinsics),
                let errorB = reprojectionError(point, second[i], cameraToWorld: secondToFirst, intrinsics: intrinsics),
                errorA <= limit, errorB <= limit
            else { continue }
            placed.append(Placed(match: i, position: point))
        }
        return placed
    }
}

extension PixelPair {
    /// The pose and points refined together (Ceres; the first camera held, the scale left
    /// free, as ORB-SLAM adjusts its first two keyframes): a model fitted to five or four
    /// matches carries their noise, which the adjustment over all points removes. Points
    /// whose error stays beyond the robust cost's bound, or that end behind a camera, are
    /// dropped.
    func refine(_ secondFromFirst: RigidTransform, _ placed: [Placed], options: TwoViewInitializationOptions)
        -> (RigidTransform, [Placed])
    {
        var observations: [BundleObservation] = []
        for (k, point) in placed.enumerated() {
            observations.append(BundleObservation(pose: 0, point: k, pixel: first[point.match], sigma: options.sigma))
            observations.append(BundleObservation(pose: 1, point: k, pixel: second[point.match], sigma: options.sigma))
        }
        var problem = BundleAdjustmentProblem(intrinsics: intrinsics, poses: [.identity, secondFromFirst.inverse],
                                              fixed: [true, false], points: placed.map(\.position),
                                              observations: observations)
        var solver = BundleAdjustmentOptions()
        solver.maximumIterations = 30
        // The solver throws only for observations it cannot use, which the placement excludes
        // (points in front of both cameras); the unrefined motion is then still the answer.
        guard let report = try? problem.solve(options: solver) else { return (secondFromFirst, placed) }
        let refined = problem.poses[1].orthonormalized.inverse
        let kept = placed.indices.compactMap { k -> Placed? in
            let position = problem.points[k]
            guard report.residuals[2 * k] <= solver.huber, report.residuals[2 * k + 1] <= solver.huber,
                position.z > 0, refined.apply(position).z > 0
            else { return nil }
            return Placed(match: placed[k].match, position: position)
        }
        return (refined, kept)
    }
}

/// The angle, degrees, at which the rays from the first camera (the origin) and from a
/// camera at `centre` meet at `point`.
private func parallax(_ point: SIMD3<Double>, _ centre: SIMD3<Double>) -> Double {
    let toB = point - centre
    let cosine = (point * toB).sum() / ((point * point).sum() * (toB * toB).sum()).squareRoot()
    return acos(min(1, cosine)) * 180 / .pi
}

/// Squared distance, pixels, from normalized point `p` to the normalized line (a, b, c): the
/// line's normal scaled by the focal lengths, since x and y stretch by fx and fy.
private func lineDistanceSquared(_ line: SIMD3<Double>, _ p: Point2, _ k: Intrinsics) -> Double {
    let value = line.x * p.x + line.y * p.y + line.z
    let normal = (line.x / k.fx) * (line.x / k.fx) + (line.y / k.fy) * (line.y / k.fy)
    guard normal > 0 else { return .infinity }
    return value * value / normal
}
