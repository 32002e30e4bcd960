extension PlaneDetectionOptions {
    /// Surfaces among a monocular map's points: a few hundred triangulated corners, metres
    /// apart on a plain floor, placed to a centimetre or two. A plane needs 40 of them, within
    /// 2 cm (+0.5 % of the squared distance) of it, linked by steps under 40 cm.
    public static let sparse: PlaneDetectionOptions = {
        var options = PlaneDetectionOptions()
        options.tolerance = DistanceTolerance(base: 0.01, perSquareMetre: 0.0025)
        options.minimumPoints = 60
        options.minimumShare = 0.05
        options.neighbourDistance = 0.4
        options.maximumPlanes = 8
        return options
    }()
}

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
