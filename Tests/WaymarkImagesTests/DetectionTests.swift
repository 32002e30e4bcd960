import Foundation
import TestData
import Testing
import TestSupport
import WaymarkCore
import WaymarkImages
import WaymarkVision

@Suite struct RealDataDetectionTests {
    @Test(.enabled(if: SharedDatasets.has("opencv_samples/graf1.png", "opencv_samples/graf3.png", "opencv_samples/H1to3p.xml")))
    func grafOneToThreeMatchesOpenCVsGroundTruth() throws {
        let g1 = try #require(SharedDatasets.path("opencv_samples/graf1.png"))
        let g3 = try #require(SharedDatasets.path("opencv_samples/graf3.png"))
        let h = try #require(SharedDatasets.path("opencv_samples/H1to3p.xml"))
        let reference = try Fixtures.reference(g1)
        let found = ImageDetector(references: [reference]).detect(in: try Image(contentsOf: g3, gray: true))
        let detection = try #require(found.first)
        let error = Fixtures.meanCornerError(detection.homography, try Fixtures.openCVMatrix(h), width: reference.width, height: reference.height)
        // Tolerance: the benchmark's accuracy threshold.
        #expect(error < 3)
    }

    @Test(.enabled(if: SharedDatasets.has("opencv_samples/box.png", "opencv_samples/box_in_scene.png")))
    func boxIsFoundInTheScene() throws {
        let box = try #require(SharedDatasets.path("opencv_samples/box.png"))
        let scene = try #require(SharedDatasets.path("opencv_samples/box_in_scene.png"))
        let found = ImageDetector(references: [try Fixtures.reference(box)]).detect(in: try Image(contentsOf: scene, gray: true))
        let detection = try #require(found.first)
        // Corners from an independent pipeline (OpenCV SIFT + RANSAC, 75 of 80 ratio-test inliers);
        // the two agree within a few pixels.
        let independent = [Point2(119.2, 161.2), Point2(285.0, 175.4), Point2(268.2, 298.8), Point2(89.8, 272.8)]
        for (ours, theirs) in zip(detection.corners, independent) {
            #expect(ours.distance(to: theirs) < 4)
        }
        #expect(detection.confidence > 0.5)
    }

    @Test(.enabled(if: SharedDatasets.has("oxford_affine"))) func oxfordSequencesAreLocatedPrecisely() throws {
        var precise = 0
        var total = 0
        for sequence in ["bark", "bikes", "boat", "graf", "leuven", "trees", "ubc", "wall"] {
            let base = try #require(SharedDatasets.path("oxford_affine/\(sequence)"))
            let reference = try Fixtures.reference("\(base)/img1.png")
            let detector = ImageDetector(references: [reference])
            for n in 2...4 {
                total += 1
                let truth = try Fixtures.matrix("\(base)/H1to\(n)p")
                guard let found = detector.detect(in: try Image(contentsOf: "\(base)/img\(n).png", gray: true)).first else { continue }
                if Fixtures.meanCornerError(found.homography, truth, width: reference.width, height: reference.height) < 3 { precise += 1 }
            }
        }
        // 21 of the 24 easier pairs (img2–img4) were within 3 px when this test was written;
        // the benchmark compares all 40 against SIFT.
        #expect(precise >= 20, "only \(precise) of \(total) pairs within 3 px")
    }

    /// bark img6 shows the bark at about a quarter of its size, turned by 154°: smaller than the
    /// reference's own pyramid reaches, so only its coarse features find it.
    @Test(.enabled(if: SharedDatasets.has("oxford_affine/bark"))) func barkZoomedOutFourTimesIsFound() throws {
        let base = try #require(SharedDatasets.path("oxford_affine/bark"))
        let reference = try Fixtures.reference("\(base)/img1.png")
        let detection = try #require(
            ImageDetector(references: [reference]).detect(in: try Image(contentsOf: "\(base)/img6.png", gray: true)).first)
        let truth = try Fixtures.matrix("\(base)/H1to6p")
        // The benchmark's accuracy threshold (2.1 px when written; OpenCV SIFT 2.3 px).
        #expect(Fixtures.meanCornerError(detection.homography, truth, width: reference.width, height: reference.height) < 3)
    }

    @Test(.enabled(if: SharedDatasets.has("evd_extreme_view"))) func extremeViewsNeverGiveAWrongDetection() throws {
        let root = try #require(SharedDatasets.path("evd_extreme_view"))
        let names = try FileManager.default.contentsOfDirectory(atPath: "\(root)/1").filter { $0.hasSuffix(".png") }.sorted()
        #expect(names.count == 15)
        for name in names {
            let reference = try Fixtures.reference("\(root)/1/\(name)")
            let frame = try Image(contentsOf: "\(root)/2/\(name)", gray: true)
            let truth = try Fixtures.matrix("\(root)/h/\(name.dropLast(4)).txt")
            for detection in ImageDetector(references: [reference]).detect(in: frame) {
                // A detection must be in the right place: within 5% of the frame diagonal.
                let diagonal = Double(frame.width * frame.width + frame.height * frame.height).squareRoot()
                let error = Fixtures.meanCornerError(detection.homography, truth, width: reference.width, height: reference.height)
                #expect(error < 0.05 * diagonal, "false detection of \(name): \(error) px")
            }
        }
    }

    @Test(.enabled(if: SharedDatasets.has("oxford_affine", "tum_fr3_office_frames/rgb")))
    func framesWithoutReferencesGiveNoDetections() throws {
        let oxford = try #require(SharedDatasets.path("oxford_affine"))
        let tum = try #require(SharedDatasets.path("tum_fr3_office_frames/rgb"))
        let references = try ["bark", "bikes", "boat", "graf", "leuven", "trees", "ubc", "wall"].map {
            try Fixtures.reference("\(oxford)/\($0)/img1.png")
        }
        let detector = ImageDetector(references: references)
        let frames = try FileManager.default.contentsOfDirectory(atPath: tum).filter { $0.hasSuffix(".png") }.sorted()
        #expect(frames.count == 17)
        var falseDetections = 0
        for name in frames {
            falseDetections += detector.detect(in: try Image(contentsOf: "\(tum)/\(name)", gray: true)).count
        }
        #expect(falseDetections == 0)
    }

    /// Oxford's wall (1000×700) at 5 % of a TUM frame seen 65° off-axis, and its boat (850×680)
    /// at 3 % seen 70° off-axis, by exact homographies: far below the references' own pyramids
    /// and squeezed 2.4:1 and 2.9:1, which only the coarse set's oblique views describe
    /// (without them neither was found).
    @Test(.enabled(if: SharedDatasets.has("oxford_affine", "tum_fr3_office_frames/rgb")))
    func farPostersSeenSteeplyAreFoundByTheCoarseObliqueViews() throws {
        let oxford = try #require(SharedDatasets.path("oxford_affine"))
        let tum = try #require(SharedDatasets.path("tum_fr3_office_frames/rgb"))
        let background = try FileManager.default.contentsOfDirectory(atPath: tum).filter { $0.hasSuffix(".png") }.sorted()[3]
        for (name, coverage, angle) in [("wall", 0.05, 65.0), ("boat", 0.03, 70.0)] {
            let path = "\(oxford)/\(name)/img1.png"
            let poster = try Image(contentsOf: path, gray: true)
            let frame = try Image(contentsOf: "\(tum)/\(background)", gray: true)
            // The poster scaled onto SyntheticDetectionTests' 400-pixel-wide plane, at the distance that gives `coverage`.
            let s = 400.0 / Double(poster.width)
            let planeCoverage = coverage * 400 * 300 / (Double(poster.width * poster.height) * s * s)
            let truth = SyntheticDetectionTests.posterView(angle: angle, coverage: planeCoverage, cx: 250, cy: 260)
                * Homography.scaling(s, s)
            frame.composite(poster, by: truth)
            let detections = ImageDetector(references: [try Fixtures.reference(path)]).detect(in: frame)
            let detection = try #require(detections.first, "\(name) not found")
            #expect(Fixtures.meanCornerError(detection.homography, truth, width: poster.width, height: poster.height) < 1)
        }
    }
}

@Suite struct SyntheticDetectionTests {
    /// A textured reference rendered into a textured background by a known homography.
    struct Scene {
        let reference: ReferenceImage
        let frame: Image
        let truth: Homography
    }

    static func scene(truth: Homography, seed: UInt64 = 5) throws -> Scene {
        let poster = Fixtures.texture(width: 400, height: 300, seed: seed)
        let frame = Fixtures.texture(width: 640, height: 480, seed: seed + 100)
        frame.composite(poster, by: truth)
        let reference = try ReferenceImage(entry: ReferenceEntry(name: "poster", path: "-"), image: poster)
        return Scene(reference: reference, frame: frame, truth: truth)
    }

    static let oblique = Homography([0.7, 0.15, 120, -0.08, 0.75, 90, 0.0004, 0.0002, 1])

    @Test func exactHomographyIsRecoveredToSubPixel() throws {
        let scene = try Self.scene(truth: Self.oblique)
        let detection = try #require(ImageDetector(references: [scene.reference]).detect(in: scene.frame).first)
        let error = Fixtures.meanCornerError(detection.homography, scene.truth, width: 400, height: 300)
        #expect(error < 0.5)
    }

    @Test func blurNoiseAndDarknessKeepItWithinTwoPixels() throws {
        let scene = try Self.scene(truth: Self.oblique)
        var generator = SeededGenerator(seed: 9)
        let darkNoisy = scene.frame.blurred(sigma: 1.5).pixels.map { p -> UInt8 in
            let v = Double(p) * 0.45 + 6 * generator.nextGaussian()
            return UInt8(max(0, min(255, v.rounded())))
        }
        let frame = Image(width: 640, height: 480, channels: 1, pixels: darkNoisy)
        let detection = try #require(ImageDetector(references: [scene.reference]).detect(in: frame).first)
        #expect(Fixtures.meanCornerError(detection.homography, scene.truth, width: 400, height: 300) < 2)
    }

    @Test func jpegArtefactsKeepItWithinOnePixel() throws {
        let scene = try Self.scene(truth: Self.oblique)
        let path = NSTemporaryDirectory() + "waymark-jpeg-\(getpid()).jpg"
        defer { try? FileManager.default.removeItem(atPath: path) }
        try scene.frame.write(to: path)
        let detection = try #require(ImageDetector(references: [scene.reference]).detect(in: try Image(contentsOf: path, gray: true)).first)
        #expect(Fixtures.meanCornerError(detection.homography, scene.truth, width: 400, height: 300) < 1)
    }

    @Test func poseFollowsFromIntrinsicsAndPhysicalWidth() throws {
        // A 0.4 m wide poster 1.5 m straight ahead: it spans fx·0.4/1.5 pixels.
        let k = Intrinsics(fx: 600, fy: 600, cx: 320, cy: 240)
        let width = 600 * 0.4 / 1.5
        let truth = Homography.translation(320 - width / 2, 240 - width * 0.75 / 2) * Homography.scaling(width / 400, width / 400)
        let scene = try Self.scene(truth: truth)
        let reference = try ReferenceImage(
            entry: ReferenceEntry(name: "poster", path: "-", physicalWidth: 0.4), image: Fixtures.texture(width: 400, height: 300, seed: 5))
        let detection = try #require(ImageDetector(references: [reference]).detect(in: scene.frame, intrinsics: k).first)
        let pose = try #require(detection.pose)
        #expect(abs(pose.translation[2] - 1.5) < 0.02)
        #expect(abs(pose.translation[0]) < 0.01 && abs(pose.translation[1]) < 0.01)
        #expect(pose.rotation[8] > 0.999)
    }

    @Test func aPosterAFifthOfItsSizeIsFound() throws {
        // 1024×768 shown 215 px wide and turned by 150°: below the coarsest level of the
        // reference's own pyramid (1.2⁻⁷ ≈ 0.28).
        let poster = Fixtures.texture(width: 1024, height: 768, seed: 21)
        let frame = Fixtures.texture(width: 640, height: 480, seed: 121)
        let angle = 150 * Double.pi / 180
        let s = 0.21
        let truth = Homography([s * cos(angle), -s * sin(angle), 420, s * sin(angle), s * cos(angle), 320, 0, 0, 1])
        frame.composite(poster, by: truth)
        let reference = try ReferenceImage(entry: ReferenceEntry(name: "poster", path: "-"), image: poster)
        let detection = try #require(ImageDetector(references: [reference]).detect(in: frame).first)
        #expect(Fixtures.meanCornerError(detection.homography, truth, width: 1024, height: 768) < 1)
    }

    /// A 400×300 poster on a plane turned `angle` degrees about the vertical, seen through a
    /// pinhole camera (f = 525) from the distance at which it covers `coverage` of a 640×480
    /// frame, its centre at (cx, cy).
    static func posterView(angle: Double, coverage: Double, cx: Double = 320, cy: Double = 240) -> Homography {
        let a = angle * Double.pi / 180
        func view(depth: Double) -> Homography {
            // reference pixel → plane metres (1 px = 1 mm) → camera → image
            let plane = Homography([0.001, 0, -0.2, 0, 0.001, -0.15, 0, 0, 1])
            let camera = Homography([cos(a), 0, 0, 0, 1, 0, -sin(a), 0, depth])
            let k = Homography([525, 0, cx, 0, 525, cy, 0, 0, 1])
            return (k * camera * plane).normalized
        }
        return view(depth: (projectedArea(view(depth: 1)) / (coverage * 640 * 480)).squareRoot())
    }

    /// Frame pixels covered by the 400×300 poster under `h` (shoelace formula).
    static func projectedArea(_ h: Homography) -> Double {
        let p = imageCorners(width: 400, height: 300).map { h.apply($0)! }
        return abs((0..<4).map { i in p[i].x * p[(i + 1) % 4].y - p[(i + 1) % 4].x * p[i].y }.reduce(0, +)) / 2
    }

    @Test func aSmallPosterFiftyFiveDegreesOffAxisIsFoundWithinAPixel() throws {
        let truth = Self.posterView(angle: 55, coverage: 0.10)
        let scene = try Self.scene(truth: truth)
        try #require(abs(Self.projectedArea(truth) / (640 * 480) - 0.10) < 0.01)
        let detection = try #require(ImageDetector(references: [scene.reference]).detect(in: scene.frame).first)
        #expect(Fixtures.meanCornerError(detection.homography, truth, width: 400, height: 300) < 1)
    }

    @Test func projectionSearchFindsAPosterWhoseMatchesFailTheRatioTest() throws {
        // A strict ratio test leaves fewer than the 8 matches a homography needs (as a busy or
        // repetitive scene does); the few left place the poster roughly, and its features are
        // then found where that places them. The window between too few for a homography and
        // too few for a rough placement is narrow and moves with the frame features, so the
        // test takes the loosest ratio (0.50 down, in hundredths) under which matching alone
        // no longer finds the poster.
        let truth = Self.posterView(angle: 55, coverage: 0.10)
        let scene = try Self.scene(truth: truth)
        func detect(ratio: Double, projection: Bool) -> [ImageDetection] {
            var options = ImageDetectorOptions()
            options.ratio = ratio
            if !projection { options.projectionSearch = nil }
            return ImageDetector(references: [scene.reference], options: options).detect(in: scene.frame)
        }
        let ratios = (40...50).reversed().map { Double($0) / 100 }
        let strict = try #require(ratios.first { detect(ratio: $0, projection: false).isEmpty })
        let detection = try #require(detect(ratio: strict, projection: true).first, "ratio \(strict)")
        #expect(Fixtures.meanCornerError(detection.homography, truth, width: 400, height: 300) < 1)
    }

    @Test func aPosterTooSmallToResolveIsRefusedRatherThanMisplaced() throws {
        // 4 % of the frame at 70°: a sliver about 40 px wide.
        let truth = Self.posterView(angle: 70, coverage: 0.04)
        let scene = try Self.scene(truth: truth)
        let detections = ImageDetector(references: [scene.reference]).detect(in: scene.frame)
        #expect(detections.allSatisfy { Fixtures.meanCornerError($0.homography, truth, width: 400, height: 300) < 3 })
    }

    @Test func aLowContrastPosterWithAPlainHalfIsFoundFromItsTexturedHalf() throws {
        // Left half a faint texture (σ 18 grey levels), right half plain; the frame shows the
        // textured half, the plain half runs off its right edge.
        let texture = Fixtures.texture(width: 400, height: 300, seed: 41)
        let faint = Image(width: 400, height: 300, channels: 1)
        texture.matchBrightness(mean: 128, standardDeviation: 18, into: faint)
        let pixels = faint.pixels.enumerated().map { i, p in i % 400 < 200 ? p : 128 }
        let poster = Image(width: 400, height: 300, channels: 1, pixels: pixels)
        let frame = Fixtures.texture(width: 640, height: 480, seed: 141)
        let truth = Homography([1.1, 0.08, 380, -0.05, 1.05, 90, 0.0002, 0, 1])
        frame.composite(poster, by: truth)
        try #require(truth.apply(Point2(200, 150))!.x < 620 && truth.apply(Point2(400, 150))!.x > 640)
        let reference = try ReferenceImage(entry: ReferenceEntry(name: "half", path: "-"), image: poster)
        // The frame's strongest corners are all on the busier background; the poster keeps
        // features because a share of them is spread over the frame (`FeatureOptions.spread`).
        let detection = try #require(ImageDetector(references: [reference]).detect(in: frame).first)
        #expect(Fixtures.meanCornerError(detection.homography, truth, width: 400, height: 300) < 2)
    }

    @Test func posterAbsentMeansNoDetection() throws {
        let reference = try ReferenceImage(entry: ReferenceEntry(name: "poster", path: "-"), image: Fixtures.texture(width: 400, height: 300, seed: 5))
        let other = Fixtures.texture(width: 640, height: 480, seed: 77)
        #expect(ImageDetector(references: [reference]).detect(in: other).isEmpty)
    }
}

@Suite struct FeatureSpreadTests {
    /// Features on the right half of a frame whose left half is a busy texture and whose right
    /// half is a faint one (σ 8 grey levels).
    static func shareOnTheFaintHalf(spread: Double) -> Double {
        let busy = Fixtures.texture(width: 640, height: 480, seed: 151)
        let faint = Image(width: 640, height: 480, channels: 1)
        Fixtures.texture(width: 640, height: 480, seed: 152).matchBrightness(mean: 128, standardDeviation: 8, into: faint)
        let faintPixels = faint.pixels
        let pixels = busy.gray().pixels.enumerated().map { i, p in i % 640 < 320 ? p : faintPixels[i] }
        var options = FeatureOptions(maxFeatures: 1500)
        options.ranking = .fast
        options.spread = spread
        let keypoints = FeatureSet(detectingIn: Image(width: 640, height: 480, channels: 1, pixels: pixels), options: options)
            .keypoints
        return Double(keypoints.filter { $0.location.x >= 320 }.count) / Double(keypoints.count)
    }

    @Test func aSpreadKeepsAFaintHalfItsShareOfFeatures() {
        let byStrength = Self.shareOnTheFaintHalf(spread: 0)
        let spread = Self.shareOnTheFaintHalf(spread: 0.5)
        // By strength the busy half takes every feature. Spread, half the features go round the
        // cells, so the faint half's cells could take up to a quarter; some of them have no
        // corner at all.
        #expect(byStrength < 0.05)
        #expect(spread > 0.15)
    }
}
