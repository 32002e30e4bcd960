/// A session for a frame source: what its frames carry, and the engine's defaults for it.
extension SessionInput {
    public init(_ source: FrameSourceInfo) {
        self.init(width: source.width, height: source.height, hasDepth: source.hasDepth,
                  hasRecordedPoses: source.recordedPoses != nil, intrinsics: source.intrinsics, hasGravity: source.hasGravity)
    }
}

extension SessionConfiguration {
    /// The engine's choices for what `source` carries: without depth, no surfaces (surfaces
    /// among a monocular map's points are opt-in: on the walk-through's scan the one they found
    /// was false, Benchmarks/RESULTS.md), and no relocalization unless the camera is tracked
    /// from its images alone (intrinsics and no recorded poses: the monocular tracker
    /// relocalizes in its own map); depth without colour is tracked by ICP alone; without
    /// recorded poses the world is the first camera's (the engine's odometry), whose +y stands
    /// in for gravity unless the frames carry it or the caller says otherwise; a source recorded
    /// at a low rate is not interrupted by its own frame interval.
    public mutating func adapt(to source: FrameSourceInfo) {
        if !source.hasDepth {
            surfaces = []
            relocalization = source.intrinsics != nil && source.recordedPoses == nil
        }
        if source.hasDepth, !source.hasColor { tracking.odometry.method = .icp }
        if source.recordedPoses == nil { planeMap.down = SIMD3(0, 1, 0) }
        tracking.expectFrames(every: 1 / source.framesPerSecond)
        monocularTracking.expectFrames(every: 1 / source.framesPerSecond)
    }
}

extension SessionFrame {
    /// The frame as the session takes it: its picture (a black one for depth without colour),
    /// depth, recorded pose and gravity. nil for a frame that could not be read.
    public init?(_ frame: InputFrame) {
        guard frame.error == nil else { return nil }
        let image = frame.image ?? Image(width: frame.depth?.width ?? 1, height: frame.depth?.height ?? 1, channels: 1)
        self.init(timestamp: frame.timestamp, image: image, depth: frame.depth, recordedPose: frame.recordedPose)
        gravity = frame.gravity
    }
}
