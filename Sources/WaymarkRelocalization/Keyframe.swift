import WaymarkCore
import WaymarkVision

/// A posed camera view kept in the world map: the features whose world position is known, so
/// that the place can be recognised and the camera's pose solved when it comes back.
public final class Keyframe {
    public let id: Int
    public let timestamp: Double
    public let cameraToWorld: RigidTransform
    public let intrinsics: Intrinsics
    public let width: Int
    public let height: Int
    /// Only the features with a world position, in the order of `points`.
    public let features: FeatureSet
    /// World positions, metres.
    public let points: [SIMD3<Double>]
    /// Each point's depth as this keyframe's sensor measured it, metres; 0 where it has none
    /// (triangulated, or tracked where the depth is missing). Bundle adjustment's depth prior.
    public let depths: [Float]

    /// `depths` nil: no point has a measured depth.
    public init(id: Int, timestamp: Double, cameraToWorld: RigidTransform, intrinsics: Intrinsics, width: Int,
                height: Int, features: FeatureSet, points: [SIMD3<Double>], depths: [Float]? = nil)
    {
        precondition(features.count == points.count, "one world point per feature")
        precondition(depths.map { $0.count == points.count } ?? true, "one depth per point")
        self.id = id
        self.timestamp = timestamp
        self.cameraToWorld = cameraToWorld
        self.intrinsics = intrinsics
        self.width = width
        self.height = height
        self.features = features
        self.points = points
        self.depths = depths ?? [Float](repeating: 0, count: points.count)
    }

    /// A keyframe from a gray image and its depth (metres, row-major, same size; 0 or NaN
    /// where unknown).
    public convenience init(id: Int, timestamp: Double, gray: Image, depth: [Float], cameraToWorld: RigidTransform,
                            intrinsics: Intrinsics, features options: FeatureOptions = FeatureOptions())
    {
        self.init(id: id, timestamp: timestamp, features: FeatureSet(detectingIn: gray, options: options), width: gray.width,
                  height: gray.height, depth: depth, cameraToWorld: cameraToWorld, intrinsics: intrinsics)
    }

    /// A keyframe from features already detected in a `width`×`height` image and its depth.
    /// Features on a depth edge, whose depth could belong to either side, are left out.
    /// `tracked`: features (by index) matched to points already in the map, which keep those
    /// points' positions exactly, so the map knows them for one point, where the depth agrees
    /// within 3 % or has no measurement.
    public convenience init(id: Int, timestamp: Double, features detected: FeatureSet, width: Int, height: Int,
                            depth: [Float], cameraToWorld: RigidTransform, intrinsics: Intrinsics,
                            tracked: [Int: SIMD3<Double>] = [:])
    {
        precondition(depth.count == width * height, "depth and image sizes differ")
        var kept: [Int] = []
        var points: [SIMD3<Double>] = []
        var depths: [Float] = []
        for (i, keypoint) in detected.keypoints.enumerated() {
            guard let z = depthAt(keypoint.location, depth: depth, width: width, height: height) else {
                if let known = tracked[i] {
                    kept.append(i)
                    points.append(known)
                    depths.append(0)
                }
                continue
            }
            let measured = cameraToWorld.apply(intrinsics.backproject(keypoint.location, depth: z))
            kept.append(i)
            depths.append(Float(z))
            // A tracked point is kept where the depth confirms it (within 3 %); a match the
            // depth contradicts is another point seen at that pixel.
            if let known = tracked[i], ((known - measured) * (known - measured)).sum() <= (0.03 * z) * (0.03 * z) {
                points.append(known)
            } else {
                points.append(measured)
            }
        }
        self.init(id: id, timestamp: timestamp, cameraToWorld: cameraToWorld, intrinsics: intrinsics, width: width,
                  height: height, features: detected.subset(kept), points: points, depths: depths)
    }

    /// This keyframe moved to `cameraToWorld` with its points moved to `points` (one per
    /// feature), keeping only the features `kept` (indices, ascending).
    public func adjusted(cameraToWorld: RigidTransform, points: [SIMD3<Double>], keeping kept: [Int]) -> Keyframe {
        precondition(points.count == self.points.count, "one position per point")
        return Keyframe(id: id, timestamp: timestamp, cameraToWorld: cameraToWorld, intrinsics: intrinsics, width: width,
                        height: height, features: kept.count == features.count ? features : features.subset(kept),
                        points: kept.map { points[$0] }, depths: kept.map { depths[$0] })
    }

    public var cameraCentre: SIMD3<Double> { cameraToWorld.translationVector }
}

/// The depth at a pixel when it and its 8 neighbours agree within 3 %: a smooth surface, not
/// an edge between two.
func depthAt(_ p: Point2, depth: [Float], width: Int, height: Int) -> Double? {
    let (x, y) = (Int(p.x), Int(p.y))
    guard x >= 1, y >= 1, x < width - 1, y < height - 1 else { return nil }
    let centre = depth[y * width + x]
    guard centre.isFinite, centre > 0.05 else { return nil }
    for dy in -1...1 {
        for dx in -1...1 {
            let d = depth[(y + dy) * width + x + dx]
            guard d.isFinite, d > 0, abs(d - centre) <= 0.03 * centre else { return nil }
        }
    }
    return Double(centre)
}
