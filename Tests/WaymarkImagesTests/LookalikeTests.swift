import Foundation
import Testing
import WaymarkCore
import WaymarkImages
import WaymarkVision

@Suite struct LookalikeTests {
    @Test func theSamePictureTwiceIsFlaggedAndDistinctOnesAreNot() throws {
        guard let oxford = Fixtures.dataset("oxford_affine"), let evd = Fixtures.dataset("evd_extreme_view") else { return }
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
}
