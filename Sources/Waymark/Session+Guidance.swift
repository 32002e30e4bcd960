import Foundation

/// The signals coaching decides from, measured on each frame.
extension Session {
    func signals(_ frame: SessionFrame, measured: FrameMeasurement, light: LightEstimate, tracking: TrackingUpdate?,
                 detections: [ImageDetection]) -> GuidanceSignals
    {
        let seen = detections.filter { $0.state != .lost }
        let regionSharpness = meter.sharpness(in: seen.map { Self.boundingBox($0.corners) })
        let elapsed = lastTimestamp.map { frame.timestamp - $0 }
        // Motion is measured only between consecutive frames, not across a gap.
        let step = elapsed.flatMap { $0 > 0 && $0 <= configuration.tracking.gap ? $0 : nil }
        var signals = GuidanceSignals(
            timestamp: frame.timestamp, tracking: tracking?.state, featureCount: measured.cornerCount,
            featureSpread: measured.cornerSpread, ambientIntensity: light.ambientIntensity,
            sharpness: measured.sharpness)
        signals.directionality = measured.directionality
        signals.tracksFromImagesAlone = isMonocular
        if let step, let motion = measured.motion {
            signals.imageMotion = (motion * motion).sum().squareRoot() / Double(input.width) / step
        }
        if let step, let pose = tracking?.cameraToWorld, let last = lastPose {
            let change = pose.difference(to: last)
            // A world of unknown scale has no speed in metres; the view's motion stands in.
            if isMetric { signals.cameraSpeed = change.translation / step }
            signals.turnRate = change.rotationDegrees / step
        }
        let surfaces = planes.anchors.map(\.surface.alignment)
        signals.horizontalSurfaces = surfaces.filter(SurfaceKinds.horizontal.includes).count
        signals.verticalSurfaces = surfaces.filter(SurfaceKinds.vertical.includes).count
        signals.images = zip(seen, regionSharpness).map { detection, sharpness in
            let sharpest = max(sharpestSeen[detection.name] ?? 0, sharpness)
            sharpestSeen[detection.name] = sharpest
            return ImageInView(
                name: detection.name,
                areaFraction: PlaneOutline.area(of: detection.corners.map { SIMD2($0.x, $0.y) }) / Double(input.width * input.height),
                obliquity: detection.pose.map { obliquity(of: $0, extent: imageExtents[detection.name]) },
                sharpness: sharpest > 0 ? sharpness / sharpest : nil)
        }
        if let pose = tracking?.cameraToWorld, tracking?.state == .normal {
            signals.offscreenObject = offscreenTarget(seenFrom: pose)
        }
        if let object = configuration.objectToPlace, !planes.objects.contains(where: { $0.name == object }) {
            signals.objectToPlace = object
        }
        return signals
    }

    /// Degrees between the image's normal and the line of sight to its centre.
    private func obliquity(of pose: RigidTransform, extent: SIMD2<Double>?) -> Double {
        let r = pose.rotation
        let normal = SIMD3(r[2], r[5], r[8])
        let centre = pose.apply(SIMD3((extent?.x ?? 0) / 2, (extent?.y ?? 0) / 2, 0))
        let cosine = abs((normal * centre).sum()) / max(1e-12, (centre * centre).sum().squareRoot())
        return acos(min(1, cosine)) * 180 / .pi
    }

    /// The object to guide towards when it is out of view: the last one placed, else the last
    /// reference image anchored; nil when it is in view (or there is none).
    private func offscreenTarget(seenFrom pose: RigidTransform) -> (name: String, direction: OffscreenDirection)? {
        guard let intrinsics = input.intrinsics else { return nil }
        // Not `anchors`: building every plane anchor each frame for this would be waste.
        let placed = (registry.loaded.filter { $0.kind == .named } + registry.named).max { $0.id < $1.id }
        guard let target = placed ?? registry.images.last else { return nil }
        // An image anchor's origin is the picture's corner; its centre is half its size away.
        let centre = target.kind == .image ? SIMD3(target.extent.x / 2, target.extent.y / 2, 0) : SIMD3<Double>()
        let inCamera = pose.applyInverse(target.transform.apply(centre))
        return OffscreenDirection(cameraPoint: inCamera, intrinsics: intrinsics, width: input.width, height: input.height)
            .map { (target.name, $0) }
    }

    static func boundingBox(_ corners: [Point2]) -> SIMD4<Double> {
        let xs = corners.map(\.x), ys = corners.map(\.y)
        let (x0, y0) = (xs.min() ?? 0, ys.min() ?? 0)
        return SIMD4(x0, y0, (xs.max() ?? 0) - x0, (ys.max() ?? 0) - y0)
    }
}
