import CSupport
import WaymarkCore

public struct HomographyEstimationOptions: Equatable, Sendable {
    public enum Method: Sendable {
        case ransac, magsac
        /// An affine map by RANSAC (three-point samples): stable where few matches cover a
        /// small part of the image, exact for a far-away plane.
        case affine
    }
    public var method = Method.magsac
    /// Reprojection threshold in destination pixels.
    public var threshold = 3.0
    public var maxIterations = 2000
    public var confidence = 0.999
    public var seed: UInt64 = 1
    /// An estimate with fewer inliers is not returned. Knowing it lets `.affine` skip RANSAC
    /// where a check of every three of a few matches shows that no map has that many.
    public var minInliers = 0

    public init() {}
}

public struct HomographyEstimate: Sendable {
    public var homography: Homography
    public var inliers: [Bool]
    public var inlierCount: Int
}

/// Robust homography with destination ~ H · source, or nil when none is found.
public func estimateHomography(
    from source: [Point2], to destination: [Point2], options: HomographyEstimationOptions = .init()
) -> HomographyEstimate? {
    precondition(source.count == destination.count, "correspondences come in pairs")
    guard source.count >= 4 else { return nil }
    let src = source.flatMap { [Float($0.x), Float($0.y)] }
    let dst = destination.flatMap { [Float($0.x), Float($0.y)] }
    var o = cs_homography_options(
        method: Int32(options.method.shimValue.rawValue),
        threshold: options.threshold, max_iterations: Int32(options.maxIterations), confidence: options.confidence,
        seed: options.seed, min_inliers: Int32(clamping: max(0, options.minInliers)))
    var h = [Double](repeating: 0, count: 9)
    var mask = [UInt8](repeating: 0, count: source.count)
    var found: Int32 = 0
    checkInvariant { cs_homography_estimate(src, dst, source.count, &o, &h, &mask, &found, $0) }
    guard found != 0 else { return nil }
    let inliers = mask.map { $0 != 0 }
    return HomographyEstimate(
        homography: Homography(h).normalized, inliers: inliers, inlierCount: inliers.lazy.filter { $0 }.count)
}

extension HomographyEstimationOptions.Method {
    fileprivate var shimValue: cs_robust_method {
        switch self {
        case .ransac: CS_ROBUST_RANSAC
        case .magsac: CS_ROBUST_MAGSAC
        case .affine: CS_ROBUST_AFFINE
        }
    }
}
