/// Where a session's world takes its gravity from: what its surfaces call horizontal and vertical.
public enum GravitySource: String, Sendable {
    /// The frames' own (an accelerometer's), carried into the world by their poses.
    case accelerometer
    /// The configuration's `planeMap.down` (`measuresGravity` off).
    case given
    /// Found among the map's points by a world tracked from images alone (`SceneGravity`):
    /// its surfaces wait for it.
    case estimated
    /// `planeMap.down` as it stands: the recorded poses' −y, or the first camera's +y.
    case assumed
}

extension Session {
    public var gravitySource: GravitySource {
        if !configuration.measuresGravity { return .given }
        if input.hasGravity { return .accelerometer }
        return sparsePlaneDetector != nil ? .estimated : .assumed
    }

    /// Whether the world's surfaces can be judged: always but while an estimate from the scene
    /// is awaited and no frame has brought gravity.
    var knowsGravity: Bool { gravitySource != .estimated || sceneGravityFound || measuredGravity != .zero }
}
