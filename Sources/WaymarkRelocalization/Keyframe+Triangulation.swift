import Foundation
import WaymarkCore
import WaymarkVision

/// A view whose camera pose is known, by its features.
public struct PosedView {
    public var timestamp: Double
    public var features: FeatureSet
    public var width: Int
    public var height: Int
    public var cameraToWorld: RigidTransform
    public var intrinsics: Intrinsics

    public init(timestamp: Double, features: FeatureSet, width: Int, height: Int, cameraToWorld: RigidTransform,
                intrinsics: Intrinsics)
    {
        self.timestamp = timestamp
        self.features = features
        self.width = width
        self.height = height
        self.cameraToWorld = cameraToWorld
        self.intrinsics = intrinsics
    }

    public init(timestamp: Double, gray: Image, cameraToWorld: RigidTransform, intrinsics: Intrinsics,
                features options: FeatureOptions = TriangulationOptions.defaultFeatures)
    {
        self.init(timestamp: timestamp, features: FeatureSet(detectingIn: gray, options: options), width: gray.width,
                  height: gray.height, cameraToWorld: cameraToWorld, intrinsics: intrinsics)
    }
}

public struct TriangulationOptions: Equatable, Sendable {
    public static let defaultFeatures = FeatureOptions(maxFeatures: 2000)
    /// Each view is matched with this many others, those whose cameras are nearest.
    public var neighbours = 4
    /// Rays meeting at less than this angle, degrees, place a point too uncertainly in depth.
    public var minimumParallaxDegrees = 1.5
    /// Largest reprojection error in either view, pixels.
    public var maximumReprojectionError = 2.0

    public init() {}
}

extension Keyframe {
    /// Keyframes from posed views without depth: each feature's world position is triangulated
    /// from its match in a neighbouring view (ratio-tested, with enough parallax, reprojecting
    /// within tolerance in both views; the most consistent of several). Features without a
    /// position are left out.
    public static func triangulating(_ views: [PosedView], firstID: Int = 0,
                                     options: TriangulationOptions = TriangulationOptions()) -> [Keyframe]
    {
        let features = views.map(\.features)
        let keypoints = features.map(\.keypoints)
        let indexes = features.map { DescriptorIndex(sets: [$0], search: .exact) }
        let cosineLimit = cos(options.minimumParallaxDegrees * .pi / 180)
        var keyframes: [Keyframe] = []
        for (i, view) in views.enumerated() {
            let centre = view.cameraToWorld.translationVector
            let nearest = views.indices.filter { $0 != i }.sorted {
                distanceSquared(views[$0].cameraToWorld.translationVector, centre)
                    < distanceSquared(views[$1].cameraToWorld.translationVector, centre)
            }.prefix(options.neighbours)
            var best: [Int: (point: SIMD3<Double>, error: Double)] = [:]
            for j in nearest {
                let other = views[j]
                for match in indexes[j].match(features[i], ratio: 0.8, maxDistance: 64) {
                    let a = keypoints[i][match.query].location
                    let b = keypoints[j][match.train].location
                    let rayA = viewingRay(through: a, cameraToWorld: view.cameraToWorld, intrinsics: view.intrinsics)
                    let rayB = viewingRay(through: b, cameraToWorld: other.cameraToWorld, intrinsics: other.intrinsics)
                    guard (rayA * rayB).sum() < cosineLimit,
                        let point = closestPoint(centre, rayA, other.cameraToWorld.translationVector, rayB)
                    else { continue }
                    guard let errorA = reprojectionError(point, a, cameraToWorld: view.cameraToWorld, intrinsics: view.intrinsics),
                        let errorB = reprojectionError(point, b, cameraToWorld: other.cameraToWorld, intrinsics: other.intrinsics)
                    else { continue }
                    let error = max(errorA, errorB)
                    guard error <= options.maximumReprojectionError else { continue }
                    if let previous = best[match.query], previous.error <= error { continue }
                    best[match.query] = (point, error)
                }
            }
            let kept = best.keys.sorted()
            keyframes.append(Keyframe(
                id: firstID + i, timestamp: view.timestamp, cameraToWorld: view.cameraToWorld, intrinsics: view.intrinsics,
                width: view.width, height: view.height, features: features[i].subset(kept),
                points: kept.map { best[$0]!.point }))
        }
        return keyframes
    }
}

/// The unit viewing ray through a pixel, in world coordinates.
func viewingRay(through p: Point2, cameraToWorld: RigidTransform, intrinsics: Intrinsics) -> SIMD3<Double> {
    let d = cameraToWorld.applyRotation(intrinsics.backproject(p, depth: 1))
    return d / (d * d).sum().squareRoot()
}

/// How far, pixels, a world point lands from where it was observed; nil behind the camera.
func reprojectionError(_ point: SIMD3<Double>, _ observed: Point2, cameraToWorld: RigidTransform, intrinsics: Intrinsics)
    -> Double?
{
    let c = cameraToWorld.applyInverse(point)
    guard c.z > 0 else { return nil }
    return intrinsics.project(c).distance(to: observed)
}

/// The midpoint of the shortest segment between two rays (origin, unit direction), when both
/// meet it in front of their origins.
func closestPoint(_ a: SIMD3<Double>, _ u: SIMD3<Double>, _ b: SIMD3<Double>, _ v: SIMD3<Double>)
    -> SIMD3<Double>?
{
    let w = a - b
    let (uv, uw, vw) = ((u * v).sum(), (u * w).sum(), (v * w).sum())
    let denominator = 1 - uv * uv
    guard denominator > 1e-12 else { return nil }
    let s = (uv * vw - uw) / denominator
    let t = (vw - uv * uw) / denominator
    guard s > 0, t > 0 else { return nil }
    return (a + u * s + b + v * t) / 2
}

private func distanceSquared(_ a: SIMD3<Double>, _ b: SIMD3<Double>) -> Double { ((a - b) * (a - b)).sum() }
