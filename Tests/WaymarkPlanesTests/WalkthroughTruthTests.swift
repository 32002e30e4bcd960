import Foundation
import TestData
import Testing
import TestSupport
import WaymarkCore
import WaymarkPlanes
import WaymarkVision

/// The walk-through's ground truth agrees with its own renderings.
@Suite struct WalkthroughTruthTests {
    @Test(.enabled(if: Walkthrough.debianPosterFolder != nil)) func depthPosesPlanesAndPosterHomographiesAgree() throws {
        let walk = try PlaneMapTests.walkthrough()
        for frame in [walk.frames[2], walk.frames[walk.frames.count - 3]] {
            let rendering = walk.render(frame)
            let color = try #require(rendering.color)
            // Every labelled pixel, back-projected with the depth and the pose, lies on its surface.
            var worst = 0.0
            for i in stride(from: 0, to: rendering.depth.count, by: 7) where rendering.labels[i] != 0 {
                let z = Double(rendering.depth[i])
                let camera = SIMD3((Double(i % walk.width) + 0.5 - walk.intrinsics.cx) / walk.intrinsics.fx * z,
                                   (Double(i / walk.width) + 0.5 - walk.intrinsics.cy) / walk.intrinsics.fy * z, z)
                let surface = walk.surfaces.first { $0.id == Int(rendering.labels[i]) }!
                worst = max(worst, abs(surface.plane.signedDistance(to: frame.cameraToWorld.apply(camera))))
            }
            #expect(worst < 1e-4)
            // The renderer samples a poster where each pixel's ray meets it, so the frame pixel's
            // colour is the poster pixel its centre maps to under H⁻¹ (up to the noise, σ = 2).
            let homographies = walk.posterHomographies(frame)
            #expect(!homographies.isEmpty)
            for poster in walk.posters {
                guard let h = homographies[poster.name], let inverse = h.inverse else { continue }
                let image = try Image(contentsOf: poster.imagePath, gray: false)
                let pixels = image.pixels
                var checked = 0
                var agree = 0
                for j in stride(from: 0, to: walk.width * walk.height, by: 3) where rendering.labels[j] == poster.surfaceID {
                    let centre = Point2(Double(j % walk.width) + 0.5, Double(j / walk.width) + 0.5)
                    guard let q = inverse.apply(centre), q.x >= 1, q.y >= 1, q.x < Double(image.width) - 1,
                        q.y < Double(image.height) - 1
                    else { continue }
                    let k = Int(q.y) * image.width + Int(q.x)
                    checked += 1
                    let difference = (0..<3).map { abs(Int(color[3 * j + $0]) - Int(pixels[3 * k + $0])) }.max()!
                    if difference <= 10 { agree += 1 }
                }
                // Rounding at poster pixel borders may pick the neighbour; 95% agree exactly.
                if checked >= 20 { #expect(Double(agree) >= 0.95 * Double(checked), "\(poster.name): \(agree)/\(checked)") }
            }
        }
    }

    @Test(.enabled(if: Walkthrough.debianPosterFolder != nil)) func theSameSeedGivesTheSameWalkthrough() throws {
        let a = try PlaneMapTests.walkthrough(), b = try PlaneMapTests.walkthrough()
        #expect(a.frames.map(\.cameraToWorld) == b.frames.map(\.cameraToWorld))
        #expect(a.render(a.frames[5]).color == b.render(b.frames[5]).color)
        #expect(Set(a.frames.map(\.segment)) == Set(Walkthrough.Segment.allCases))
    }

    @Test func floatDepthImagesReadInMetres() throws {
        // PFM: "Pf", size, negative scale for little-endian, then rows bottom to top.
        let scratch = try Scratch()
        var bytes = Array("Pf\n2 2\n-1.0\n".utf8)
        for value: Float in [2.5, .nan, 1.0, 0.5] { bytes += withUnsafeBytes(of: value.bitPattern.littleEndian, Array.init) }
        try Data(bytes).write(to: URL(fileURLWithPath: scratch.path("d.pfm")))
        let depth = try DepthImage(contentsOf: scratch.path("d.pfm"))
        #expect(depth.metres == [1.0, 0.5, 2.5, 0])
    }
}

/// The table-top script: the scale it exists for, and enough texture to track.
@Suite struct TableTopTruthTests {
    /// Every frame sees the table's objects from 0.3–0.6 m (the median depth of the pixels on
    /// the table and its boxes) and shows at least 300 ORB features at 320×240, and the lying
    /// poster is in view for part of the circle.
    @Test(.enabled(if: Walkthrough.debianPosterFolder != nil)) func theCameraCirclesTheTableAtTableTopDistance() throws {
        let walk = try Walkthrough(posterFolder: Walkthrough.debianPosterFolder!, width: 320, height: 240, framesPerSecond: 3,
                                   script: .tableTop)
        #expect(walk.frames.count == 60)
        let tableAndBoxes = Set(walk.surfaces.filter { $0.kind == "object" || $0.name == "table" }.map { UInt16($0.id) })
        #expect(tableAndBoxes.count == 16)
        var posterFrames = 0
        for frame in walk.frames where frame.index % 12 == 0 {
            let rendering = walk.render(frame)
            let near = rendering.depth.indices.filter { tableAndBoxes.contains(rendering.labels[$0]) }.map { rendering.depth[$0] }.sorted()
            #expect(near.count > walk.width * walk.height / 3, "frame \(frame.index)")
            let median = near[near.count / 2]
            #expect(median > 0.3 && median < 0.6, "frame \(frame.index): median depth \(median)")
            let gray = Image(width: walk.width, height: walk.height, channels: 3, pixels: try #require(rendering.color)).gray()
            let features = FeatureSet(detectingIn: gray, options: FeatureOptions(maxFeatures: 1000))
            #expect(features.count >= 300, "frame \(frame.index): \(features.count) features")
            if walk.posterHomographies(frame)["lying building"] != nil { posterFrames += 1 }
        }
        #expect(posterFrames >= 2)
    }
}
