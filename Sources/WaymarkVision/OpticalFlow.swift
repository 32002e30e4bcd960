import CSupport
import WaymarkCore

public struct OpticalFlowOptions: Equatable, Sendable {
    public var window = 21
    public var levels = 3
    public var maxIterations = 30
    public var epsilon = 0.01
    public var minEigenThreshold = 1e-4

    public init() {}
}

public struct FlowResult: Sendable {
    public var points: [Point2]
    public var tracked: [Bool]
    /// Mean absolute intensity difference of each point's window.
    public var errors: [Double]
}

/// Pyramidal Lucas-Kanade flow of `points` from `previous` to `next` (both gray), starting
/// from the guesses in `initial` (the points themselves when nil).
public func trackPoints(
    _ points: [Point2], from previous: Image, to next: Image, initial: [Point2]? = nil,
    options: OpticalFlowOptions = .init()
) -> FlowResult {
    precondition(previous.channels == 1 && next.channels == 1, "optical flow runs on gray images")
    precondition(initial == nil || initial!.count == points.count, "one initial guess per point")
    let from = points.flatMap { [Float($0.x), Float($0.y)] }
    var to = (initial ?? points).flatMap { [Float($0.x), Float($0.y)] }
    var tracked = [UInt8](repeating: 0, count: points.count)
    var errors = [Float](repeating: 0, count: points.count)
    var o = cs_flow_options(
        window: Int32(options.window), levels: Int32(options.levels), max_iterations: Int32(options.maxIterations),
        epsilon: options.epsilon, min_eigen_threshold: options.minEigenThreshold)
    checkInvariant {
        cs_optical_flow_track(previous.handle, next.handle, from, &to, points.count, &o, &tracked, &errors, $0)
    }
    return FlowResult(
        points: (0..<points.count).map { Point2(Double(to[2 * $0]), Double(to[2 * $0 + 1])) },
        tracked: tracked.map { $0 != 0 }, errors: errors.map(Double.init))
}

/// Up to `maxCount` strong, well-separated corners of a gray image, sub-pixel refined.
public func detectCorners(in image: Image, maxCount: Int, quality: Double = 0.01, minDistance: Double = 8) -> [Point2] {
    precondition(image.channels == 1, "corners are detected on gray images")
    var buffer = [Float](repeating: 0, count: 2 * maxCount)
    var n = 0
    checkInvariant { cs_corners_detect(image.handle, quality, minDistance, &buffer, maxCount, &n, $0) }
    return (0..<n).map { Point2(Double(buffer[2 * $0]), Double(buffer[2 * $0 + 1])) }
}
