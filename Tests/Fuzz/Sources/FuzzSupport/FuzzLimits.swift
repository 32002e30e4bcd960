import Waymark

/// Limits small enough that an execution stays in milliseconds and libFuzzer's 2 GB memory
/// limit is never the finding; the checks against them are the same code as the defaults'.
public let fuzzLimits = InputLimits(maxPixels: 1 << 20, maxPoints: 20_000)

public enum CloudChecks {
    /// Reads a cloud and, when it loads, detects planes in it as `waymark planes` would.
    public static func check(_ path: String) {
        guard let cloud = try? PointCloud(contentsOf: path, limits: fuzzLimits) else { return }
        precondition(cloud.points.count <= fuzzLimits.maxPoints, "a cloud over the point limit loaded")
        precondition(cloud.width * cloud.height == cloud.points.count, "a cloud's size does not match its points")
        guard let detector = try? PlaneDetector() else { preconditionFailure("the default plane options are invalid") }
        _ = detector.detect(in: cloud)
    }
}
