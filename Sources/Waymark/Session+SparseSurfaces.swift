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
    /// `sceneGravityKeyframes` keyframes or more.
    func ensureGravity(seenFrom pose: RigidTransform) -> Bool {
        guard !knowsGravity, let detector = sparsePlaneDetector, let map = tracker?.map,
            map.keyframes.count >= Self.sceneGravityKeyframes
        else { return knowsGravity }
        let upright = SIMD3<Double>(0, 1, 0)
        let planes = detector.detect(in: PointCloud(points: points(of: Array(map.keyframes.indices), in: map, seenFrom: pose)),
                                     down: upright).planes
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

    /// Surfaces, the scene's gravity and the floor under the camera come from the points whose
    /// rays from the keyframes that hold them meet at this many degrees or more. A point placed
    /// to a pixel (f ≈ 525) by rays meeting at θ has a depth error of about z / (f·θ): 3.6 % at
    /// 3°, 11 cm at 3 m, as wide as the sparse surfaces' tolerance there (2 cm + 1.2 %·z²); at
    /// the 1.15° a point needs to be made, three times as wide. A point one keyframe alone holds
    /// (its other view culled) has none. With 3° every anchor on both scans came within 3° and
    /// 3 cm and seed 2's stray piece of wall went, but the west wall (6–11 cm off before) is no
    /// longer found; 2° kept strays, 4° found the first floor 1–12 s later (Benchmarks/RESULTS.md).
    static let minimumParallaxDegrees = 3.0

    /// The points of `keyframes` whose depth their views pin down (`minimumParallaxDegrees`),
    /// each once, in the coordinates of the camera at `pose`.
    func points(of keyframes: [Int], in map: WorldMap, seenFrom pose: RigidTransform) -> [SIMD3<Float>] {
        var seen = Set<SIMD3<Double>>()
        var points: [SIMD3<Float>] = []
        for k in keyframes {
            for point in map.keyframes[k].points
            where seen.insert(point).inserted && map.parallaxDegrees(of: point) >= Self.minimumParallaxDegrees {
                points.append(SIMD3<Float>(pose.applyInverse(point)))
            }
        }
        return points
    }
}
