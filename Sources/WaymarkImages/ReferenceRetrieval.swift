import Foundation
import WaymarkVision

/// Bag-of-words retrieval over a whole reference library (Sivic & Zisserman's video Google,
/// with DBoW2's L1 score): which references a frame most likely shows, so that only those
/// are searched. Built from the library itself; a frame costs one pass over its features'
/// postings.
public final class ReferenceRetrieval {
    public let vocabulary: Vocabulary
    // Postings of every word, back to back: references and tf-idf weights (L1-normalised per
    // reference).
    private let wordStart: [Int32]
    private let postingReference: [Int32]
    private let postingWeight: [Float]
    private let inverseFrequency: [Float]
    // Per-query scratch, reused so that ranking allocates nothing per frame.
    private var queryWeight: [Float]
    private var touchedWords: [Int32] = []
    private var scores: [Float]

    public init(references: [ReferenceImage], seed: UInt64 = 1) {
        precondition(!references.isEmpty, "retrieval needs references")
        let vocabulary = Vocabulary(training: references.map(\.features), seed: seed)
        self.vocabulary = vocabulary
        let words = references.map { vocabulary.words(of: $0.features) }
        let wordCount = vocabulary.wordCount
        var documentFrequency = [Int](repeating: 0, count: wordCount)
        var histograms: [[Int32: Int]] = []
        for referenceWords in words {
            var histogram: [Int32: Int] = [:]
            for w in referenceWords { histogram[Int32(w), default: 0] += 1 }
            for w in histogram.keys { documentFrequency[Int(w)] += 1 }
            histograms.append(histogram)
        }
        let n = Float(references.count)
        let inverseFrequency = documentFrequency.map { $0 > 0 ? log(n / Float($0)) : 0 }
        self.inverseFrequency = inverseFrequency
        var perWord = [[(Int32, Float)]](repeating: [], count: wordCount)
        for (r, histogram) in histograms.enumerated() {
            let total = Float(words[r].count)
            var weights = histogram.map { (word: $0.key, weight: Float($0.value) / total * inverseFrequency[Int($0.key)]) }
            let norm = weights.reduce(0) { $0 + $1.weight }
            guard norm > 0 else { continue }
            for i in weights.indices { weights[i].weight /= norm }
            for (word, weight) in weights where weight > 0 { perWord[Int(word)].append((Int32(r), weight)) }
        }
        var start: [Int32] = [0]
        var referencesOut: [Int32] = []
        var weightsOut: [Float] = []
        for postings in perWord {
            for (r, w) in postings.sorted(by: { $0.0 < $1.0 }) {
                referencesOut.append(r)
                weightsOut.append(w)
            }
            start.append(Int32(referencesOut.count))
        }
        wordStart = start
        postingReference = referencesOut
        postingWeight = weightsOut
        queryWeight = [Float](repeating: 0, count: wordCount)
        scores = [Float](repeating: 0, count: references.count)
    }

    /// The `limit` references whose words best agree with the frame's, best first; references
    /// sharing no word with the frame are never returned.
    public func rank(_ features: FeatureSet, limit: Int) -> [Int] {
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
                scores[Int(postingReference[p])] += q + r - abs(q - r)
            }
        }
        let ranked = scores.indices.filter { scores[$0] > 0 }.sorted { scores[$0] > scores[$1] || (scores[$0] == scores[$1] && $0 < $1) }
        return Array(ranked.prefix(limit))
    }
}
