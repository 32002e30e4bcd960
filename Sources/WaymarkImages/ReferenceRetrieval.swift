import WaymarkVision

/// Which references of a whole library a frame most likely shows, so that only those are
/// searched: bag-of-words retrieval with a vocabulary trained on the library itself.
public final class ReferenceRetrieval {
    private let index: BagOfWordsIndex

    public init(references: [ReferenceImage], seed: UInt64 = 1) {
        precondition(!references.isEmpty, "retrieval needs references")
        let documents = references.map(\.features)
        index = BagOfWordsIndex(vocabulary: Vocabulary(training: documents, seed: seed), documents: documents)
    }

    /// The `limit` references whose words best agree with the frame's, best first; references
    /// sharing no word with the frame are never returned.
    public func rank(_ features: FeatureSet, limit: Int) -> [Int] {
        index.rank(features, limit: limit).map(\.document)
    }
}
