import Foundation
import WaymarkCore
import WaymarkVision

/// How a frame is tracked against the map.
public struct LocalMapOptions: Equatable, Sendable {
    /// The reference keyframe and this many of the keyframes that share most points with it.
    public var neighbours = 10
    /// Search radius around a point's predicted pixel, pixels at the finest scale (it grows
    /// with the octave): wide from the motion model's guess, narrow once a first pose is found.
    public var predictionRadius = 7.0
    public var refinedRadius = 3.0
    /// The widest Hamming distance of a match (the search's place narrows the choice, so this
    /// is looser than an unconstrained match's).
    public var maximumDistance = 80
    /// A second candidate on the same octave this close to the best makes a match ambiguous.
    public var ratio = 0.9
    /// A frame tracks when at least this many points are inliers (ORB-SLAM's 30).
    public var minimumTracked = 30
    public var refinement = PoseRefinementOptions()

    public init() {}
}

/// The points of a reference keyframe and of the keyframes that share most points with it:
/// what a frame near the reference can see, matched by projection from a predicted pose.
struct LocalMap {
    private(set) var positions: [SIMD3<Double>] = []
    private var descriptors: [PackedDescriptor] = []
    private var octaves: [Int] = []
    /// How far the point was from the keyframe's camera it was taken from: with its octave
    /// there, the octave it should appear at now.
    private var distances: [Double] = []

    init(_ map: WorldMap, reference: Int, neighbours: Int) {
        var seen = Set<SIMD3<Double>>()
        let members = [reference] + map.covisible(with: reference).prefix(neighbours).map(\.keyframe)
        for index in members {
            let keyframe = map.keyframes[index]
            let keypoints = keyframe.features.keypoints
            let packed = keyframe.features.packedDescriptors
            let centre = keyframe.cameraCentre
            for (i, point) in keyframe.points.enumerated() where seen.insert(point).inserted {
                positions.append(point)
                descriptors.append(packed[i])
                octaves.append(keypoints[i].octave)
                let d = point - centre
                distances.append((d * d).sum().squareRoot())
            }
        }
    }

    /// How many of the points fall inside a `width`×`height` frame seen from `worldToCamera`:
    /// what the frame should track if the pose is right.
    func countInView(worldToCamera: RigidTransform, intrinsics k: Intrinsics, width: Int, height: Int) -> Int {
        positions.count { k.pixel(seeing: worldToCamera.apply($0), width: width, height: height) != nil }
    }

    /// Each frame feature's best point (`landmark` into `positions`), searched within `radius`
    /// (times the octave's scale) of where the point projects from `worldToCamera`.
    func match(_ frame: ProjectedFeatureSearch, worldToCamera: RigidTransform, intrinsics k: Intrinsics, width: Int,
               height: Int, radius: Double, options: LocalMapOptions) -> [(feature: Int, landmark: Int)]
    {
        let r = worldToCamera.rotation
        let rows = (SIMD3(r[0], r[1], r[2]), SIMD3(r[3], r[4], r[5]), SIMD3(r[6], r[7], r[8]))
        let t = worldToCamera.translationVector
        let logScale = log(1.2)
        var best = [(landmark: Int, distance: Int)](repeating: (-1, .max), count: frame.count)
        for (i, world) in positions.enumerated() {
            let p = SIMD3((rows.0 * world).sum(), (rows.1 * world).sum(), (rows.2 * world).sum()) + t
            guard let pixel = k.pixel(seeing: p, width: width, height: height) else { continue }
            let distance = (p * p).sum().squareRoot()
            let octave = max(0, octaves[i] + Int((log(distances[i] / distance) / logScale).rounded()))
            guard let found = frame.nearest(
                to: descriptors[i], around: pixel, radius: radius * pow(1.2, Double(octave)),
                octaves: max(0, octave - 1)...(octave + 1), maxDistance: options.maximumDistance, ratio: options.ratio)
            else { continue }
            if found.distance < best[found.feature].distance { best[found.feature] = (i, found.distance) }
        }
        return best.enumerated().compactMap { $0.element.landmark >= 0 ? ($0.offset, $0.element.landmark) : nil }
    }

    /// The frame's pose from `predicted` (world-to-camera): matched within the wide radius,
    /// refined, matched again within the narrow one, refined again. Nil when too few points track.
    /// Without depth the pose rests on the reprojections alone.
    func track(_ frame: ProjectedFeatureSearch, depth: [Float]?, width: Int, height: Int, predicted: RigidTransform,
               intrinsics k: Intrinsics, options: LocalMapOptions) -> (worldToCamera: RigidTransform, tracked: [(feature: Int, landmark: Int)])?
    {
        var pose = predicted
        var tracked: [(feature: Int, landmark: Int)] = []
        for radius in [options.predictionRadius, options.refinedRadius] {
            let matches = match(frame, worldToCamera: pose, intrinsics: k, width: width, height: height, radius: radius,
                                options: options)
            guard matches.count >= options.minimumTracked else { return nil }
            let observations = matches.map { m -> PoseObservation in
                let keypoint = frame.keypoints[m.feature]
                return PoseObservation(world: positions[m.landmark], pixel: keypoint.location,
                                       depth: depth.flatMap { depthAt(keypoint.location, depth: $0, width: width, height: height) },
                                       sigma: keypoint.octaveScale)
            }
            let refined = refinePose(pose, observations: observations, intrinsics: k, options: options.refinement)
            guard refined.inlierCount >= options.minimumTracked else { return nil }
            pose = refined.worldToCamera
            tracked = zip(matches, refined.inliers).compactMap { $1 ? $0 : nil }
        }
        return (pose, tracked)
    }
}
