import WaymarkPlanes

extension Session {
    /// A world tracked from images alone finds its surfaces among the map's points (the
    /// newest keyframe's and its neighbours'), seen from the frame's pose, once the world is
    /// metric (tolerances are in metres) and its gravity known: on frames that added a keyframe,
    /// where the points changed. Nil otherwise.
    func sparseSurfaces(seenFrom pose: RigidTransform?, events: [TrackingEvent]) -> PlaneDetection? {
        guard let detector = sparseSurfaceDetector, let tracker = tracker as? MonocularTracker,
            tracker.isMetric,
            let pose, events.contains(where: { if case .keyframeAdded = $0 { true } else { false } })
        else { return nil }
        let map = tracker.map
        guard let newest = map.keyframes.indices.last else { return nil }
        guard ensureGravity(seenFrom: pose) else { return nil }
        let members = [newest] + map.covisible(with: newest).prefix(configuration.monocularTracking.localMap.neighbours).map(\.keyframe)
        var detection = detector.detect(in: PointCloud(points: points(of: members, in: map, seenFrom: pose)),
                                        down: pose.applyInverseRotation(planes.options.down))
        detection.planes.removeAll { !configuration.surfaces.includes($0.alignment) || $0.isSeenEdgeOn }
        return detection
    }

    /// Whether the world's gravity is known, after trying to estimate it from the scene where it
    /// is awaited: the planes among all the map's points, the camera taken as held upright
    /// (`SceneGravity`), adopted when the planes agree on one in a map of
    /// `sceneGravityKeyframes` keyframes or more. Only the points two keyframes or more still
    /// hold: a point whose other keyframe was culled has no second view to pin its depth, and
    /// without the others the scene's gravity came 0.4° nearer the truth on seed 2's scan and 2.5° on
    /// the coaching walk-through, the same on the scan (Benchmarks/RESULTS.md).
    func ensureGravity(seenFrom pose: RigidTransform) -> Bool {
        guard !knowsGravity, let detector = sparsePlaneDetector, let map = tracker?.map,
            map.keyframes.count >= Self.sceneGravityKeyframes
        else { return knowsGravity }
        let upright = SIMD3<Double>(0, 1, 0)
        let held = points(of: Array(map.keyframes.indices), in: map, seenFrom: pose, heldBy: 2)
        let planes = detector.detect(in: PointCloud(points: held), down: upright).planes
        if let down = SceneGravity.estimate(from: planes, assumed: upright) { adoptSceneGravity(pose.applyRotation(down)) }
        return knowsGravity
    }

    /// A young map's planes are too few and too noisy to tell gravity by: estimated at every
    /// keyframe of the walk-through's scans (Benchmarks/RESULTS.md), gravity was 1.8–7.4° off
    /// (once 38°) from maps of 5–7 keyframes, where the scene's gravity used to be adopted,
    /// 0.3–3.9° from 10 to 16 keyframes and within 1.3° from 20 on. ORB-SLAM3 waits for 10
    /// keyframes before it initializes its inertial gravity; 20 would delay the first surfaces
    /// further.
    static let sceneGravityKeyframes = 10

    /// The points of `keyframes` that `holders` keyframes or more hold, each once, in the
    /// coordinates of the camera at `pose`.
    func points(of keyframes: [Int], in map: WorldMap, seenFrom pose: RigidTransform, heldBy holders: Int = 1) -> [SIMD3<Float>] {
        var seen = Set<SIMD3<Double>>()
        var points: [SIMD3<Float>] = []
        for k in keyframes {
            for point in map.keyframes[k].points where seen.insert(point).inserted && map.holders(of: point).count >= holders {
                points.append(SIMD3<Float>(pose.applyInverse(point)))
            }
        }
        return points
    }
}
