import Foundation
import WaymarkCore
import WaymarkVision

/// How a monocular keyframe triangulates new points with its neighbours (ORB-SLAM's
/// `CreateNewMapPoints`).
public struct NewPointOptions: Equatable, Sendable {
    /// The keyframes that share most tracked points with the new one, matched with it.
    public var neighbours = 5
    public var ratio = 0.8
    public var maximumDistance = 64
    /// Rays meeting at less than this, degrees, place a point too unsurely in depth (ORB-SLAM: cos = 0.9998).
    public var minimumParallaxDegrees = 1.15
    /// Largest reprojection error in either view, in units of the feature's scale (chi-square
    /// at 95 % with two degrees of freedom).
    public var maximumReprojectionError = 5.991.squareRoot()
    /// A neighbour whose camera is nearer than this share of its points' median depth is too
    /// close to triangulate with (ORB-SLAM: 0.01).
    public var minimumBaselineShare = 0.01
    /// A point's distances from the two cameras and its octaves there may disagree by this
    /// factor (ORB-SLAM: 1.5 × the pyramid's scale step).
    public var scaleConsistency = 1.8
    /// A keyframe needs at least this many points.
    public var minimumPoints = 50

    public init() {}
}

extension MonocularTracker {
    /// Adds a keyframe at `cameraToWorld` holding the points it `tracked` and new points
    /// triangulated between its untracked features and those of its neighbours' images that
    /// have no point yet; the neighbours take the new points too, so the map knows each from two
    /// views. Returns the keyframe's index, or nil when it would hold too few points.
    func insertKeyframe(id: Int, timestamp: Double, features: FeatureSet, width: Int, height: Int,
                        cameraToWorld: RigidTransform, tracked: [(feature: Int, point: SIMD3<Double>)]) -> Int?
    {
        let settings = options.newPoints
        var pointOf = [SIMD3<Double>?](repeating: nil, count: features.count)
        var shared: [Int: Int] = [:]
        for t in tracked {
            pointOf[t.feature] = t.point
            for holder in map.holders(of: t.point) { shared[holder, default: 0] += 1 }
        }
        let centre = cameraToWorld.translationVector
        // The nearest keyframes see most of the same points but from too close to place new
        // ones: those are passed over for the next, further ones.
        let neighbours = shared.sorted { $0.value > $1.value || ($0.value == $1.value && $0.key > $1.key) }
            .lazy.map(\.key).filter { self.farEnough(self.map.keyframes[$0], from: centre) }.prefix(settings.neighbours)
        let keypoints = features.keypoints
        // By neighbour: its image's features that hold a point (`heldFeatures`), and the new points it takes.
        var extensions: [Int: (held: [Int: Int], added: [(feature: Int, point: SIMD3<Double>)])] = [:]
        for n in neighbours {
            let neighbour = map.keyframes[n]
            guard let image = imageFeatures[neighbour.id] else { continue }
            let imageKeypoints = image.keypoints
            let held = heldFeatures(of: neighbour, in: imageKeypoints)
            let free = imageKeypoints.indices.filter { held[$0] == nil }
            let open = pointOf.indices.filter { pointOf[$0] == nil }
            guard !free.isEmpty, !open.isEmpty else { continue }
            let matches = DescriptorIndex(sets: [image.subset(free)], search: .exact)
                .match(features.subset(open), ratio: settings.ratio, maxDistance: settings.maximumDistance)
            // By the neighbour's feature: the best of the new keyframe's features placed with it.
            var placed: [Int: (feature: Int, point: SIMD3<Double>, error: Double)] = [:]
            for match in matches {
                let (f, g) = (open[match.query], free[match.train])
                guard let (point, error) = triangulate(keypoints[f], cameraToWorld, imageKeypoints[g], neighbour.cameraToWorld)
                else { continue }
                if let other = placed[g], other.error <= error { continue }
                placed[g] = (f, point, error)
            }
            for (g, p) in placed.sorted(by: { $0.key < $1.key }) {
                pointOf[p.feature] = p.point
                extensions[n, default: (held, [])].added.append((g, p.point))
            }
        }
        let kept = pointOf.indices.filter { pointOf[$0] != nil }
        guard kept.count >= settings.minimumPoints else { return nil }
        map.add(Keyframe(id: id, timestamp: timestamp, cameraToWorld: cameraToWorld, intrinsics: intrinsics, width: width,
                         height: height, features: features.subset(kept), points: kept.map { pointOf[$0]! }))
        for (n, e) in extensions { extend(n, held: e.held, with: e.added) }
        return map.keyframes.count - 1
    }

    /// Whether the camera at `centre` is far enough from the keyframe's, against the depth of
    /// what it sees, for rays from both to meet at an angle.
    private func farEnough(_ keyframe: Keyframe, from centre: SIMD3<Double>) -> Bool {
        let baseline = centre - keyframe.cameraCentre
        let depths = keyframe.points.map { keyframe.cameraToWorld.applyInverse($0).z }.sorted()
        guard !depths.isEmpty else { return false }
        return (baseline * baseline).sum().squareRoot() >= options.newPoints.minimumBaselineShare * depths[depths.count / 2]
    }

    /// By feature of the keyframe's image: the index among the keyframe's features (those with
    /// a point), found by keypoint; the adjustment may have dropped some.
    private func heldFeatures(of keyframe: Keyframe, in imageKeypoints: [Keypoint]) -> [Int: Int] {
        var byLocation: [SIMD3<Double>: Int] = [:]
        for (i, k) in keyframe.features.keypoints.enumerated() {
            byLocation[SIMD3(k.location.x, k.location.y, Double(k.octave))] = i
        }
        var held: [Int: Int] = [:]
        for (g, k) in imageKeypoints.enumerated() {
            if let i = byLocation[SIMD3(k.location.x, k.location.y, Double(k.octave))] { held[g] = i }
        }
        return held
    }

    /// The point two keypoints see, and its larger reprojection error (in units of the
    /// feature's scale), when the rays meet in front of both cameras at an angle, it lands near
    /// both keypoints, and its distances agree with the octaves it was seen at.
    private func triangulate(_ a: Keypoint, _ poseA: RigidTransform, _ b: Keypoint, _ poseB: RigidTransform)
        -> (SIMD3<Double>, Double)?
    {
        let settings = options.newPoints
        let rayA = viewingRay(through: a.location, cameraToWorld: poseA, intrinsics: intrinsics)
        let rayB = viewingRay(through: b.location, cameraToWorld: poseB, intrinsics: intrinsics)
        guard (rayA * rayB).sum() < cos(settings.minimumParallaxDegrees * .pi / 180),
            let point = closestPoint(poseA.translationVector, rayA, poseB.translationVector, rayB),
            let errorA = reprojectionError(point, a.location, cameraToWorld: poseA, intrinsics: intrinsics),
            let errorB = reprojectionError(point, b.location, cameraToWorld: poseB, intrinsics: intrinsics)
        else { return nil }
        let error = max(errorA / a.octaveScale, errorB / b.octaveScale)
        guard error <= settings.maximumReprojectionError else { return nil }
        let toA = point - poseA.translationVector
        let toB = point - poseB.translationVector
        let distanceRatio = ((toA * toA).sum() / (toB * toB).sum()).squareRoot()
        let octaveRatio = b.octaveScale / a.octaveScale
        guard distanceRatio * settings.scaleConsistency > octaveRatio, distanceRatio < octaveRatio * settings.scaleConsistency
        else { return nil }
        return (point, error)
    }

    /// Keyframe `index` (whose image's features `held` points) also holding `added` points at
    /// features of its image.
    private func extend(_ index: Int, held: [Int: Int], with added: [(feature: Int, point: SIMD3<Double>)]) {
        let keyframe = map.keyframes[index]
        guard let image = imageFeatures[keyframe.id] else { return }
        var pointOf: [Int: SIMD3<Double>] = [:]
        for (g, i) in held { pointOf[g] = keyframe.points[i] }
        for a in added where pointOf[a.feature] == nil { pointOf[a.feature] = a.point }
        let kept = pointOf.keys.sorted()
        map.replace(index, with: Keyframe(
            id: keyframe.id, timestamp: keyframe.timestamp, cameraToWorld: keyframe.cameraToWorld, intrinsics: keyframe.intrinsics,
            width: keyframe.width, height: keyframe.height, features: image.subset(kept), points: kept.map { pointOf[$0]! },
            depths: kept.map { g in held[g].map { keyframe.depths[$0] } ?? 0 }))
    }
}
