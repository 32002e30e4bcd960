import Testing
import WaymarkCore

@Suite struct TimestampAssociationTests {
    /// associate.py's rule: the closest pair first, each timestamp once. A sweep that pairs each
    /// sample with its nearest neighbour in turn would give 1.000 to 1.015 (nearest to it) and
    /// leave 1.014 unpaired; closest-first pairs 1.014 with 1.015 and 1.000 with 0.990.
    @Test func closestPairsAreChosenFirstAndEachTimestampIsUsedOnce() {
        let pairs = TimestampAssociation.pairs([1.000, 1.014], [0.990, 1.015], tolerance: 0.02)
        #expect(pairs.map { [$0.0, $0.1] } == [[0, 0], [1, 1]])
        let crowded = TimestampAssociation.pairs([1.0, 1.001, 1.002], [1.0005], tolerance: 0.02)
        #expect(crowded.map { [$0.0, $0.1] } == [[0, 0]])
    }

    /// As associate.py: strictly less than the tolerance apart.
    @Test func theToleranceIsExclusiveAndNonFiniteTimestampsPairWithNothing() {
        #expect(TimestampAssociation.pairs([1.0], [1.4999999], tolerance: 0.5).count == 1)
        #expect(TimestampAssociation.pairs([1.0], [1.5], tolerance: 0.5).isEmpty)
        #expect(TimestampAssociation.pairs([.nan, 2.0], [2.0, .infinity]).map { [$0.0, $0.1] } == [[1, 0]])
    }

    @Test func unsortedInputsPairAsSortedOnes() {
        let first = [3.0, 1.0, 2.0]
        let second = [2.01, 0.99, 3.005]
        let partners = TimestampAssociation.partners(of: first, in: second)
        #expect(partners == [2, 1, 0])
    }

    /// On 200 random streams (30 Hz with jitter against 100 Hz with gaps): every pair within
    /// the tolerance, no timestamp twice, and no pair left that could still be made (maximal).
    @Test func randomStreamsGiveValidMaximalPairings() {
        var generator = SeededGenerator(seed: 7)
        for _ in 0..<200 {
            let frames = (0..<40).map { Double($0) / 30 + Double.random(in: -0.01...0.01, using: &generator) }
            let poses = (0..<150).compactMap { k -> Double? in
                Double.random(in: 0...1, using: &generator) < 0.2 ? nil : Double(k) / 100 + Double.random(in: 0...0.004, using: &generator)
            }
            let pairs = TimestampAssociation.pairs(frames, poses, tolerance: 0.02)
            #expect(pairs.allSatisfy { abs(frames[$0.0] - poses[$0.1]) < 0.02 })
            #expect(Set(pairs.map(\.0)).count == pairs.count && Set(pairs.map(\.1)).count == pairs.count)
            let usedFrames = Set(pairs.map(\.0))
            let usedPoses = Set(pairs.map(\.1))
            let open = frames.indices.filter { !usedFrames.contains($0) }.contains { i in
                poses.indices.contains { j in !usedPoses.contains(j) && abs(frames[i] - poses[j]) < 0.02 }
            }
            #expect(!open)
        }
    }
}
