import CSupport

public struct FeatureMatch: Equatable, Sendable {
    public var query: Int
    /// Which of the index's training sets the match is in.
    public var set: Int
    public var train: Int
    public var distance: Int
    public var secondDistance: Int
}

/// Nearest-neighbour search over the descriptors of several feature sets at once.
public final class DescriptorIndex {
    private let handle: OpaquePointer
    private var scratch: [cs_match] = []

    public init(sets: [FeatureSet]) {
        var out: OpaquePointer?
        let handles: [OpaquePointer?] = sets.map { $0.handle }
        handles.withUnsafeBufferPointer { buffer in
            checkInvariant { cs_matcher_create(buffer.baseAddress, buffer.count, &out, $0) }
        }
        handle = out!
        // The sets' storage was copied; nothing else to keep.
    }

    deinit { cs_matcher_destroy(handle) }

    /// Each query feature's nearest neighbour over all sets, kept when it passes the ratio
    /// test against the second nearest and is within `maxDistance` bits.
    public func match(_ query: FeatureSet, ratio: Double, maxDistance: Int) -> [FeatureMatch] {
        precondition(ratio > 0 && ratio <= 1, "the ratio test needs a ratio in (0, 1]")
        if scratch.count < query.count {
            scratch = [cs_match](repeating: cs_match(), count: query.count)
        }
        var n = 0
        scratch.withUnsafeMutableBufferPointer { buffer in
            checkInvariant {
                cs_matcher_match(handle, query.handle, Float(ratio), Int32(maxDistance), buffer.baseAddress,
                                 buffer.count, &n, $0)
            }
        }
        return scratch[0..<n].map {
            FeatureMatch(
                query: Int($0.query), set: Int($0.set), train: Int($0.train), distance: Int($0.distance),
                secondDistance: Int($0.second_distance))
        }
    }
}
