import CSupport
import WaymarkCore

/// The relative pose of a camera seen from two places, from point matches alone (OpenCV's
/// five-point essential matrix and its homography decomposition). Points are normalized image
/// coordinates, (x/z, y/z) of each viewing ray in camera coordinates; a relative pose maps the
/// first camera's coordinates to the second's (X2 = R·X1 + t).
public enum TwoViewGeometry {
    /// The essential matrix (row-major, x2ᵀ·E·x1 = 0) best supported by the matches, by RANSAC
    /// with `threshold` in normalized units (pixels over the focal length), and its inliers; nil
    /// when there is none.
    public static func essential(from first: [Point2], to second: [Point2], threshold: Double,
                                 confidence: Double = 0.999) -> (matrix: [Double], inliers: [Bool])?
    {
        precondition(first.count == second.count, "matches come in pairs")
        precondition(threshold > 0 && confidence > 0 && confidence < 1, "RANSAC needs a threshold and a confidence")
        let a = first.flatMap { [$0.x, $0.y] }
        let b = second.flatMap { [$0.x, $0.y] }
        var e = [Double](repeating: 0, count: 9)
        var mask = [UInt8](repeating: 0, count: first.count)
        var found: Int32 = 0
        checkInvariant { cs_essential_estimate(a, b, first.count, threshold, confidence, &e, &mask, &found, $0) }
        guard found != 0 else { return nil }
        return (e, mask.map { $0 != 0 })
    }

    /// The four relative poses an essential matrix can come from (the baseline of unit length):
    /// only one puts the scene in front of both cameras.
    public static func poses(essential: [Double]) -> [RigidTransform] {
        precondition(essential.count == 9, "an essential matrix has 9 elements")
        var rotations = [Double](repeating: 0, count: 18)
        var t = [Double](repeating: 0, count: 3)
        checkInvariant { cs_essential_decompose(essential, &rotations, &t, $0) }
        let (r1, r2) = (Array(rotations[0..<9]), Array(rotations[9..<18]))
        let minus = t.map { -$0 }
        return [(r1, t), (r1, minus), (r2, t), (r2, minus)].map { RigidTransform(rotation: $0.0, translation: $0.1) }
    }

    /// The relative poses (translation over the plane's distance from the first camera) and
    /// plane normals (first camera's coordinates) a homography of normalized points can come
    /// from, up to four.
    public static func poses(homography: Homography) -> [(secondFromFirst: RigidTransform, normal: SIMD3<Double>)] {
        var rotations = [Double](repeating: 0, count: 36)
        var translations = [Double](repeating: 0, count: 12)
        var normals = [Double](repeating: 0, count: 12)
        var count: Int32 = 0
        checkInvariant { cs_homography_decompose(homography.elements, &rotations, &translations, &normals, &count, $0) }
        return (0..<Int(count)).map { i in
            (RigidTransform(rotation: Array(rotations[(9 * i)..<(9 * i + 9)]), translation: Array(translations[(3 * i)..<(3 * i + 3)])),
             SIMD3(normals[3 * i], normals[3 * i + 1], normals[3 * i + 2]))
        }
    }
}
