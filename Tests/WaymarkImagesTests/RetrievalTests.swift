import Foundation
import TestData
import Testing
import TestSupport
import WaymarkCore
import WaymarkImages
import WaymarkVision

@Suite struct RetrievalTests {
    /// 8 Oxford posters and 14 EVD pictures among 180 synthetic textures: 202 references.
    /// (EVD's graf is Oxford's graf img1: the same picture twice would be two references that
    /// each make the other's matches ambiguous.)
    static func library() throws -> [ReferenceImage] {
        let oxford = try #require(SharedDatasets.path("oxford_affine"))
        let evd = try #require(SharedDatasets.path("evd_extreme_view"))
        var references: [ReferenceImage] = []
        for sequence in ["bark", "bikes", "boat", "graf", "leuven", "trees", "ubc", "wall"] {
            references.append(try Fixtures.reference("\(oxford)/\(sequence)/img1.png", name: sequence))
        }
        let names = try FileManager.default.contentsOfDirectory(atPath: "\(evd)/1")
            .filter { $0.hasSuffix(".png") && $0 != "graf.png" }.sorted()
        for name in names { references.append(try Fixtures.reference("\(evd)/1/\(name)", name: "evd-\(name)")) }
        // Small, plain distractors keep the test quick; they still share words with everything.
        var options = ReferenceImage.Options()
        options.templateLevels = 1
        options.detailScales = []
        options.obliqueViews = []
        options.features = FeatureOptions(maxFeatures: 300)
        for seed in 0..<180 {
            references.append(try ReferenceImage(
                entry: ReferenceEntry(name: "texture\(seed)", path: "-"),
                image: Fixtures.texture(width: 240, height: 180, seed: UInt64(1000 + seed)), options: options))
        }
        return references
    }

    /// One library for both checks: building 202 references dominates the test's time.
    @Test(.enabled(if: SharedDatasets.has("oxford_affine", "evd_extreme_view", "tum_fr3_office_frames/rgb")))
    func retrievalPicksTheShownReferenceAndNothingElse() throws {
        let references = try Self.library()
        let oxford = try #require(SharedDatasets.path("oxford_affine"))
        let tum = try #require(SharedDatasets.path("tum_fr3_office_frames/rgb"))
        #expect(references.count >= 200)
        let retrieval = ReferenceRetrieval(references: references)
        var options = ImageDetectorOptions()
        options.selection = .retrieval(limit: 25)
        let detector = ImageDetector(references: references, options: options)
        var ranked = 0
        var found = 0
        var wrong = 0
        let sequences = ["bark", "bikes", "boat", "graf", "leuven", "trees", "ubc", "wall"]
        for (r, sequence) in sequences.enumerated() {
            let frame = try Image(contentsOf: "\(oxford)/\(sequence)/img2.png", gray: true)
            let features = FeatureSet(detectingIn: frame, options: FeatureOptions(maxFeatures: 1000))
            if retrieval.rank(features, limit: 25).contains(r) { ranked += 1 }
            for detection in detector.detect(in: frame) {
                if detection.reference == r { found += 1 } else { wrong += 1 }
            }
        }
        // All eight img2 frames rank their poster in the first 25 of 202, and all are found,
        // as with a hand-picked active set.
        #expect(ranked == 8)
        #expect(found == 8)
        #expect(wrong == 0)
        // Frames that show none of the references find nothing.
        let frames = try FileManager.default.contentsOfDirectory(atPath: tum).filter { $0.hasSuffix(".png") }.sorted()
        var distractions = 0
        for name in frames { distractions += detector.detect(in: try Image(contentsOf: "\(tum)/\(name)", gray: true)).count }
        #expect(distractions == 0)
    }
}
