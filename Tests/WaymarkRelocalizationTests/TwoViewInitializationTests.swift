import Foundation
import Testing
import WaymarkCore
import TestSupport
import WaymarkRelocalization
import WaymarkVision

/// Two views of exact synthetic scenes, the pixels with 0.5 px of noise and a fifth of the
/// matches wrong: the relative pose comes back, and the points up to scale.
@Suite struct TwoViewInitializationTests {
    static let intrinsics = Intrinsics(fx: 525, fy: 525, cx: 320, cy: 240)

    /// A camera 25 cm to the right of the first and 5 cm forward, turned 4° towards the
    /// scene's middle, as a person starting a session moves sideways (first → second).
    static let sideways: RigidTransform = {
        let angle = -4 * Double.pi / 180
        let rotation = [cos(angle), 0, sin(angle), 0, 1, 0, -sin(angle), 0, cos(angle)]
        let centre = SIMD3<Double>(0.25, 0, 0.05)
        let turned = RigidTransform(rotation: rotation, translation: [0, 0, 0])
        let t = -turned.apply(centre)
        return RigidTransform(rotation: rotation, translation: [t.x, t.y, t.z])
    }()

    enum Scene { case depth, floor, floorWithObjects }

    /// 400 scene points: spread through a box 3–6 m deep; or on a floor 1.5 m below a camera
    /// looking 30° down at it, 1.5–4 m ahead (a person starting a session), alone or with two in
    /// five of the points on boxes standing on it.
    static func scene(_ kind: Scene, seed: UInt64) -> [SIMD3<Double>] {
        var random = SeededGenerator(seed: seed)
        let pitch = 30 * Double.pi / 180
        return (0..<400).map { k in
            switch kind {
            case .depth:
                return SIMD3(Double.random(in: -1.6...1.6, using: &random), Double.random(in: -1.2...1.2, using: &random),
                             Double.random(in: 3...6, using: &random))
            case .floor, .floorWithObjects:
                let x = Double.random(in: -1.5...1.5, using: &random)
                let ahead = Double.random(in: 1.5...4, using: &random)
                let height = kind == .floorWithObjects && k % 5 < 2 ? Double.random(in: 0.2...0.8, using: &random) : 0
                let below = 1.5 - height
                // Level coordinates (y down, z ahead) turned into the pitched camera's.
                return SIMD3(x, below * cos(pitch) - ahead * sin(pitch), below * sin(pitch) + ahead * cos(pitch))
            }
        }
    }

    struct Views {
        var first: [Point2] = []
        var second: [Point2] = []
        /// The scene point of each match; nil for a wrong match.
        var truth: [SIMD3<Double>?] = []
    }

    /// Each point seen by both cameras, with noise, and one wrong match for every four right ones.
    static func views(of scene: [SIMD3<Double>], secondFromFirst: RigidTransform, seed: UInt64) -> Views {
        var random = SeededGenerator(seed: seed)
        var views = Views()
        func noisy(_ p: Point2) -> Point2 { Point2(p.x + 0.5 * random.nextGaussian(), p.y + 0.5 * random.nextGaussian()) }
        for point in scene {
            guard let a = intrinsics.pixel(seeing: point, width: 640, height: 480),
                let b = intrinsics.pixel(seeing: secondFromFirst.apply(point), width: 640, height: 480)
            else { continue }
            views.first.append(noisy(a))
            views.second.append(noisy(b))
            views.truth.append(point)
        }
        for _ in 0..<(views.first.count / 4) {
            views.first.append(Point2(Double.random(in: 0..<640, using: &random), Double.random(in: 0..<480, using: &random)))
            views.second.append(Point2(Double.random(in: 0..<640, using: &random), Double.random(in: 0..<480, using: &random)))
            views.truth.append(nil)
        }
        return views
    }

    /// The estimate against the truth: rotation error and translation direction error (degrees),
    /// and the median relative error of the points once scaled by the truth's median depth.
    static func errors(_ found: TwoViewInitialization, _ views: Views, truth: RigidTransform)
        -> (rotation: Double, direction: Double, points: Double, wrongPlaced: Int)
    {
        let rotation = RigidTransform(rotation: found.secondFromFirst.rotation, translation: [0, 0, 0])
            .difference(to: RigidTransform(rotation: truth.rotation, translation: [0, 0, 0])).rotationDegrees
        let (a, b) = (found.secondFromFirst.translationVector, truth.translationVector)
        let cosine = (a * b).sum() / ((a * a).sum() * (b * b).sum()).squareRoot()
        let direction = acos(min(1, cosine)) * 180 / .pi
        let placedTruth = found.points.compactMap { views.truth[$0.match] }
        let depths = placedTruth.map(\.z).sorted()
        let scale = depths[depths.count / 2]
        let relative = zip(found.points.filter { views.truth[$0.match] != nil }, placedTruth).map { placed, point in
            let d = placed.position * scale - point
            return (d * d).sum().squareRoot() / (point * point).sum().squareRoot()
        }.sorted()
        return (rotation, direction, relative[relative.count / 2], found.points.count - placedTruth.count)
    }

    static let seeds: [UInt64] = Array(1...40)

    /// The errors over forty draws of the scene and its noise (each seed its own scene).
    static func trials(_ kind: Scene) throws -> [(model: TwoViewInitialization.Model, rotation: Double, direction: Double,
                                                   points: Double, wrongShare: Double)]
    {
        try seeds.map { seed in
            let views = Self.views(of: Self.scene(kind, seed: seed), secondFromFirst: Self.sideways, seed: seed + 100)
            let found = try TwoViewInitialization.estimate(from: views.first, to: views.second, intrinsics: Self.intrinsics).get()
            let e = Self.errors(found, views, truth: Self.sideways)
            // The scale is the one stated: the points' median depth in the first camera is 1.
            let depths = found.points.map(\.position.z).sorted()
            #expect(abs(depths[depths.count / 2] - 1) < 1e-9)
            return (found.model, e.rotation, e.direction, e.points, Double(e.wrongPlaced) / Double(found.points.count))
        }
    }

    /// Tolerances for 0.5 px of noise over a 25 cm step at 1.5–6 m: a turn about the vertical
    /// and a step forward both move points nearly along the epipolar lines of a sideways step,
    /// so two views pin them down least (ORB-SLAM refines them with the frames that follow).
    static func expectAccurate(_ trials: [(model: TwoViewInitialization.Model, rotation: Double, direction: Double,
                                           points: Double, wrongShare: Double)])
    {
        let directions = trials.map(\.direction).sorted()
        let rotations = trials.map(\.rotation).sorted()
        #expect(rotations.last! < 0.75 && rotations[rotations.count / 2] < 0.25, "rotation errors \(rotations)°")
        #expect(directions.last! < 8 && directions[directions.count / 2] < 1, "direction errors \(directions)°")
        #expect(trials.allSatisfy { $0.points < 0.04 }, "point errors \(trials.map(\.points))")
        // A wrong match that happens to lie along its epipolar line is placed; few do.
        #expect(trials.allSatisfy { $0.wrongShare < 0.01 }, "wrong matches placed \(trials.map(\.wrongShare))")
    }

    @Test func aSceneWithDepthGivesTheEssentialMatrixsMotionAndItsPointsUpToScale() throws {
        let trials = try Self.trials(.depth)
        #expect(trials.allSatisfy { $0.model == .essential })
        Self.expectAccurate(trials)
    }

    /// A floor with things standing on it: mostly one plane, but the motion is the scene's.
    @Test func aFloorWithObjectsGivesTheMotion() throws {
        Self.expectAccurate(try Self.trials(.floorWithObjects))
    }

    /// Two views of one plane fit two motions (the homography's two decompositions that keep
    /// the plane in front of both cameras); where noise does not set them apart the views are
    /// refused as ambiguous, as ORB-SLAM does, and where it does, the motion is the right one.
    @Test func aBareFloorIsRefusedOrRight() {
        for seed in Self.seeds {
            let views = Self.views(of: Self.scene(.floor, seed: seed), secondFromFirst: Self.sideways, seed: seed + 100)
            switch TwoViewInitialization.estimate(from: views.first, to: views.second, intrinsics: Self.intrinsics) {
            case .failure(let refusal): #expect(refusal == .ambiguous)
            case .success(let found):
                let e = Self.errors(found, views, truth: Self.sideways)
                #expect(e.rotation < 0.5 && e.direction < 5, "seed \(seed): \(e)")
            }
        }
    }

    /// A camera that only turns has no parallax: no map can start, whatever the model.
    @Test func aTurnWithoutMovingIsRefused() {
        let turn = RigidTransform(rotation: Self.sideways.rotation, translation: [0, 0, 0])
        for seed in Self.seeds {
            let views = Self.views(of: Self.scene(.depth, seed: seed), secondFromFirst: turn, seed: seed + 100)
            switch TwoViewInitialization.estimate(from: views.first, to: views.second, intrinsics: Self.intrinsics) {
            case .success(let found): Issue.record("a pure turn started a map: \(found.model), \(found.medianParallaxDegrees)°")
            case .failure(.tooLittleParallax), .failure(.tooFewPoints), .failure(.ambiguous): break
            case .failure(let refusal): Issue.record("refused for the wrong reason: \(refusal)")
            }
        }
    }

    @Test func tooFewMatchesAreRefusedBeforeAnyModel() {
        let views = Self.views(of: Array(Self.scene(.depth, seed: 9).prefix(60)), secondFromFirst: Self.sideways, seed: 10)
        let result = TwoViewInitialization.estimate(from: views.first, to: views.second, intrinsics: Self.intrinsics)
        #expect(result == .failure(.tooFewMatches(views.first.count)))
    }
}

/// Two rendered frames of the synthetic walk-through, ORB features matched between them: the
/// relative pose comes back from the pixels as a phone's first two keyframes would give it.
@Suite struct TwoViewInitializationOnRenderedFramesTests {
    @Test(.enabled(if: Walkthrough.debianPosterFolder != nil))
    func twoFramesOfTheScanGiveTheirRelativePose() throws {
        let walk = try Walkthrough(posterFolder: Walkthrough.debianPosterFolder!)
        let scan = walk.frames.filter { $0.segment == .scan }
        let first = scan[0]
        // The first frame of the scan at least 20 cm from the first: a sideways start.
        let second = try #require(scan.first { $0.cameraToWorld.difference(to: first.cameraToWorld).translation >= 0.2 })
        let features = [first, second].map { frame in
            let image = Image(width: walk.width, height: walk.height, channels: 3, pixels: walk.render(frame).color!)
            return FeatureSet(detectingIn: image.gray(), options: FeatureOptions(maxFeatures: 2000))
        }
        let matches = DescriptorIndex(sets: [features[1]], search: .exact).match(features[0], ratio: 0.8, maxDistance: 64)
        let found = try TwoViewInitialization.estimate(
            from: matches.map { features[0].keypoints[$0.query].location },
            to: matches.map { features[1].keypoints[$0.train].location }, intrinsics: walk.intrinsics).get()
        let truth = second.cameraToWorld.inverse * first.cameraToWorld
        let rotation = RigidTransform(rotation: found.secondFromFirst.rotation, translation: [0, 0, 0])
            .difference(to: RigidTransform(rotation: truth.rotation, translation: [0, 0, 0])).rotationDegrees
        let (a, b) = (found.secondFromFirst.translationVector, truth.translationVector)
        let direction = acos(min(1, (a * b).sum() / ((a * a).sum() * (b * b).sum()).squareRoot())) * 180 / .pi
        #expect(rotation < 0.5, "rotation off by \(rotation)°")
        #expect(direction < 5, "direction of travel off by \(direction)°")
        #expect(found.points.count >= 100)
    }
}
