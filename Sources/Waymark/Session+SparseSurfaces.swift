import WaymarkPlanes

extension Session {
    /// A world tracked from images alone finds its surfaces among the map's points (the
    /// newest keyframe's and its neighbours'), seen from the frame's pose, once the world is
    /// metric (tolerances are in metres) and its gravity known: on frames that added a keyframe,
    /// where the points changed. Nil otherwise.
    func sparseSurfaces(seenFrom pose: RigidTransform?, events: [TrackingEvent]) -> PlaneDetection? {
        guard let detector = sparsePlaneDetector, let tracker = tracker as? MonocularTracker, tracker.isMetric,
            let pose, events.contains(where: { if case .keyframeAdded = $0 { true } else { false } })
        else { return nil }
        let map = tracker.map
        guard let newest = map.keyframes.indices.last else { return nil }
        if !knowsGravity {
            estimateGravity(among: Array(map.keyframes.indices), of: map, seenFrom: pose, detector: detector)
            guard knowsGravity else { return nil }
        }
        let members = [newest] + map.covisible(with: newest).prefix(configuration.monocularTracking.localMap.neighbours).map(\.keyframe)
        var detection = detector.detect(in: PointCloud(points: points(of: members, in: map, seenFrom: pose)),
                                        down: pose.applyInverseRotation(planes.options.down))
        detection.planes.removeAll { !configuration.surfaces.includes($0.alignment) }
        return detection
    }

    /// Gravity from the planes among all the map's points, the camera taken as held upright
    /// (`SceneGravity`), adopted when the planes agree on one.
    private func estimateGravity(among keyframes: [Int], of map: WorldMap, seenFrom pose: RigidTransform, detector: PlaneDetector) {
        let upright = SIMD3<Double>(0, 1, 0)
        let planes = detector.detect(in: PointCloud(points: points(of: keyframes, in: map, seenFrom: pose)), down: upright).planes
        guard let down = SceneGravity.estimate(from: planes, assumed: upright) else { return }
        adoptSceneGravity(pose.applyRotation(down))
    }

    /// The points of `keyframes`, each once, in the coordinates of the camera at `pose`.
    private func points(of keyframes: [Int], in map: WorldMap, seenFrom pose: RigidTransform) -> [SIMD3<Float>] {
        var seen = Set<SIMD3<Double>>()
        var points: [SIMD3<Float>] = []
        for k in keyframes {
            for point in map.keyframes[k].points where seen.insert(point).inserted {
                points.append(SIMD3<Float>(pose.applyInverse(point)))
            }
        }
        return points
    }
}
