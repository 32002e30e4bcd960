import Foundation
import TestData
import Testing
import TestSupport
import WaymarkCore
import WaymarkImages
import WaymarkVision

@Suite struct LookalikeTests {
    @Test(.enabled(if: SharedDatasets.has("oxford_affine", "evd_extreme_view")))
    func theSamePictureTwiceIsFlaggedAndDistinctOnesAreNot() throws {
        let oxford = try #require(SharedDatasets.path("oxford_affine"))
        let evd = try #require(SharedDatasets.path("evd_extreme_view"))
        // EVD's graf is Oxford's graf img1 in another file (SOURCE.md).
        let references = try [
            Fixtures.reference("\(oxford)/graf/img1.png", name: "graf"),
            Fixtures.reference("\(oxford)/boat/img1.png", name: "boat"),
            Fixtures.reference("\(evd)/1/graf.png", name: "evd-graf"),
            Fixtures.reference("\(evd)/1/adam.png", name: "adam"),
            Fixtures.reference("\(oxford)/leuven/img1.png", name: "leuven"),
        ]
        let pairs = ReferenceLookalikes.find(in: references)
        #expect(pairs.map { [$0.reference, $0.lookalike] } == [[0, 2], [2, 0]])
        #expect(pairs.allSatisfy { $0.share > 0.5 })
    }

    /// Thirty copies of one picture: retrieval weighs every shared word at nothing among them,
    /// so copies are found by their identical features; each is flagged.
    @Test func thirtyCopiesOfOnePictureAreEachFlagged() throws {
        let image = Fixtures.texture(width: 400, height: 300, seed: 8)
        let copies = try (0..<30).map { try ReferenceImage(entry: ReferenceEntry(name: "copy\($0)", path: "-"), image: image) }
        let distinct = try ReferenceImage(entry: ReferenceEntry(name: "other", path: "-"),
                                          image: Fixtures.texture(width: 400, height: 300, seed: 9))
        let pairs = ReferenceLookalikes.find(in: copies + [distinct])
        #expect(Set(pairs.map(\.reference)) == Set(0..<30))
        #expect(pairs.allSatisfy { $0.lookalike < 30 && $0.lookalike != $0.reference })
    }
}
