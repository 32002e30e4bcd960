import Foundation

/// Bag-of-words retrieval (Sivic & Zisserman's video Google, with DBoW2's L1 score): which
/// documents (reference images, keyframes) a frame most likely shows. Built over the
/// documents' own words; a query costs one pass over its words' postings and allocates
/// nothing but the result.
public final class BagOfWordsIndex {
    public let vocabulary: Vocabulary
    public let documentCount: Int
    // Postings of every word, back to back: documents and tf-idf weights (L1-normalised per
    // document).
    private let wordStart: [Int32]
    private let postingDocument: [Int32]
    private let postingWeight: [Float]
    private let inverseFrequency: [Float]
    private var queryWeight: [Float]
    private var touchedWords: [Int32] = []
    private var scores: [Float]

    /// `documents` are the feature sets to retrieve among, quantized with `vocabulary`.
    public init(vocabulary: Vocabulary, documents: [FeatureSet]) {
        self.vocabulary = vocabulary
        documentCount = documents.count
        let words = documents.map { vocabulary.words(of: $0) }
        let wordCount = vocabulary.wordCount
        var documentFrequency = [Int](repeating: 0, count: wordCount)
        var histograms: [[Int32: Int]] = []
        for documentWords in words {
            var histogram: [Int32: Int] = [:]
            for w in documentWords { histogram[Int32(w), default: 0] += 1 }
            for w in histogram.keys { documentFrequency[Int(w)] += 1 }
            histograms.append(histogram)
        }
        let n = Float(documents.count)
        let inverseFrequency = documentFrequency.map { $0 > 0 ? log(n / Float($0)) : 0 }
        self.inverseFrequency = inverseFrequency
        var perWord = [[(Int32, Float)]](repeating: [], count: wordCount)
        for (d, histogram) in histograms.enumerated() {
            let total = Float(words[d].count)
            var weights = histogram.map { (word: $0.key, weight: Float($0.value) / total * inverseFrequency[Int($0.key)]) }
            let norm = weights.reduce(0) { $0 + $1.weight }
            guard norm > 0 else { continue }
            for i in weights.indices { weights[i].weight /= norm }
            for (word, weight) in weights where weight > 0 { perWord[Int(word)].append((Int32(d), weight)) }
        }
        var start: [Int32] = [0]
        var documentsOut: [Int32] = []
        var weightsOut: [Float] = []
        for postings in perWord {
            for (d, w) in postings.sorted(by: { $0.0 < $1.0 }) {
                documentsOut.append(d)
                weightsOut.append(w)
            }
            start.append(Int32(documentsOut.count))
        }
        wordStart = start
        postingDocument = documentsOut
        postingWeight = weightsOut
        queryWeight = [Float](repeating: 0, count: wordCount)
        scores = [Float](repeating: 0, count: documents.count)
    }

    /// The `limit` documents whose words best agree with the frame's, best first, with their
    /// scores (0...2); documents sharing no word with the frame are never returned.
    public func rank(_ features: FeatureSet, limit: Int) -> [(document: Int, score: Float)] {
        precondition(limit > 0, "a ranking needs a positive limit")
        let words = vocabulary.words(of: features)
        guard !words.isEmpty else { return [] }
        touchedWords.removeAll(keepingCapacity: true)
        for w in words {
            let word = Int(w)
            if queryWeight[word] == 0 { touchedWords.append(Int32(word)) }
            queryWeight[word] += inverseFrequency[word]
        }
        let norm = touchedWords.reduce(Float(0)) { $0 + queryWeight[Int($1)] }
        for i in scores.indices { scores[i] = 0 }
        for w in touchedWords {
            let word = Int(w)
            let q = norm > 0 ? queryWeight[word] / norm : 0
            queryWeight[word] = 0
            guard q > 0 else { continue }
            for p in Int(wordStart[word])..<Int(wordStart[word + 1]) {
                let r = postingWeight[p]
                // DBoW2's L1 score, accumulated over shared words: |q| + |r| - |q - r|.
                scores[Int(postingDocument[p])] += q + r - abs(q - r)
            }
        }
        let ranked = scores.indices.filter { scores[$0] > 0 }
            .sorted { scores[$0] > scores[$1] || (scores[$0] == scores[$1] && $0 < $1) }
        return ranked.prefix(limit).map { (document: $0, score: scores[$0]) }
    }
}
