import Foundation
import TestData
import Testing
import TestSupport
import WaymarkCore
import WaymarkPlanes
import WaymarkVision

@Suite struct RealDepthTests {
    /// mOSD: five Kinect table-top scenes with a hand-labelled table mask each.
    static let mOSDScenes = ["learn0", "test16", "test31", "test44", "test55"]

    @Test(.enabled(if: mOSDScenes.allSatisfy {
        SharedDatasets.has("pcl_pointclouds/mOSD/\($0)_depth_mm.png", "pcl_pointclouds/mOSD/\($0)_table_mask.png")
    }))
    func tablePlaneMatchesTheMOSDMasks() throws {
        var ious: [Double] = []
        for scene in Self.mOSDScenes {
            let depthPath = try #require(SharedDatasets.path("pcl_pointclouds/mOSD/\(scene)_depth_mm.png"))
            let maskPath = try #require(SharedDatasets.path("pcl_pointclouds/mOSD/\(scene)_table_mask.png"))
            let depth = try DepthImage(contentsOf: depthPath)
            let mask = try Raster(contentsOf: maskPath).values.map { $0 > 0 }
            let found = try PlaneDetector().detect(in: depth, intrinsics: PlaneFixtures.kinect)
            let best = PlaneScores.bestMatch(for: mask, among: found.labels.map { Int($0) })
            ious.append(best.1)
            let reference = PlaneFixtures.leastSquaresNormal(depth, PlaneFixtures.kinect, mask: mask)
            let angle = PlaneFixtures.degrees(found.planes[best.0 - 1].plane.normal, reference)
            // The bound: within 1° of a least-squares fit on the mask (we measure ~0.01°).
            #expect(angle < 1, "\(scene): table normal \(angle)° from the mask's fit")
            // The table is the largest plane in every scene.
            #expect(best.0 == 1, "\(scene)")
        }
        let mean = ious.reduce(0, +) / Double(ious.count)
        // The bound: mean IoU ≥ 0.97 (we measure 0.987; one RANSAC plane at 1 cm gives 0.985).
        #expect(mean >= 0.97, "mean IoU \(mean), per scene \(ious)")
    }

    /// Venus is piecewise planar: five planes, found by an independent RANSAC in disparity
    /// space (where the ground truth is exact). SegComp: a ground-truth region is correctly
    /// detected when it and one detected region each have ≥ 80% of their pixels in common.
    @Test(.enabled(if: SharedDatasets.has(MiddleburyDepth.groundTruth("venus"))))
    func allFiveVenusPlanesAreCorrectlyDetected() throws {
        let venus = try #require(try MiddleburyDepth("venus"))
        let truth = DisparityPlanes(venus.disparity).labels
        let found = try PlaneDetector().detect(in: venus.depth, intrinsics: venus.intrinsics)
        #expect(truth.max() == 5)
        let correct = PlaneScores.correctDetections(truth: truth, detected: found.labels.map { Int($0) }, overlap: 0.8)
        #expect(correct == 5)
    }

    /// PCL's own unit test (test_sample_consensus_plane_models.cpp): RANSAC at 0.03 finds more
    /// than 2000 inliers and coefficients a/d, b/d, c/d within 0.1 of (-0.8964, -0.5868, -1.208).
    @Test(.enabled(if: SharedDatasets.has("pcl_pointclouds/sac_plane_test.pcd"))) func pclPlaneOracleOnSacPlaneTest() throws {
        let path = try #require(SharedDatasets.path("pcl_pointclouds/sac_plane_test.pcd"))
        let cloud = try PointCloud(contentsOf: path)
        #expect(cloud.points.count == 3283)
        var options = PlaneDetectionOptions()
        options.tolerance = DistanceTolerance(base: 0.03)
        let found = try PlaneDetector(options: options).detect(in: cloud)
        let plane = try #require(found.planes.first)
        #expect(plane.inlierCount > 2000)
        let d = plane.plane.offset
        let coefficients = plane.plane.normal / d
        let expected = SIMD3(-0.8964, -0.5868, -1.208)
        for axis in 0..<3 {
            #expect(abs(coefficients[axis] - expected[axis]) < 0.1, "\(coefficients)")
        }
    }

    /// The organized PCD clouds give the same planes as their depth images (the clouds are the
    /// depth images' points), so the binary_compressed decoder and the back-projection agree.
    @Test(.enabled(if: SharedDatasets.has("pcl_pointclouds/mOSD/learn0.pcd", "pcl_pointclouds/mOSD/learn0_depth_mm.png")))
    func organizedCloudAndItsDepthImageGiveTheSameTable() throws {
        let cloudPath = try #require(SharedDatasets.path("pcl_pointclouds/mOSD/learn0.pcd"))
        let depthPath = try #require(SharedDatasets.path("pcl_pointclouds/mOSD/learn0_depth_mm.png"))
        let cloud = try PointCloud(contentsOf: cloudPath)
        #expect(cloud.width == 640 && cloud.height == 480)
        let depth = try DepthImage(contentsOf: depthPath)
        // Depth PNG = round(z in mm) of the cloud: within half a millimetre, same pixels valid.
        var worst: Float = 0
        var mismatched = 0
        for i in cloud.points.indices {
            let z = cloud.points[i].z
            if z.isFinite != (depth.metres[i] > 0) { mismatched += 1 } else if z.isFinite {
                worst = max(worst, abs(z - depth.metres[i]))
            }
        }
        #expect(mismatched == 0)
        #expect(worst <= 0.0005 + 1e-6)
        let fromCloud = try PlaneDetector().detect(in: cloud)
        let fromDepth = try PlaneDetector().detect(in: depth, intrinsics: PlaneFixtures.kinect)
        let a = try #require(fromCloud.planes.first)
        let b = try #require(fromDepth.planes.first)
        // Tolerances: millimetre rounding of the depth image.
        #expect(PlaneFixtures.degrees(a.plane.normal, b.plane.normal) < 0.1)
        #expect(abs(a.plane.offset - b.plane.offset) < 0.002)
        #expect(abs(Double(a.inlierCount - b.inlierCount)) < 0.01 * Double(a.inlierCount))
    }

    /// TUM fr3 depth (1/5000 m): the floor-and-desk office frame has a large plane, and every
    /// plane is a valid fit: unit normal facing the camera, inliers within tolerance.
    @Test(.enabled(if: SharedDatasets.has("open3d_testdata_rgbd/RGBD/other_formats/TUM_depth.png")))
    func tumFrameDecodesAtItsScaleAndGivesConsistentPlanes() throws {
        let path = try #require(SharedDatasets.path("open3d_testdata_rgbd/RGBD/other_formats/TUM_depth.png"))
        let depth = try DepthImage(contentsOf: path, scale: 1.0 / 5000)
        let valid = depth.metres.filter { $0 > 0 }.sorted()
        // SOURCE.md: 5th / 50th / 95th percentiles 1.77 / 2.42 / 3.12 m.
        #expect(abs(valid[valid.count / 2] - 2.42) < 0.02)
        let intrinsics = Intrinsics(fx: 535.4, fy: 539.2, cx: 320.6, cy: 248.1)
        let found = try PlaneDetector().detect(in: depth, intrinsics: intrinsics)
        #expect(found.planes.count >= 2)
        let points = OrganizedPoints(depth: depth, intrinsics: intrinsics)
        for (index, plane) in found.planes.enumerated() {
            #expect(abs((plane.plane.normal * plane.plane.normal).sum() - 1) < 1e-9)
            #expect(plane.plane.offset > 0)
            var outside = 0
            var count = 0
            for i in found.labels.indices where Int(found.labels[i]) == index + 1 {
                count += 1
                let p = SIMD3(Double(points.x[i]), Double(points.y[i]), Double(points.z[i]))
                let z = p.z
                if abs(plane.plane.signedDistance(to: p)) > 0.006 + 0.003 * z * z { outside += 1 }
            }
            #expect(count == plane.inlierCount)
            // The refit moves the plane a little after labelling: ≤ 5% of inliers may end up outside.
            #expect(Double(outside) <= 0.05 * Double(count))
        }
    }
}
