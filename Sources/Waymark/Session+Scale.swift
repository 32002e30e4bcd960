extension Session {
    /// Frames whose measures of the scale are pooled before it is fixed: one frame's measure
    /// rests on one estimate of the image's pose.
    static let scaleSamples = 5

    /// A world tracked from images alone becomes metric once reference images of known width
    /// have been seen with a pose, on enough tracked map points, in `scaleSamples` frames: each
    /// frame measures the image's plane, in metres, against those points' depths, and the
    /// median of the frames' measures fixes the scale. Returns the factor and the last
    /// measure's reference.
    func fixScale(_ tracker: MonocularTracker, on detections: [ImageDetection]) -> (metresPerUnit: Double, reference: String)? {
        guard !tracker.isMetric else { return nil }
        for detection in detections where Self.isPlaceable(detection) && imageExtents[detection.name] != nil {
            guard let pose = detection.pose, let toReference = detection.homography.inverse,
                let reference = configuration.references.first(where: { $0.name == detection.name })
            else { continue }
            let normal = pose.applyRotation(SIMD3(0, 0, 1))
            let (width, height) = (Double(reference.width), Double(reference.height))
            let found = tracker.metresPerUnit(planeNormal: normal, planeOffset: (normal * pose.translationVector).sum()) { pixel in
                guard let q = toReference.apply(pixel) else { return false }
                return q.x >= 0 && q.y >= 0 && q.x <= width && q.y <= height
            }
            guard let factor = found else { continue }
            scaleMeasures.append(factor)
            guard scaleMeasures.count >= Self.scaleSamples else { return nil }
            let median = scaleMeasures.sorted()[scaleMeasures.count / 2]
            scaleMeasures = []
            tracker.fixScale(metresPerUnit: median)
            return (median, detection.name)
        }
        return nil
    }

    /// A world tracked from images alone becomes metric by the camera's known height
    /// (`cameraHeight`): on frames that added a keyframe, once gravity is known, the floor (the
    /// lowest horizontal plane facing up among all the map's points) measures the camera's
    /// height in map units; the last `scaleSamples` measures fix the scale (their median) when
    /// they agree within `heightAgreement` (a floor mistaken for another plane does not).
    func fixScale(_ tracker: MonocularTracker, byCameraHeightSeenFrom pose: RigidTransform, events: [TrackingEvent])
        -> (metresPerUnit: Double, reference: String)?
    {
        guard let height = configuration.cameraHeight, !tracker.isMetric, let detector = sparsePlaneDetector,
            events.contains(where: { if case .keyframeAdded = $0 { true } else { false } }), ensureGravity(seenFrom: pose)
        else { return nil }
        let map = tracker.map
        let down = pose.applyInverseRotation(planes.options.down)
        let floors = detector.detect(in: PointCloud(points: points(of: Array(map.keyframes.indices), in: map, seenFrom: pose)),
                                     down: down).planes.filter { $0.alignment == .horizontalUp }
        // The camera is at the origin, on the side its planes' normals face: a plane's offset is its distance.
        guard let floor = floors.max(by: { $0.plane.offset < $1.plane.offset }), floor.plane.offset > 0 else { return nil }
        heightMeasures = Array((heightMeasures + [height / floor.plane.offset]).suffix(Self.scaleSamples))
        let sorted = heightMeasures.sorted()
        guard sorted.count == Self.scaleSamples, sorted.last! <= Self.heightAgreement * sorted.first! else { return nil }
        let median = sorted[sorted.count / 2]
        heightMeasures = []
        tracker.fixScale(metresPerUnit: median)
        return (median, Self.cameraHeightReference)
    }

    /// The largest ratio between the camera-height measures that fix a scale.
    static let heightAgreement = 1.15

    /// The `reference` of a `scale_fixed` event that the camera's height fixed.
    public static let cameraHeightReference = "camera height"

    /// Whether lengths in the world are metres: always but for a world tracked from images
    /// alone before its scale is fixed.
    var isMetric: Bool { (tracker as? MonocularTracker)?.isMetric ?? true }
}
