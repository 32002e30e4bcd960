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

    public init(id: Int, timestamp: Double, cameraToWorld: RigidTransform, intrinsics: Intrinsics, width: Int,
                height: Int, features: FeatureSet, points: [SIMD3<Double>])
    {
        precondition(features.count == points.count, "one world point per feature")
        self.id = id
        self.timestamp = timestamp
        self.cameraToWorld = cameraToWorld
        self.intrinsics = intrinsics
        self.width = width
        self.height = height
        self.features = features
        self.points = points
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
        for (i, keypoint) in detected.keypoints.enumerated() {
            guard let z = depthAt(keypoint.location, depth: depth, width: width, height: height) else {
                if let known = tracked[i] {
                    kept.append(i)
                    points.append(known)
                }
                continue
            }
            let camera = SIMD3((keypoint.location.x - intrinsics.cx) / intrinsics.fx * z,
                               (keypoint.location.y - intrinsics.cy) / intrinsics.fy * z, z)
            let measured = cameraToWorld.apply(camera)
            kept.append(i)
            // A tracked point is kept where the depth confirms it (within 3 %); a match the
            // depth contradicts is another point seen at that pixel.
            if let known = tracked[i], ((known - measured) * (known - measured)).sum() <= (0.03 * z) * (0.03 * z) {
                points.append(known)
            } else {
                points.append(measured)
            }
        }
        self.init(id: id, timestamp: timestamp, cameraToWorld: cameraToWorld, intrinsics: intrinsics, width: width,
                  height: height, features: detected.subset(kept), points: points)
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
