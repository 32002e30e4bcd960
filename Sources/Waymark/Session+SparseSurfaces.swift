extension Session {
    /// A world tracked from images alone finds its surfaces among the map's points (the
    /// newest keyframe's and its neighbours'), seen from the frame's pose, once the world is
    /// metric (tolerances are in metres): on frames that added a keyframe, where the points
    /// changed. Nil otherwise.
    func sparseSurfaces(seenFrom pose: RigidTransform?, events: [TrackingEvent]) -> PlaneDetection? {
        guard let detector = sparsePlaneDetector, let tracker = tracker as? MonocularTracker, tracker.isMetric,
            let pose, events.contains(where: { if case .keyframeAdded = $0 { true } else { false } })
        else { return nil }
        let map = tracker.map
        guard let newest = map.keyframes.indices.last else { return nil }
        let members = [newest] + map.covisible(with: newest).prefix(configuration.monocularTracking.localMap.neighbours).map(\.keyframe)
        var seen = Set<SIMD3<Double>>()
        var points: [SIMD3<Float>] = []
        for k in members {
            for point in map.keyframes[k].points where seen.insert(point).inserted {
                points.append(SIMD3<Float>(pose.applyInverse(point)))
            }
        }
        var detection = detector.detect(in: PointCloud(points: points), down: pose.applyInverseRotation(planes.options.down))
        detection.planes.removeAll { !configuration.surfaces.includes($0.alignment) }
        return detection
    }
}
