/// Pairs two streams' samples by time: the one place the engine decides which colour image
/// goes with which depth image, and which recorded pose with which frame.
public enum TimestampAssociation {
    /// The tolerance of TUM's associate.py, which the TUM RGB-D benchmark's tools use: 20 ms.
    public static let defaultTolerance = 0.02

    /// Timestamps are seconds; beyond 10^11 (the year 5138 as a Unix time) a number is not one,
    /// and differences between such numbers lose the milliseconds pairing works in.
    public static let largestTimestamp = 1e11

    /// Refuses a timestamp that is not a finite number of seconds within `largestTimestamp`.
    public static func check(_ timestamp: Double, at location: String) throws(WaymarkError) {
        guard timestamp.isFinite, abs(timestamp) <= largestTimestamp else {
            throw WaymarkError(.badData, "\(location): timestamp \(timestamp) is not a time in seconds")
        }
    }

    /// Index pairs (into `first`, into `second`) of timestamps less than `tolerance` seconds apart,
    /// each timestamp used at most once and the closest pairs chosen first, as associate.py
    /// chooses them; in increasing order of `first`'s index. Neither list need be sorted;
    /// non-finite timestamps pair with nothing.
    public static func pairs(_ first: [Double], _ second: [Double], tolerance: Double = defaultTolerance) -> [(Int, Int)] {
        let order = second.indices.filter { second[$0].isFinite }.sorted { second[$0] < second[$1] }
        var candidates: [(difference: Double, first: Int, second: Int)] = []
        for (i, t) in first.enumerated() where t.isFinite {
            var position = lowerBound(of: t - tolerance, in: order, times: second)
            while position < order.count, second[order[position]] < t + tolerance {
                let difference = abs(second[order[position]] - t)
                if difference < tolerance { candidates.append((difference, i, order[position])) }
                position += 1
            }
        }
        // Ties go to the earlier samples, so the result does not depend on the sort's stability.
        candidates.sort { ($0.difference, $0.first, $0.second) < ($1.difference, $1.first, $1.second) }
        var firstUsed = Set<Int>()
        var secondUsed = Set<Int>()
        var chosen: [(Int, Int)] = []
        for candidate in candidates where !firstUsed.contains(candidate.first) && !secondUsed.contains(candidate.second) {
            firstUsed.insert(candidate.first)
            secondUsed.insert(candidate.second)
            chosen.append((candidate.first, candidate.second))
        }
        return chosen.sorted { $0.0 < $1.0 }
    }

    /// For each of `first`'s timestamps, the index of its partner in `second`, or nil.
    public static func partners(of first: [Double], in second: [Double], tolerance: Double = defaultTolerance) -> [Int?] {
        var partners = [Int?](repeating: nil, count: first.count)
        for (i, j) in pairs(first, second, tolerance: tolerance) { partners[i] = j }
        return partners
    }

    private static func lowerBound(of value: Double, in order: [Int], times: [Double]) -> Int {
        var low = 0
        var high = order.count
        while low < high {
            let middle = (low + high) / 2
            if times[order[middle]] < value { low = middle + 1 } else { high = middle }
        }
        return low
    }
}
