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

    /// Whether lengths in the world are metres: always but for a world tracked from images
    /// alone before its scale is fixed.
    var isMetric: Bool { (tracker as? MonocularTracker)?.isMetric ?? true }
}
