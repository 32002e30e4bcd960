import Foundation
import Testing
import TestSupport
import Waymark

/// A session over colour frames alone, its camera known: the walk-through's room in front of
/// the graf1 poster (640×480, 30 fps), the camera stepping sideways (30 cm/s) while turning a
/// little, its four posters as references with their physical widths.
@Suite struct MonocularSessionTests {
    static func walk(_ folder: URL) throws -> Walkthrough {
        try Walkthrough(posterFolder: folder, width: 640, height: 480, framesPerSecond: 30).along((0..<80).map {
            Walkthrough.pose(SIMD3(-1.75 + 0.01 * Double($0), 1.42, -1.2), yaw: 3 - 0.1 * Double($0), pitch: 0)
        })
    }

    /// The map starts from the sideways step in an unknown unit; five frames that see the
    /// poster with a pose on enough tracked points fix it (a `scale_fixed` event), and the
    /// poses from then on are metric: a similarity alignment to the truth finds a scale within
    /// 1 % of 1 (1.008 when written) and leaves every pose within 2 cm (1.4). Image anchors
    /// wait for the metric world. With surfaces asked for, the wall behind the poster is found
    /// among the map's points once the world is metric: every sighting within 2° and 3 cm of
    /// the rendered wall as the camera sees it (4 sightings, worst 0.5° and 1.2 cm when written), and
    /// vertical by the gravity the frames carry (as an accelerometer gives it), which the
    /// session measures in its world: seen from every metric pose, within 1° of the camera's
    /// true down. A tap on the poster then places a named anchor within 3 cm of its wall (0.7 cm
    /// when written).
    @Test(.enabled(if: Walkthrough.debianPosterFolder != nil)) func aPosterOfKnownWidthFixesTheScale() throws {
        let walk = try Self.walk(try #require(Walkthrough.debianPosterFolder))
        var configuration = SessionConfiguration()
        configuration.coaching.goal = .tracking
        configuration.surfaces = .all
        for poster in walk.posters {
            configuration.references.append(try ReferenceImage(entry: ReferenceEntry(
                name: poster.name, path: poster.imagePath, physicalWidth: poster.physicalWidth)))
        }
        let session = try Session(configuration: configuration, input: SessionInput(
            width: walk.width, height: walk.height, hasDepth: false, intrinsics: walk.intrinsics, hasGravity: true))
        #expect(session.isMonocular && session.gravitySource == .accelerometer)
        var fixedAt: Int?
        var wallErrors: [(degrees: Double, metres: Double)] = []
        var downErrors: [Double] = []
        var lastSeen: (pose: RigidTransform, frame: Walkthrough.Frame)?
        let poster = try #require(walk.posters.first { $0.name == "graf1" })
        let wall = try #require(walk.surfaces.first { $0.id == poster.surfaceID }).plane
        var estimate: [SIMD3<Double>] = []
        var truth: [SIMD3<Double>] = []
        for frame in walk.frames {
            let rendering = walk.render(frame)
            let trueDown = frame.cameraToWorld.applyInverseRotation(SIMD3(0, -1, 0))
            let result = session.process(SessionFrame(
                timestamp: frame.timestamp, image: Image(width: walk.width, height: walk.height, channels: 3, pixels: rendering.color!),
                gravity: trueDown))
            let events = result.tracking?.events ?? []
            if events.contains(where: { if case .scaleFixed(_, "graf1") = $0 { true } else { false } }) { fixedAt = frame.index }
            let imageAnchors = result.anchorEvents.filter { if case .added(let anchor) = $0 { anchor.kind == .image } else { false } }
            if fixedAt == nil { #expect(imageAnchors.isEmpty, "frame \(frame.index): an image anchor before the scale") }
            guard fixedAt != nil, let pose = result.cameraToWorld else { continue }
            lastSeen = (pose, frame)
            let down = pose.applyInverseRotation(session.planes.options.down)
            downErrors.append(acos(min(1, (down * trueDown).sum())) * 180 / .pi)
            // The wall as this camera sees it, against each surface found among the map's points.
            let r = frame.cameraToWorld.rotation
            let n = wall.normal
            let normal = SIMD3(r[0] * n.x + r[3] * n.y + r[6] * n.z, r[1] * n.x + r[4] * n.y + r[7] * n.z,
                               r[2] * n.x + r[5] * n.y + r[8] * n.z)
            let offset = wall.offset + (n * frame.cameraToWorld.translationVector).sum()
            for (plane, anchor) in zip(result.planes, result.planeAnchorIDs) where anchor != nil {
                #expect(plane.alignment == .vertical, "frame \(frame.index): the wall found \(plane.alignment)")
                let cosine = (plane.plane.normal * normal).sum()
                let sign = cosine < 0 ? -1.0 : 1.0
                wallErrors.append((acos(min(1, abs(cosine))) * 180 / .pi, abs(sign * plane.plane.offset - offset)))
            }
            estimate.append(pose.translationVector)
            truth.append(frame.cameraToWorld.translationVector)
        }
        let fixed = try #require(fixedAt, "the scale was never fixed")
        #expect(estimate.count >= 25, "\(estimate.count) metric poses after frame \(fixed)")
        let (alignment, scale) = try alignPoints(estimate, onto: truth, withScale: true)
        let residuals = zip(estimate, truth).map { e, t in
            let d = alignment.apply(e * scale) - t
            return (d * d).sum().squareRoot()
        }
        print("scale fixed at frame \(fixed): alignment scale \(scale), worst residual \(residuals.max() ?? 0) m")
        #expect(abs(scale - 1) < 0.01)
        #expect((residuals.max() ?? 1) < 0.02)
        #expect(!wallErrors.isEmpty, "no surface anchored after the scale")
        let worst = (wallErrors.map(\.degrees).max() ?? .infinity, wallErrors.map(\.metres).max() ?? .infinity)
        print("poster wall from the map's points: \(wallErrors.count) sightings, worst \(worst.0)° and \(worst.1) m")
        #expect(worst.0 < 2 && worst.1 < 0.03)
        print("gravity measured in the world, seen from the metric poses: worst \(downErrors.max() ?? .infinity)°")
        #expect((downErrors.max() ?? .infinity) < 1)
        // A tap on the poster's middle, in the metric world, lands on the wall behind it (seen
        // from the last camera: the sideways path leaves a world alignment free to turn about it).
        let (lastPose, lastFrame) = try #require(lastSeen)
        let graf = try #require(walk.posterHomographies(lastFrame)["graf1"])
        let reference = try #require(configuration.references.first { $0.name == "graf1" })
        let middle = try #require(graf.apply(Point2(Double(reference.width) / 2, Double(reference.height) / 2)))
        let placed = try #require(session.place("frame", pixel: SIMD2(middle.x, middle.y)))
        let seen = lastPose.applyInverse(placed.transform.translationVector)
        let inRoom = lastFrame.cameraToWorld.apply(seen)
        print("placed on the poster's wall: \(abs(wall.signedDistance(to: inRoom))) m from it")
        #expect(abs(wall.signedDistance(to: inRoom)) < 0.03)
    }

    /// Without a poster, the camera's known height above the floor fixes the scale: the
    /// walk-through's scan (its first 5 s), the camera held 1.5 m up (1.45–1.5 m in the truth),
    /// gravity estimated from the map's planes (adopted from a map of 10 keyframes on, never
    /// before). Once five keyframes agree on the floor, the poses are metric: a similarity
    /// alignment to the truth finds a scale within 15 % of 1 (when
    /// written: fixed at frame 81, 12 % off; since the scene's gravity waits for 10 keyframes,
    /// frame 102 and 10.5 % off; since the floor comes from points of 3° parallax or more,
    /// frame 108 and 12.5 % off over the 42 frames after it; the harness's run of the whole
    /// scan read from the PNGs as gray is fixed at frame 108 too, its metric ATE 1.19 cm).
    /// Less sure than a sized poster (1 %).
    @Test(.enabled(if: Walkthrough.debianPosterFolder != nil)) func theCamerasHeightFixesTheScale() throws {
        let walk = try Walkthrough(posterFolder: try #require(Walkthrough.debianPosterFolder), width: 640, height: 480,
                                   framesPerSecond: 30)
        let scan = walk.along(walk.frames.prefix { $0.segment == .scan }.prefix(150).map(\.cameraToWorld))
        var configuration = SessionConfiguration()
        configuration.coaching.goal = .tracking
        configuration.cameraHeight = 1.5
        let session = try Session(configuration: configuration, input: SessionInput(
            width: scan.width, height: scan.height, hasDepth: false, intrinsics: scan.intrinsics))
        #expect(session.gravitySource == .estimated)
        var fixedAt: Int?
        var estimate: [SIMD3<Double>] = []
        var truth: [SIMD3<Double>] = []
        let assumedDown = session.planes.options.down
        var gravityAdopted = false
        for frame in scan.frames {
            let rendering = scan.render(frame)
            let result = session.process(SessionFrame(
                timestamp: frame.timestamp, image: Image(width: scan.width, height: scan.height, channels: 3, pixels: rendering.color!)))
            // The scene's gravity waits for a map of 10 keyframes: a younger one's planes are too noisy.
            if !gravityAdopted, session.planes.options.down != assumedDown {
                gravityAdopted = true
                let keyframes = session.worldMap?.keyframes.count ?? 0
                #expect(keyframes >= 10, "gravity adopted at frame \(frame.index) from \(keyframes) keyframes")
            }
            for case .scaleFixed(_, let reference) in result.tracking?.events ?? [] {
                #expect(reference == Session.cameraHeightReference)
                fixedAt = frame.index
            }
            guard fixedAt != nil, let pose = result.cameraToWorld else { continue }
            estimate.append(pose.translationVector)
            truth.append(frame.cameraToWorld.translationVector)
        }
        #expect(gravityAdopted, "the scene's gravity was never adopted")
        let fixed = try #require(fixedAt, "the camera's height never fixed the scale")
        #expect(estimate.count >= 20, "\(estimate.count) metric poses after frame \(fixed)")
        let (_, scale) = try alignPoints(estimate, onto: truth, withScale: true)
        print("scale fixed by the camera's height at frame \(fixed): alignment scale \(scale)")
        #expect(abs(scale - 1) < 0.15)
    }

    /// A metric map from a single camera comes back on a poster as a depth map does: the walk
    /// above, its map's own relocalization refused (so that only the poster can bring it back),
    /// interrupted after frame 59 once graf1 is an image anchor; frame 62, which sees graf1, is
    /// relocalized on it, its pose within 5 cm and 2° of where the camera truly moved from the
    /// last pose before the gap (1.0 cm and 0.3° when written), and the frames after it are
    /// tracked against the map again.
    @Test(.enabled(if: Walkthrough.debianPosterFolder != nil)) func aPosterBringsAMetricMapBack() throws {
        let walk = try Self.walk(try #require(Walkthrough.debianPosterFolder))
        var configuration = SessionConfiguration()
        configuration.coaching.goal = .tracking
        configuration.monocularTracking.relocalization.minimumInliers = .max
        for poster in walk.posters {
            configuration.references.append(try ReferenceImage(entry: ReferenceEntry(
                name: poster.name, path: poster.imagePath, physicalWidth: poster.physicalWidth)))
        }
        let session = try Session(configuration: configuration, input: SessionInput(
            width: walk.width, height: walk.height, hasDepth: false, intrinsics: walk.intrinsics, hasGravity: false))
        func process(_ frame: Walkthrough.Frame) -> FrameResult {
            session.process(SessionFrame(timestamp: frame.timestamp, image: Image(
                width: walk.width, height: walk.height, channels: 3, pixels: walk.render(frame).color!)))
        }
        var anchored = false
        var before: RigidTransform?
        for frame in walk.frames.prefix(60) {
            let result = process(frame)
            anchored = anchored || result.anchorEvents.contains { if case .added(let a) = $0 { a.kind == .image } else { false } }
            before = result.cameraToWorld
        }
        #expect(anchored, "no image anchor by frame 59")
        let lastPose = try #require(before, "no pose at frame 59")
        _ = session.pause()
        let back = process(walk.frames[62])
        let events = back.tracking?.events ?? []
        #expect(events.contains { if case .relocalizedOnAnchor = $0 { true } else { false } }, "\(events)")
        let pose = try #require(back.cameraToWorld, "frame 62 has no pose")
        let moved = walk.frames[59].cameraToWorld.inverse * walk.frames[62].cameraToWorld
        let error = pose.difference(to: lastPose * moved)
        print("relocalized on the poster: \(error)")
        #expect(error.translation < 0.05 && error.rotationDegrees < 2)
        let after = walk.frames[63..<70].map { process($0) }
        #expect(after.allSatisfy { $0.cameraToWorld != nil && $0.tracking?.poseSource == .localMap },
                "\(after.map { $0.tracking?.poseSource.map { "\($0)" } ?? "none" })")
    }
}
