import Foundation
import WaymarkCore
import WaymarkVision

public struct ReconstructionOptions: Equatable, Sendable {
    /// PnP inliers a view needs to join: ORB-SLAM2's bar for a relocalization.
    public var minimumInliers = 50
    public var ratio = 0.8
    public var maximumDistance = 64
    public var pose = CameraPoseOptions()
    /// A joining view extends the points and triangulates new ones with this many posed views,
    /// those it shares most matches with.
    public var neighbours = 3
    /// Rays meeting at less than this angle, degrees, place a point too uncertainly in depth.
    public var minimumParallaxDegrees = 1.5
    /// Largest reprojection error of a new point, or of a known point in a view that would
    /// observe it, in units of the feature's scale (pixels at the finest octave).
    public var maximumReprojectionError = 2.0
    /// The seed view's depth weighed as local adjustment weighs a Kinect's.
    public var solver: BundleAdjustmentOptions = {
        var options = LocalAdjustmentOptions().solver
        options.maximumIterations = 15
        return options
    }()

    public init() {}
}

/// Camera poses and world points for views of one scene without depth, but for the first
/// view's, which places the first points and gives the scale: incremental structure from
/// motion. A view joins by PnP against the points seen so far (matched by descriptor with every
/// posed view, ratio-tested); its matches with the posed views it shares most with then extend
/// those points and triangulate new ones; and each join ends in a bundle adjustment of every
/// posed view and point (Ceres; the first view held, its depth a prior), whose unexplained
/// observations are dropped.
public final class Reconstruction {
    public let intrinsics: Intrinsics
    public let width: Int
    public let height: Int
    public let timestamps: [Double]
    public let options: ReconstructionOptions
    private let features: [FeatureSet]
    private let keypoints: [[Keypoint]]
    private let indexes: [DescriptorIndex]
    /// Each view's camera-to-world pose once it has joined; the first view's is the identity.
    public private(set) var poses: [RigidTransform?]
    /// World positions, metres, by point.
    private var points: [SIMD3<Double>] = []
    /// By point: the views and features that observe it (a view at most once).
    private var observers: [[(view: Int, feature: Int)]] = []
    /// By view, by feature: the point it observes.
    private var pointOf: [[Int?]]
    /// By feature of the first view: its measured depth, metres (0: none).
    private let seedDepths: [Double]
    /// Ratio-tested matches of one view's features (query) with another's (train), by pair.
    private var matchCache: [SIMD2<Int>: [FeatureMatch]] = [:]

    /// `features[0]` is seen with `depth` (metres, row-major, `width`×`height`, 0 or NaN where
    /// unknown); the others without. Nothing is posed but the first view until `joinAll`.
    public init(features: [FeatureSet], timestamps: [Double], width: Int, height: Int, firstDepth depth: [Float],
                intrinsics: Intrinsics, options: ReconstructionOptions = ReconstructionOptions())
    {
        precondition(!features.isEmpty && timestamps.count == features.count, "one timestamp per view, one view at least")
        precondition(depth.count == width * height, "depth and image sizes differ")
        self.intrinsics = intrinsics
        self.width = width
        self.height = height
        self.timestamps = timestamps
        self.options = options
        self.features = features
        keypoints = features.map(\.keypoints)
        indexes = features.map { DescriptorIndex(sets: [$0], search: .exact) }
        poses = [RigidTransform.identity] + [RigidTransform?](repeating: nil, count: features.count - 1)
        pointOf = keypoints.map { [Int?](repeating: nil, count: $0.count) }
        seedDepths = keypoints[0].map { depthAt($0.location, depth: depth, width: width, height: height) ?? 0 }
        for (f, z) in seedDepths.enumerated() where z > 0 {
            addPoint(intrinsics.backproject(keypoints[0][f].location, depth: z), seenBy: [(0, f)])
        }
    }

    public var joinedCount: Int { poses.count { $0 != nil } }

    /// Points that place a camera: seen by two views or more, or measured by the first view's depth.
    public var pointCount: Int { observers.indices.count { placesCameras($0) } }

    /// Joins every view that can be joined, in rounds until a round joins none (a view that
    /// fails early may join once its neighbours have); the number joined in all.
    @discardableResult
    public func joinAll() throws(WaymarkError) -> Int {
        var joinedOne = true
        while joinedOne {
            joinedOne = false
            for view in poses.indices where poses[view] == nil {
                guard let found = locate(view) else { continue }
                try join(view, cameraToWorld: found.cameraToWorld, observing: found.inliers)
                joinedOne = true
            }
        }
        return joinedCount
    }

    /// A keyframe per posed view (but `leftOut`), holding its features that observe a point
    /// which places cameras; id `firstID` + the view's index.
    public func keyframes(leavingOut leftOut: Int? = nil, firstID: Int = 0) -> [Keyframe] {
        poses.indices.compactMap { view in
            guard view != leftOut, let pose = poses[view] else { return nil }
            let kept = pointOf[view].indices.filter { pointOf[view][$0].map(placesCameras) ?? false }
            guard !kept.isEmpty else { return nil }
            return Keyframe(id: firstID + view, timestamp: timestamps[view], cameraToWorld: pose, intrinsics: intrinsics,
                            width: width, height: height, features: features[view].subset(kept),
                            points: kept.map { points[pointOf[view][$0]!] },
                            depths: kept.map { Float(view == 0 ? seedDepths[$0] : 0) })
        }
    }

    // MARK: Joining

    private func placesCameras(_ point: Int) -> Bool {
        observers[point].count >= 2 || (observers[point].first.map { $0.view == 0 && seedDepths[$0.feature] > 0 } ?? false)
    }

    private func matches(_ query: Int, _ train: Int) -> [FeatureMatch] {
        let key = SIMD2(query, train)
        if let known = matchCache[key] { return known }
        let found = indexes[train].match(features[query], ratio: options.ratio, maxDistance: options.maximumDistance)
        matchCache[key] = found
        return found
    }

    /// The view's pose by PnP against the points of every posed view it matches, with the
    /// inliers (feature, point); nil when fewer than `minimumInliers` agree.
    private func locate(_ view: Int) -> (cameraToWorld: RigidTransform, inliers: [(feature: Int, point: Int)])? {
        var nearest: [Int: (point: Int, distance: Int)] = [:]
        for other in poses.indices where poses[other] != nil {
            for match in matches(view, other) {
                guard let point = pointOf[other][match.train], placesCameras(point),
                    nearest[match.query].map({ match.distance < $0.distance }) ?? true
                else { continue }
                nearest[match.query] = (point, match.distance)
            }
        }
        let candidates = nearest.keys.sorted().map { (feature: $0, point: nearest[$0]!.point) }
        guard candidates.count >= options.minimumInliers,
            let estimate = estimateCameraPose(worldPoints: candidates.map { points[$0.point] },
                                              imagePoints: candidates.map { keypoints[view][$0.feature].location },
                                              intrinsics: intrinsics, options: options.pose),
            estimate.inlierCount >= options.minimumInliers
        else { return nil }
        return (estimate.worldToCamera.inverse, candidates.indices.filter { estimate.inliers[$0] }.map { candidates[$0] })
    }

    private func join(_ view: Int, cameraToWorld: RigidTransform, observing inliers: [(feature: Int, point: Int)])
        throws(WaymarkError)
    {
        poses[view] = cameraToWorld
        for (feature, point) in inliers where !sees(view, point) { observe(point, view: view, feature: feature) }
        let partners = poses.indices.filter { $0 != view && poses[$0] != nil }
            .sorted { matches(view, $0).count > matches(view, $1).count }.prefix(options.neighbours)
        for other in partners {
            for match in matches(view, other) {
                let (mine, theirs) = (match.query, match.train)
                switch (pointOf[view][mine], pointOf[other][theirs]) {
                case (nil, let point?):
                    if !sees(view, point), fits(point, view: view, feature: mine) { observe(point, view: view, feature: mine) }
                case (let point?, nil):
                    if !sees(other, point), fits(point, view: other, feature: theirs) {
                        observe(point, view: other, feature: theirs)
                    }
                case (nil, nil):
                    if let point = triangulate((view, mine), (other, theirs)) { addPoint(point, seenBy: [(view, mine), (other, theirs)]) }
                default:
                    break
                }
            }
        }
        try adjust()
    }

    private func sees(_ view: Int, _ point: Int) -> Bool { observers[point].contains { $0.view == view } }

    private func fits(_ point: Int, view: Int, feature: Int) -> Bool {
        let keypoint = keypoints[view][feature]
        return reprojectionError(points[point], keypoint.location, cameraToWorld: poses[view]!, intrinsics: intrinsics)
            .map { $0 <= options.maximumReprojectionError * keypoint.octaveScale } ?? false
    }

    private func triangulate(_ a: (view: Int, feature: Int), _ b: (view: Int, feature: Int)) -> SIMD3<Double>? {
        let (poseA, poseB) = (poses[a.view]!, poses[b.view]!)
        let (keypointA, keypointB) = (keypoints[a.view][a.feature], keypoints[b.view][b.feature])
        let rayA = viewingRay(through: keypointA.location, cameraToWorld: poseA, intrinsics: intrinsics)
        let rayB = viewingRay(through: keypointB.location, cameraToWorld: poseB, intrinsics: intrinsics)
        guard (rayA * rayB).sum() < cos(options.minimumParallaxDegrees * .pi / 180),
            let point = closestPoint(poseA.translationVector, rayA, poseB.translationVector, rayB),
            let errorA = reprojectionError(point, keypointA.location, cameraToWorld: poseA, intrinsics: intrinsics),
            let errorB = reprojectionError(point, keypointB.location, cameraToWorld: poseB, intrinsics: intrinsics),
            errorA <= options.maximumReprojectionError * keypointA.octaveScale,
            errorB <= options.maximumReprojectionError * keypointB.octaveScale
        else { return nil }
        return point
    }

    private func addPoint(_ position: SIMD3<Double>, seenBy seen: [(view: Int, feature: Int)]) {
        points.append(position)
        observers.append([])
        for (view, feature) in seen { observe(points.count - 1, view: view, feature: feature) }
    }

    private func observe(_ point: Int, view: Int, feature: Int) {
        observers[point].append((view, feature))
        pointOf[view][feature] = point
    }

    private func forget(_ point: Int, view: Int) {
        guard let at = observers[point].firstIndex(where: { $0.view == view }) else { return }
        pointOf[view][observers[point][at].feature] = nil
        observers[point].remove(at: at)
    }

    // MARK: Bundle adjustment

    /// Every posed view and every point seen by two of them, adjusted together; observations
    /// behind their camera or beyond the robust cost's bound afterwards are dropped (and a point
    /// left with one view with them), and what remains is adjusted again.
    private func adjust() throws(WaymarkError) {
        for _ in 0..<2 {
            let views = poses.indices.filter { poses[$0] != nil }
            var slot = [Int: Int]()
            for (s, view) in views.enumerated() { slot[view] = s }
            var adjusted: [Int] = []
            var observations: [BundleObservation] = []
            var owners: [(point: Int, view: Int)] = []
            var wrong: [(point: Int, view: Int)] = []
            for point in observers.indices where observers[point].count >= 2 {
                let index = adjusted.count
                adjusted.append(point)
                for (view, feature) in observers[point] {
                    guard poses[view]!.applyInverse(points[point]).z > 0.05 else {
                        wrong.append((point, view))
                        continue
                    }
                    let keypoint = keypoints[view][feature]
                    let depth = view == 0 && seedDepths[feature] > 0 ? seedDepths[feature] : nil
                    observations.append(BundleObservation(pose: slot[view]!, point: index, pixel: keypoint.location, depth: depth,
                                                          sigma: keypoint.octaveScale))
                    owners.append((point, view))
                }
            }
            guard !observations.isEmpty else { return }
            var problem = BundleAdjustmentProblem(intrinsics: intrinsics, poses: views.map { poses[$0]! },
                                                  fixed: views.map { $0 == 0 }, points: adjusted.map { points[$0] },
                                                  observations: observations)
            let report = try problem.solve(options: options.solver)
            for (s, view) in views.enumerated() where view != 0 { poses[view] = problem.poses[s].orthonormalized }
            for (index, point) in adjusted.enumerated() { points[point] = problem.points[index] }
            wrong += report.residuals.indices.filter { report.residuals[$0] > options.solver.huber }.map { owners[$0] }
            guard !wrong.isEmpty else { return }
            for (point, view) in wrong { forget(point, view: view) }
            for point in Set(wrong.map(\.point)) where !placesCameras(point) {
                for (view, _) in observers[point] { forget(point, view: view) }
            }
        }
    }
}
