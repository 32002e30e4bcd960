import CSupport
import WaymarkCore

extension FeatureSet {
    /// Matches by projection: each of `train`'s features, mapped into this set's pixels by
    /// `homography`, is compared only with the features within `radius` pixels of where it
    /// lands whose size is within a factor `maxSizeRatio` of the size the homography predicts.
    /// Its nearest there is kept when within `maxDistance` bits and below `ratio` times the
    /// second nearest there; each of this set's features keeps the nearest train feature
    /// that chose it. Matches name this set as `query` and `train`'s features as `train`.
    public func matches(
        projecting train: FeatureSet, by homography: Homography, radius: Double, maxSizeRatio: Double, ratio: Double,
        maxDistance: Int
    ) -> [FeatureMatch] {
        precondition(radius > 0 && maxSizeRatio >= 1 && ratio > 0 && ratio <= 1,
                     "matching by projection needs radius > 0, maxSizeRatio ≥ 1 and a ratio in (0, 1]")
        let found = [cs_match](uninitializedCapacity: count) { buffer, n in
            homography.elements.withUnsafeBufferPointer { h in
                var written = 0
                checkInvariant {
                    cs_features_match_by_projection(
                        train.handle, handle, h.baseAddress, Float(radius), Float(maxSizeRatio), Float(ratio),
                        Int32(maxDistance), buffer.baseAddress, buffer.count, &written, $0)
                }
                n = written
            }
        }
        return found.map {
            FeatureMatch(query: Int($0.query), set: 0, train: Int($0.train), distance: Int($0.distance),
                         secondDistance: Int($0.second_distance))
        }
    }
}
