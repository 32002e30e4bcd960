import CSupport

/// Visual words: a tree over binary descriptors that maps each feature to one word, for
/// bag-of-words retrieval.
public final class Vocabulary {
    private let handle: OpaquePointer
    public let wordCount: Int

    /// Trains on the descriptors of `sets` (an even sample of at most `maxTraining`).
    /// `branching`^`depth` bounds the number of words.
    public init(training sets: [FeatureSet], branching: Int = 10, depth: Int = 4, maxTraining: Int = 200_000,
                seed: UInt64 = 1)
    {
        precondition((2...32).contains(branching) && (1...8).contains(depth), "branching 2...32, depth 1...8")
        precondition(sets.contains { $0.count > 0 }, "a vocabulary needs descriptors to train on")
        var out: OpaquePointer?
        let handles: [OpaquePointer?] = sets.map { $0.handle }
        handles.withUnsafeBufferPointer { buffer in
            checkInvariant {
                cs_vocabulary_create(buffer.baseAddress, buffer.count, Int32(branching), Int32(depth), maxTraining, seed,
                                     &out, $0)
            }
        }
        handle = out!
        var n = 0
        checkInvariant { cs_vocabulary_get_word_count(out, &n, $0) }
        wordCount = n
    }

    deinit { cs_vocabulary_destroy(handle) }

    /// The word of each feature, in order.
    public func words(of features: FeatureSet) -> [UInt32] {
        [UInt32](uninitializedCapacity: features.count) { buffer, n in
            checkInvariant { cs_vocabulary_quantize(handle, features.handle, buffer.baseAddress, buffer.count, $0) }
            n = buffer.count
        }
    }
}
