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
    public enum Search: Equatable, Sendable {
        /// Every training descriptor is compared.
        case exact
        /// Only descriptors in the `probes` nearest leaves of a vocabulary tree trained on the
        /// training descriptors: 20–25 times faster for 25 references, and finds about four in
        /// five of the matches `exact` finds.
        case tree(branching: Int, depth: Int, probes: Int)

        public static let `default` = Search.tree(branching: 16, depth: 2, probes: 6)
    }

    private let handle: OpaquePointer
    private var scratch: [cs_match] = []
    public let setCount: Int

    public init(sets: [FeatureSet], search: Search = .default, seed: UInt64 = 1) {
        var options = cs_matcher_options(branching: 0, depth: 0, probes: 1, seed: seed)
        if case .tree(let branching, let depth, let probes) = search {
            precondition((2...32).contains(branching) && (1...8).contains(depth) && (1...16).contains(probes),
                         "tree search needs branching 2...32, depth 1...8, probes 1...16")
            options.branching = Int32(branching)
            options.depth = Int32(depth)
            options.probes = Int32(probes)
        }
        var out: OpaquePointer?
        let handles: [OpaquePointer?] = sets.map { $0.handle }
        handles.withUnsafeBufferPointer { buffer in
            checkInvariant { cs_matcher_create(buffer.baseAddress, buffer.count, &options, &out, $0) }
        }
        handle = out!
        setCount = sets.count
    }

    deinit { cs_matcher_destroy(handle) }

    /// Each query feature's nearest neighbour over the sets (or only the `enabled` ones),
    /// kept when it passes the ratio test against the second nearest and is within
    /// `maxDistance` bits. Disabled sets cost nothing: within each leaf the descriptors are
    /// grouped by set, so a search of 25 sets among 1,000 reads only those 25.
    ///
    /// A set that describes each detail several times (at neighbouring scales, in simulated
    /// views) would fail its own true matches: with `sameDetailRadius` > 0, a neighbour of the
    /// nearest's set closer to it than `sameDetailRadius` times the larger of their keypoint
    /// sizes is the same detail, not a rival, and the ratio test is against the nearest rival.
    public func match(_ query: FeatureSet, ratio: Double, maxDistance: Int, enabled: [Bool]? = nil,
                      sameDetailRadius: Double = 0) -> [FeatureMatch]
    {
        precondition(ratio > 0 && ratio <= 1, "the ratio test needs a ratio in (0, 1]")
        precondition(sameDetailRadius >= 0, "the same-detail radius cannot be negative")
        precondition(enabled == nil || enabled!.count == setCount, "one enabled flag per set")
        if scratch.count < query.count {
            scratch = [cs_match](repeating: cs_match(), count: query.count)
        }
        let flags = enabled?.map { UInt8($0 ? 1 : 0) }
        var n = 0
        scratch.withUnsafeMutableBufferPointer { buffer in
            flags.withUnsafeOptionalBufferPointer { enabledFlags in
                checkInvariant {
                    cs_matcher_match(handle, query.handle, enabledFlags, Float(ratio), Int32(maxDistance),
                                     Float(sameDetailRadius), buffer.baseAddress, buffer.count, &n, $0)
                }
            }
        }
        return scratch[0..<n].map {
            FeatureMatch(
                query: Int($0.query), set: Int($0.set), train: Int($0.train), distance: Int($0.distance),
                secondDistance: Int($0.second_distance))
        }
    }
}

extension Optional where Wrapped == [UInt8] {
    fileprivate func withUnsafeOptionalBufferPointer<R>(_ body: (UnsafePointer<UInt8>?) -> R) -> R {
        switch self {
        case .none: body(nil)
        case .some(let array): array.withUnsafeBufferPointer { body($0.baseAddress) }
        }
    }
}
