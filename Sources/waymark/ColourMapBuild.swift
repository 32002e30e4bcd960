import Waymark

/// `map build` over a colour sequence with poses and no depth: keyframes whose features'
/// positions are triangulated between posed views (`Keyframe.triangulating`).
enum ColourMapBuild {
    /// A view is kept when every kept view is at least this far from it, metres or degrees:
    /// close enough for its nearest views to share its features, far enough for their rays to
    /// meet at an angle.
    static let spacingMetres = 0.05
    static let spacingDegrees = 5.0

    struct Outcome {
        var map: WorldMap
        var frames = 0
        var framesUsed = 0
        var framesWithErrors = 0
        var firstError: WaymarkError?
    }

    static func build(_ source: any FrameSource, intrinsics: Intrinsics) throws(WaymarkError) -> Outcome {
        var outcome = Outcome(map: WorldMap())
        var views: [PosedView] = []
        while let frame = try source.next() {
            outcome.frames += 1
            if let error = frame.error {
                outcome.framesWithErrors += 1
                outcome.firstError = outcome.firstError ?? error
                continue
            }
            guard let gray = frame.gray, let pose = frame.recordedPose else { continue }
            outcome.framesUsed += 1
            let near = views.contains {
                let d = $0.cameraToWorld.difference(to: pose)
                return d.translation < spacingMetres && d.rotationDegrees < spacingDegrees
            }
            if !near { views.append(PosedView(timestamp: frame.timestamp, gray: gray, cameraToWorld: pose, intrinsics: intrinsics)) }
        }
        outcome.map = WorldMap(keyframes: Keyframe.triangulating(views).filter { !$0.points.isEmpty })
        return outcome
    }
}
