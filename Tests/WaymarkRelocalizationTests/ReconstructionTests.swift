import Foundation
import TestData
import Testing
import WaymarkCore
import WaymarkRelocalization
import WaymarkVision

@Suite struct ReconstructionTests {
    static let intrinsics = Intrinsics(fx: 525, fy: 525, cx: 320, cy: 240)
    static let (width, height) = (640, 480)

    /// Six cameras 15 cm apart, each turned 3° further about the vertical.
    static let poses = (0..<6).map { k in
        let angle = Double(k) * 3 * .pi / 180
        return RigidTransform(rotation: [cos(angle), 0, sin(angle), 0, 1, 0, -sin(angle), 0, cos(angle)],
                              translation: [0.15 * Double(k), 0.02 * Double(k), 0.03 * Double(k)])
    }

    /// 500 points 2–4 m in front of the first camera, each at its own pixel of it (none closer
    /// than 4 pixels to another, so each has its own 3×3 patch of depth).
    static let points: [SIMD3<Double>] = {
        var random = SeededGenerator(seed: 21)
        var taken = Set<SIMD2<Int>>()
        var points: [SIMD3<Double>] = []
        while points.count < 500 {
            let pixel = Point2(Double.random(in: 40...600, using: &random), Double.random(in: 40...440, using: &random))
            guard taken.insert(SIMD2(Int(pixel.x) / 4, Int(pixel.y) / 4)).inserted else { continue }
            let z = Double.random(in: 2...4, using: &random)
            points.append(SIMD3((pixel.x - intrinsics.cx) / intrinsics.fx * z, (pixel.y - intrinsics.cy) / intrinsics.fy * z, z))
        }
        return points
    }()

    /// Each point's descriptor, random and the same in every view.
    static func descriptors(seed: UInt64, count: Int) -> [[UInt8]] {
        var random = SeededGenerator(seed: seed)
        return (0..<count).map { _ in (0..<FeatureSet.descriptorBytes).map { _ in UInt8.random(in: 0...255, using: &random) } }
    }

    /// The exact pixels of the points a camera at `pose` sees inside the image.
    static func view(_ pose: RigidTransform, descriptors: [[UInt8]]) -> FeatureSet {
        var keypoints: [Keypoint] = []
        var bytes: [UInt8] = []
        for (point, descriptor) in zip(points, descriptors) {
            guard let pixel = intrinsics.pixel(seeing: pose.applyInverse(point), width: width, height: height) else { continue }
            keypoints.append(Keypoint(location: pixel, size: 31, angle: 0, response: 1, octave: 0))
            bytes += descriptor
        }
        return FeatureSet(keypoints: keypoints, descriptors: bytes)
    }

    /// The first camera's depth: each point's over the 3×3 pixels around it, 0 elsewhere.
    static var firstDepth: [Float] {
        var depth = [Float](repeating: 0, count: width * height)
        for point in points {
            let pixel = intrinsics.project(point)
            for dy in -1...1 {
                for dx in -1...1 { depth[(Int(pixel.y) + dy) * width + Int(pixel.x) + dx] = Float(point.z) }
            }
        }
        return depth
    }

    /// Exact pixels and one exact depth map: every camera joins at its true pose and every
    /// point is placed where it is (the depth is 32-bit: ~0.2 µm at 4 m); a view of other
    /// points (descriptors unlike any in the scene) joins nothing.
    @Test func exactViewsRecoverTheirExactPoses() throws {
        let descriptors = Self.descriptors(seed: 5, count: Self.points.count)
        let elsewhere = Self.view(Self.poses[2], descriptors: Self.descriptors(seed: 6, count: Self.points.count))
        let features = Self.poses.map { Self.view($0, descriptors: descriptors) } + [elsewhere]
        let reconstruction = Reconstruction(features: features, timestamps: features.indices.map(Double.init), width: Self.width,
                                            height: Self.height, firstDepth: Self.firstDepth, intrinsics: Self.intrinsics)
        #expect(try reconstruction.joinAll() == 6)
        #expect(reconstruction.poses[6] == nil)
        for (k, truth) in Self.poses.enumerated() {
            let error = try #require(reconstruction.poses[k]).difference(to: truth)
            #expect(error.translation < 1e-5 && error.rotationDegrees < 1e-4, "camera \(k): \(error)")
        }
        for keyframe in reconstruction.keyframes() {
            let largest = keyframe.points.map { point in
                Self.points.map { (($0 - point) * ($0 - point)).sum() }.min()!.squareRoot()
            }.max()!
            #expect(largest < 1e-5, "keyframe \(keyframe.id): a point \(largest) m off")
        }
    }

    /// The 17 TUM fr3 office frames (about 1 s apart, a camera carried around two desks; depth
    /// for the first only) all join, and the steps between them average what TUM publishes for
    /// the sequence (0.249 m/s; the scale comes from the first frame's depth alone) within 0.1 m.
    @Test(.enabled(if: SharedDatasets.has("tum_fr3_office_frames/rgb", "open3d_testdata_rgbd/RGBD/other_formats/TUM_depth.png")))
    func theOfficeFramesAllJoinAtTheSequencesPace() throws {
        let folder = try #require(SharedDatasets.path("tum_fr3_office_frames/rgb"))
        let files = try FileManager.default.contentsOfDirectory(atPath: folder).filter { $0.hasSuffix(".png") }.sorted()
        let depth = try DepthImage(contentsOf: try #require(SharedDatasets.path("open3d_testdata_rgbd/RGBD/other_formats/TUM_depth.png")),
                                   scale: 0.0002)
        let features = try files.map {
            FeatureSet(detectingIn: try Image(contentsOf: "\(folder)/\($0)", gray: true), options: TriangulationOptions.defaultFeatures)
        }
        let timestamps = files.map { Double($0.dropLast(4))! }
        let reconstruction = Reconstruction(features: features, timestamps: timestamps, width: depth.width, height: depth.height,
                                            firstDepth: depth.metres, intrinsics: Intrinsics(fx: 535.4, fy: 539.2, cx: 320.6, cy: 248.1))
        #expect(try reconstruction.joinAll() == 17)
        let centres = reconstruction.poses.compactMap { $0?.translationVector }
        let path = zip(centres, centres.dropFirst()).map { (($1 - $0) * ($1 - $0)).sum().squareRoot() }.reduce(0, +)
        let speed = path / (timestamps.last! - timestamps.first!)
        #expect(abs(speed - 0.249) < 0.1, "\(speed) m/s")
    }
}
