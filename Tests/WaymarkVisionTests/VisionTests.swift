import Foundation
import TestData
import Testing
import WaymarkCore
import WaymarkVision

@Suite struct ImageIOTests {
    @Test func missingFileIsMissingInput() {
        #expect { try Image(contentsOf: "/nonexistent/image.png", gray: true) } throws: {
            ($0 as? WaymarkError)?.kind == .missingInput
        }
    }

    @Test func corruptFileIsBadData() throws {
        let path = NSTemporaryDirectory() + "waymark-corrupt-\(getpid()).png"
        try Data("not a png at all".utf8).write(to: URL(fileURLWithPath: path))
        defer { try? FileManager.default.removeItem(atPath: path) }
        #expect { try Image(contentsOf: path, gray: true) } throws: { ($0 as? WaymarkError)?.kind == .badData }
    }

    /// Found by the image fuzzer (Tests/Fuzz/Regressions/image): 135 bytes that OpenCV hands to
    /// GDCM, whose DICOM reader aborts the process. Only the formats Waymark reads reach a
    /// decoder; anything else is refused with their names.
    @Test func filesInNoFormatWaymarkReadsNeverReachADecoder() throws {
        let path = SharedDatasets.repositoryRoot.appendingPathComponent("Tests/Fuzz/Regressions/image/abort-gdcm-dicom-decoder").path
        let formats = "PNG, JPEG, BMP, PNM/PFM, TIFF, WebP, Radiance HDR"
        #expect { try Image(contentsOf: path, gray: false) } throws: {
            ($0 as? WaymarkError)?.kind == .badData && "\($0)".contains("is not an image in a format Waymark reads (\(formats))")
        }
        #expect { try Raster(contentsOf: path) } throws: { ($0 as? WaymarkError)?.kind == .badData }
    }

    @Test func emptyFileIsBadData() throws {
        let path = NSTemporaryDirectory() + "waymark-empty-\(getpid()).jpg"
        #expect(FileManager.default.createFile(atPath: path, contents: Data()))
        defer { try? FileManager.default.removeItem(atPath: path) }
        #expect { try Image(contentsOf: path, gray: true) } throws: { ($0 as? WaymarkError)?.kind == .badData }
    }

    @Test func writeThenReadKeepsPixels() throws {
        let pixels = (0..<(32 * 24)).map { UInt8(truncatingIfNeeded: $0 * 7) }
        let image = Image(width: 32, height: 24, channels: 1, pixels: pixels)
        let path = NSTemporaryDirectory() + "waymark-roundtrip-\(getpid()).png"
        defer { try? FileManager.default.removeItem(atPath: path) }
        try image.write(to: path)
        let back = try Image(contentsOf: path, gray: true)
        #expect(back.width == 32 && back.height == 24)
        #expect(back.pixels == pixels)
    }

    @Test func warpByTranslationMovesPixelsExactly() {
        var pixels = [UInt8](repeating: 0, count: 20 * 20)
        pixels[5 * 20 + 4] = 200
        let image = Image(width: 20, height: 20, channels: 1, pixels: pixels)
        let moved = image.warped(by: .translation(3, 2), width: 20, height: 20).pixels
        #expect(moved[7 * 20 + 7] == 200)
        #expect(moved.filter { $0 != 0 }.count == 1)
    }
}

@Suite struct GeometryTests {
    @Test func homographyFromExactCorrespondencesIsExact() throws {
        let truth = Homography([0.9, 0.2, 15, -0.1, 1.1, 4, 0.0003, 0.0001, 1])
        var generator = SeededGenerator(seed: 3)
        let source = (0..<60).map { _ in Point2(Double.random(in: 0..<600, using: &generator), Double.random(in: 0..<400, using: &generator)) }
        var destination = source.map { truth.apply($0)! }
        // A quarter of the pairs are gross outliers.
        for i in stride(from: 0, to: destination.count, by: 4) { destination[i] = destination[i] + Point2(80, -60) }
        let estimate = try #require(estimateHomography(from: source, to: destination))
        #expect(estimate.inlierCount == 45)
        for p in imageCorners(width: 600, height: 400) {
            #expect(try #require(estimate.homography.apply(p)).distance(to: truth.apply(p)!) < 0.01)
        }
    }

    @Test func affineEstimateIsExactOnAnAffineMapAndIgnoresOutliers() throws {
        let truth = Homography([0.8, -0.3, 40, 0.25, 0.9, -12, 0, 0, 1])
        var generator = SeededGenerator(seed: 4)
        let source = (0..<60).map { _ in Point2(Double.random(in: 0..<600, using: &generator), Double.random(in: 0..<400, using: &generator)) }
        var destination = source.map { truth.apply($0)! }
        for i in stride(from: 0, to: destination.count, by: 4) { destination[i] = destination[i] + Point2(-50, 70) }
        var options = HomographyEstimationOptions()
        options.method = .affine
        let estimate = try #require(estimateHomography(from: source, to: destination, options: options))
        #expect(estimate.inlierCount == 45)
        #expect(estimate.homography[2, 0] == 0 && estimate.homography[2, 1] == 0)
        for p in imageCorners(width: 600, height: 400) {
            #expect(try #require(estimate.homography.apply(p)).distance(to: truth.apply(p)!) < 0.01)
        }
    }

    @Test func affineEstimateWithTooFewInliersIsNotReturned() throws {
        let truth = Homography([0.8, -0.3, 40, 0.25, 0.9, -12, 0, 0, 1])
        var generator = SeededGenerator(seed: 9)
        let source = (0..<10).map { _ in Point2(Double.random(in: 0..<600, using: &generator), Double.random(in: 0..<400, using: &generator)) }
        let destination = source.enumerated().map { i, p in i < 6 ? truth.apply(p)! : p + Point2(Double(90 * i), -35) }
        var options = HomographyEstimationOptions()
        options.method = .affine
        options.minInliers = 6
        #expect(try #require(estimateHomography(from: source, to: destination, options: options)).inlierCount == 6)
        options.minInliers = 7
        #expect(estimateHomography(from: source, to: destination, options: options) == nil)
    }

    /// A minimum of inliers lets the affine method skip RANSAC where no three matches' map has
    /// that many; it must never skip one that RANSAC would find: on few-match sets with a planted
    /// consensus of every size, asking for k inliers finds an estimate exactly when RANSAC
    /// without the minimum finds one with k or more.
    @Test func affineMinimumInliersAgreesWithRANSACOnFewMatches() {
        var generator = SeededGenerator(seed: 21)
        var disagreements = 0
        for trial in 0..<300 {
            let count = 5 + trial % 12
            let planted = Int.random(in: 0...count, using: &generator)
            let turn = Double.random(in: 0..<(2 * .pi), using: &generator)
            let map = Homography([cos(turn), -sin(turn), 30, sin(turn), cos(turn), 20, 0, 0, 1])
            let source = (0..<count).map { _ in Point2(Double.random(in: 0..<640, using: &generator), Double.random(in: 0..<480, using: &generator)) }
            let destination = source.enumerated().map { i, p in
                i < planted
                    ? map.apply(p)! + Point2(Double.random(in: -4...4, using: &generator), Double.random(in: -4...4, using: &generator))
                    : Point2(Double.random(in: 0..<640, using: &generator), Double.random(in: 0..<480, using: &generator))
            }
            var options = HomographyEstimationOptions()
            options.method = .affine
            options.threshold = 6
            let unrestricted = estimateHomography(from: source, to: destination, options: options)?.inlierCount ?? 0
            for needed in 4...count {
                options.minInliers = needed
                let found = estimateHomography(from: source, to: destination, options: options) != nil
                if found != (unrestricted >= needed) { disagreements += 1 }
            }
        }
        #expect(disagreements == 0)
    }

    @Test func tooFewPointsGiveNoHomography() {
        #expect(estimateHomography(from: [Point2(0, 0), Point2(1, 0), Point2(0, 1)], to: [Point2(0, 0), Point2(1, 0), Point2(0, 1)]) == nil)
    }

    @Test func planarPoseRecoversDistanceAndFacing() throws {
        // A 0.5 m square seen head-on from 2 m: its corners project to ±f·0.25/2 around the centre.
        let k = Intrinsics(fx: 500, fy: 500, cx: 320, cy: 240)
        let half = 0.25
        let object: [SIMD3<Double>] = [SIMD3(-half, -half, 0), SIMD3(half, -half, 0), SIMD3(half, half, 0), SIMD3(-half, half, 0)]
        let image = object.map { Point2(k.cx + k.fx * $0.x / 2, k.cy + k.fy * $0.y / 2) }
        let pose = try estimatePlanarPose(objectPoints: object, imagePoints: image, intrinsics: k)
        #expect(abs(pose.transform.translation[2] - 2) < 1e-6)
        #expect(abs(pose.transform.translation[0]) < 1e-6 && abs(pose.transform.translation[1]) < 1e-6)
        #expect(abs(pose.transform.rotation[8] - 1) < 1e-6)
        #expect(pose.rmsReprojectionError < 1e-6)
    }

    @Test func opticalFlowFollowsAShiftedTexture() throws {
        var generator = SeededGenerator(seed: 11)
        let pixels = (0..<(120 * 120)).map { _ in UInt8.random(in: 0...255, using: &generator) }
        let base = Image(width: 120, height: 120, channels: 1, pixels: pixels).blurred(sigma: 1.5)
        let shifted = base.warped(by: .translation(2.5, -1.25), width: 120, height: 120)
        let points = [Point2(40, 40), Point2(60, 70), Point2(80, 50)]
        let flow = trackPoints(points, from: base, to: shifted)
        for (p, q) in zip(points, flow.points) {
            #expect(q.distance(to: p + Point2(2.5, -1.25)) < 0.05)
        }
        #expect(flow.tracked.allSatisfy { $0 })
    }
}

@Suite struct VideoTests {
    @Test(.enabled(if: SharedDatasets.has("opencv_samples/tree.avi"))) func decodesAllFramesOfASampleVideo() throws {
        let path = try #require(SharedDatasets.path("opencv_samples/tree.avi"))
        let reader = try VideoReader(path: path)
        let frame = Image(width: 1, height: 1, channels: 3)
        var count = 0
        var last = -1.0
        while let t = try reader.read(into: frame) {
            #expect(t > last)
            last = t
            count += 1
        }
        // SOURCE.md: tree.avi has 68 frames of 320×240.
        #expect(count == 68)
        #expect(frame.width == 320 && frame.height == 240)
    }

    @Test func notAVideoIsBadData() throws {
        let path = NSTemporaryDirectory() + "waymark-not-video-\(getpid()).mp4"
        try Data(repeating: 7, count: 4096).write(to: URL(fileURLWithPath: path))
        defer { try? FileManager.default.removeItem(atPath: path) }
        #expect { try VideoReader(path: path) } throws: { ($0 as? WaymarkError)?.kind == .badData }
    }
}

@Suite struct MatchingByProjectionTests {
    private static let truth = Homography([0.9, 0.15, 30, -0.1, 0.95, 20, 0.0002, 0.0001, 1])

    /// Features of a blurred random texture and of its view through `truth`.
    private func features() -> (train: FeatureSet, query: FeatureSet) {
        var generator = SeededGenerator(seed: 11)
        let pixels = (0..<(320 * 240)).map { _ in UInt8.random(in: 0...255, using: &generator) }
        let source = Image(width: 320, height: 240, channels: 1, pixels: pixels).blurred(sigma: 1.2)
        let view = source.warped(by: Self.truth, width: 400, height: 320)
        return (FeatureSet(detectingIn: source, options: FeatureOptions(maxFeatures: 800)),
                FeatureSet(detectingIn: view, options: FeatureOptions(maxFeatures: 800)))
    }

    @Test func findsTheFeaturesWhereTheHomographyPutsThem() {
        let (train, query) = features()
        let found = query.matches(projecting: train, by: Self.truth, radius: 6, maxSizeRatio: 2, ratio: 0.9, maxDistance: 64)
        let trainLocations = train.keypoints.map(\.location)
        let queryLocations = query.keypoints.map(\.location)
        let correct = found.filter { Self.truth.apply(trainLocations[$0.train])!.distance(to: queryLocations[$0.query]) < 2 }
        #expect(found.count > 120)
        #expect(Double(correct.count) / Double(found.count) > 0.95, "\(correct.count) of \(found.count)")
        #expect(Set(found.map(\.query)).count == found.count, "each query feature is matched once")
        #expect(found.allSatisfy { $0.distance <= 64 && $0.set == 0 })
    }

    @Test func aWrongPlacementFindsAlmostNothing() {
        let (train, query) = features()
        let right = query.matches(projecting: train, by: Self.truth, radius: 6, maxSizeRatio: 2, ratio: 0.9, maxDistance: 64)
        let shifted = query.matches(
            projecting: train, by: .translation(25, 0) * Self.truth, radius: 6, maxSizeRatio: 2, ratio: 0.9, maxDistance: 64)
        #expect(shifted.count * 10 < right.count, "\(shifted.count) against \(right.count)")
    }
}

@Suite struct DescriptorIndexTests {
    @Test(.enabled(if: SharedDatasets.has("opencv_samples/graf1.png", "opencv_samples/graf3.png")))
    func treeSearchFindsMostExactMatches() throws {
        let g1 = try #require(SharedDatasets.path("opencv_samples/graf1.png"))
        let g3 = try #require(SharedDatasets.path("opencv_samples/graf3.png"))
        let train = FeatureSet(detectingIn: try Image(contentsOf: g1, gray: true), options: FeatureOptions(maxFeatures: 3000))
        let query = FeatureSet(detectingIn: try Image(contentsOf: g3, gray: true), options: FeatureOptions(maxFeatures: 1500))
        let exact = DescriptorIndex(sets: [train], search: .exact).match(query, ratio: 0.8, maxDistance: 64)
        let approximate = DescriptorIndex(sets: [train]).match(query, ratio: 0.8, maxDistance: 64)
        let exactPairs = Set(exact.map { [$0.query, $0.train] })
        let shared = approximate.filter { exactPairs.contains([$0.query, $0.train]) }.count
        // Recall of the default tree search against brute force: 0.80 when written.
        #expect(Double(shared) / Double(exact.count) > 0.75, "\(shared) of \(exact.count)")
        #expect(exact.count > 100)
    }

    /// Exact search against a plain nearest-neighbour loop over random descriptors, in sets whose
    /// sizes are not multiples of the eight the matcher compares at once.
    @Test func exactSearchAgreesWithABruteForceLoop() {
        var generator = SeededGenerator(seed: 7)
        func randomSet(_ count: Int) -> (set: FeatureSet, bytes: [UInt8]) {
            let bytes = (0..<(count * FeatureSet.descriptorBytes)).map { _ in UInt8.random(in: 0...255, using: &generator) }
            let keypoints = (0..<count).map { Keypoint(location: Point2(Double($0), 0), size: 31, angle: 0, response: 1, octave: 0) }
            return (FeatureSet(keypoints: keypoints, descriptors: bytes), bytes)
        }
        let sets = [randomSet(37), randomSet(101), randomSet(5)]
        // Queries near training descriptors (a few bits flipped) so that many pass the ratio test.
        var queryBytes: [UInt8] = []
        for q in 0..<60 {
            let (s, i) = (q % 3, q % [37, 101, 5][q % 3])
            var d = Array(sets[s].bytes[(i * 32)..<((i + 1) * 32)])
            for _ in 0..<(q % 40) { d[Int.random(in: 0..<32, using: &generator)] ^= 1 << UInt8.random(in: 0..<8, using: &generator) }
            queryBytes += d
        }
        let query = FeatureSet(
            keypoints: (0..<60).map { _ in Keypoint(location: Point2(0, 0), size: 31, angle: 0, response: 1, octave: 0) },
            descriptors: queryBytes)
        func distance(_ a: ArraySlice<UInt8>, _ b: ArraySlice<UInt8>) -> Int {
            zip(a, b).reduce(0) { $0 + ($1.0 ^ $1.1).nonzeroBitCount }
        }
        for enabled in [nil, [true, false, true]] as [[Bool]?] {
            var expected: [[Int]] = []
            for q in 0..<60 {
                let qd = queryBytes[(q * 32)..<((q + 1) * 32)]
                var candidates: [(distance: Int, set: Int, train: Int)] = []
                for (s, set) in sets.enumerated() where enabled?[s] ?? true {
                    for i in 0..<(set.bytes.count / 32) { candidates.append((distance(qd, set.bytes[(i * 32)..<((i + 1) * 32)]), s, i)) }
                }
                candidates.sort { $0.distance < $1.distance }
                let (best, second) = (candidates[0], candidates[1])
                guard best.distance <= 100, Float(best.distance) < Float(0.8) * Float(second.distance) else { continue }
                expected.append([q, best.set, best.train, best.distance, second.distance])
            }
            let index = DescriptorIndex(sets: sets.map(\.set), search: .exact)
            let found = index.match(query, ratio: 0.8, maxDistance: 100, enabled: enabled)
            #expect(found.map { [$0.query, $0.set, $0.train, $0.distance, $0.secondDistance] } == expected)
            #expect(expected.count > 20)
        }
    }

    @Test func disabledSetsAreNeverMatched() throws {
        let a = FeatureSet(detectingIn: try syntheticTexture(seed: 1))
        let b = FeatureSet(detectingIn: try syntheticTexture(seed: 2))
        let index = DescriptorIndex(sets: [a, b], search: .exact)
        let all = index.match(a, ratio: 1, maxDistance: 256)
        #expect(all.allSatisfy { $0.set == 0 && $0.distance == 0 })
        let onlyB = index.match(a, ratio: 1, maxDistance: 256, enabled: [false, true])
        #expect(!onlyB.isEmpty && onlyB.allSatisfy { $0.set == 1 })
    }

    /// A detail described twice (its descriptor one bit apart) at nearly the same place is not
    /// its own rival under a same-detail radius; the same pair far apart, or in two sets, is.
    @Test func sameDetailIsNotItsOwnRivalInTheRatioTest() {
        var generator = SeededGenerator(seed: 7)
        let detail = (0..<32).map { _ in UInt8.random(in: 0...255, using: &generator) }
        var twice = detail
        twice[0] ^= 1
        func set(_ descriptors: [[UInt8]], at xs: [Double]) -> FeatureSet {
            FeatureSet(keypoints: xs.map { Keypoint(location: Point2($0, 50), size: 20, angle: 0, response: 1, octave: 0) },
                       descriptors: descriptors.flatMap { $0 })
        }
        var query = detail
        query[30] ^= 0b11
        query[31] ^= 0xFF // 10 bits from the first description, 11 from the second: no ratio test passes
        let frame = set([query], at: [0])
        func matches(_ sets: [FeatureSet], radius: Double) -> Int {
            DescriptorIndex(sets: sets, search: .exact).match(frame, ratio: 0.8, maxDistance: 64, sameDetailRadius: radius).count
        }
        let near = set([detail, twice], at: [100, 104]) // 4 px apart, size 20: within 0.3 sizes
        let far = set([detail, twice], at: [100, 200])
        #expect(matches([near], radius: 0) == 0)
        #expect(matches([near], radius: 0.3) == 1)
        #expect(matches([near], radius: 0.1) == 0) // 4 px is beyond 0.1 × 20
        #expect(matches([far], radius: 0.3) == 0)
        #expect(matches([set([detail], at: [100]), set([twice], at: [104])], radius: 0.3) == 0)
    }

    private func syntheticTexture(seed: UInt64) throws -> Image {
        var generator = SeededGenerator(seed: seed)
        let pixels = (0..<(200 * 200)).map { _ in UInt8.random(in: 0...255, using: &generator) }
        return Image(width: 200, height: 200, channels: 1, pixels: pixels).blurred(sigma: 1.2)
    }
}

/// Features come from the shim's own equivalents of cv::resize, cv::FAST and cv::ORB::compute
/// where they give OpenCV's bytes: spread features, and ORB's own selection, which must be
/// cv::ORB's exactly.
@Suite struct OpenCVEquivalentsTests {
    /// OpenCV's filter (which the describer must match) computes in fused multiply-add on such
    /// processors; the describer is built for them and checks itself at first use.
    static let processorHasAVX2AndFMA: Bool = {
        guard let info = try? String(contentsOfFile: "/proc/cpuinfo", encoding: .utf8),
            let flags = info.split(separator: "\n").first(where: { $0.hasPrefix("flags") })
        else { return false }
        let set = Set(flags.split(separator: " "))
        return set.contains("avx2") && set.contains("fma")
    }()

    static let frames = ["opencv_samples/graf1.png", "opencv_samples/box_in_scene.png", "oxford_affine/boat/img4.png"]

    @Test(.enabled(if: processorHasAVX2AndFMA)) func isInUseWhereTheProcessorHasAVX2AndFMA() {
        #expect(FeatureSet.hasExactDescriber)
    }

    /// Every keypoint and every descriptor byte, on real images of three sizes at several
    /// enlarged and reduced levels (keypoints at every angle), against the pyramid cv::resize
    /// builds, the corners cv::FAST finds in short cells and cv::ORB::compute's descriptors.
    @Test(.enabled(if: FeatureSet.hasExactDescriber && frames.allSatisfy { SharedDatasets.path($0) != nil }))
    func givesOpenCVsBytes() throws {
        var options = FeatureOptions(maxFeatures: 3000)
        options.ranking = .fast
        options.spread = 0.5
        options.minFastThreshold = 7
        options.enlargedLevels = 2
        var compared = 0
        var fromShortCells = 0
        for frame in Self.frames {
            let image = try Image(contentsOf: SharedDatasets.path(frame)!, gray: true)
            let ours = FeatureSet(detectingIn: image, options: options)
            var opencv = options
            opencv.opencvOnly = true
            let theirs = FeatureSet(detectingIn: image, options: opencv)
            #expect(ours.keypoints == theirs.keypoints, "\(frame)")
            let differing = zip(ours.descriptors, theirs.descriptors).filter { $0 != $1 }.count
            #expect(differing == 0, "\(frame): \(differing) of \(ours.descriptors.count) bytes differ")
            compared += ours.count
            fromShortCells += ours.keypoints.filter { $0.response < Double(options.fastThreshold) }.count
        }
        #expect(compared > 5000)
        #expect(fromShortCells > 200)
    }

    /// Without spread, every keypoint and descriptor byte is cv::ORB::detectAndCompute's: ranked
    /// by Harris (the tracker's features) and by FAST score, with an enlarged level, and with a
    /// threshold so high that fewer than half the features are found and detection runs again
    /// at the lower one.
    @Test(.enabled(if: FeatureSet.hasExactDescriber && frames.allSatisfy { SharedDatasets.path($0) != nil }))
    func withoutSpreadGivesOpenCVsORB() throws {
        var harris = FeatureOptions(maxFeatures: 1000)
        var fastRanked = FeatureOptions(maxFeatures: 2000)
        fastRanked.ranking = .fast
        fastRanked.enlargedLevels = 1
        var retried = FeatureOptions(maxFeatures: 3000)
        retried.fastThreshold = 90
        harris.levels = 8
        var compared = 0
        for frame in Self.frames {
            let image = try Image(contentsOf: SharedDatasets.path(frame)!, gray: true)
            for options in [harris, fastRanked, retried] {
                let ours = FeatureSet(detectingIn: image, options: options)
                var opencv = options
                opencv.opencvOnly = true
                let theirs = FeatureSet(detectingIn: image, options: opencv)
                let (mine, opencvs) = (ours.keypoints, theirs.keypoints)
                let firstDifference = mine.indices.first { $0 >= opencvs.count || mine[$0] != opencvs[$0] }
                let difference = firstDifference.map { "\($0): \(mine[$0]) against \($0 < opencvs.count ? "\(opencvs[$0])" : "none")" }
                #expect(mine.count == opencvs.count && firstDifference == nil,
                        "\(frame), \(options): \(mine.count) against \(opencvs.count) keypoints, first difference at \(difference ?? "none")")
                let differing = zip(ours.descriptors, theirs.descriptors).filter { $0 != $1 }.count
                #expect(differing == 0, "\(frame), \(options): \(differing) descriptor bytes differ")
                compared += ours.count
            }
        }
        #expect(compared > 10000)
    }
}
