import Foundation

/// Timestamped camera-to-world poses.
public struct Trajectory: Sendable {
    public struct Sample: Sendable {
        public var timestamp: Double
        public var pose: RigidTransform

        public init(timestamp: Double, pose: RigidTransform) {
            self.timestamp = timestamp
            self.pose = pose
        }
    }

    public var samples: [Sample]

    public init(samples: [Sample]) { self.samples = samples }

    public var positions: [SIMD3<Double>] {
        samples.map(\.pose.translationVector)
    }

    /// TUM format: "timestamp tx ty tz qx qy qz qw" lines, # comments; sorted by time.
    public init(tumFile path: String) throws(WaymarkError) {
        let rows = try TextRows.read(path)
        samples = try rows.enumerated().map { (number, words) throws(WaymarkError) in
            let values = words.compactMap { Double($0) }
            guard words.count == 8, values.count == 8 else {
                throw WaymarkError(.badData, "\(path), line \(number + 1): expected 'timestamp tx ty tz qx qy qz qw'")
            }
            try TimestampAssociation.check(values[0], at: "\(path), line \(number + 1)")
            guard values[1...3].allSatisfy(\.isFinite) else {
                throw WaymarkError(.badData, "\(path), line \(number + 1): the position is not finite")
            }
            guard let rotation = Self.rotation(quaternion: SIMD4(values[4], values[5], values[6], values[7])) else {
                throw WaymarkError(.badData, "\(path), line \(number + 1): not a unit quaternion")
            }
            return Sample(timestamp: values[0],
                          pose: RigidTransform(rotation: rotation, translation: [values[1], values[2], values[3]]))
        }.sorted { $0.timestamp < $1.timestamp }
    }

    /// KITTI format: a row-major 3×4 [R | t] per line; frame i gets `timestamps[i]`, else i.
    public init(kittiFile path: String, timestamps: [Double]? = nil) throws(WaymarkError) {
        let rows = try TextRows.read(path)
        if let timestamps, timestamps.count != rows.count {
            throw WaymarkError(.badData, "\(path) has \(rows.count) poses but \(timestamps.count) timestamps")
        }
        samples = try rows.enumerated().map { (number, words) throws(WaymarkError) in
            let v = words.compactMap { Double($0) }
            guard words.count == 12, v.count == 12 else {
                throw WaymarkError(.badData, "\(path), line \(number + 1): expected 12 numbers (a 3×4 matrix)")
            }
            return Sample(timestamp: timestamps?[number] ?? Double(number),
                          pose: RigidTransform(rotation: [v[0], v[1], v[2], v[4], v[5], v[6], v[8], v[9], v[10]],
                                               translation: [v[3], v[7], v[11]]))
        }
    }

    /// Pairs (index here, index in `other`) of samples closest in time, within
    /// `maximumDifference` seconds, each sample used once (`TimestampAssociation.pairs`).
    public func associated(with other: Trajectory, maximumDifference: Double = 0.01) -> [(Int, Int)] {
        TimestampAssociation.pairs(samples.map(\.timestamp), other.samples.map(\.timestamp), tolerance: maximumDifference)
    }

    /// Unit quaternion (x, y, z, w) of a row-major rotation matrix.
    public static func quaternion(_ r: [Double]) -> SIMD4<Double> {
        let trace = r[0] + r[4] + r[8]
        let q: SIMD4<Double>
        if trace > 0 {
            let s = (trace + 1).squareRoot() * 2
            q = SIMD4((r[7] - r[5]) / s, (r[2] - r[6]) / s, (r[3] - r[1]) / s, s / 4)
        } else if r[0] > r[4], r[0] > r[8] {
            let s = (1 + r[0] - r[4] - r[8]).squareRoot() * 2
            q = SIMD4(s / 4, (r[1] + r[3]) / s, (r[2] + r[6]) / s, (r[7] - r[5]) / s)
        } else if r[4] > r[8] {
            let s = (1 + r[4] - r[0] - r[8]).squareRoot() * 2
            q = SIMD4((r[1] + r[3]) / s, s / 4, (r[5] + r[7]) / s, (r[2] - r[6]) / s)
        } else {
            let s = (1 + r[8] - r[0] - r[4]).squareRoot() * 2
            q = SIMD4((r[2] + r[6]) / s, (r[5] + r[7]) / s, s / 4, (r[3] - r[1]) / s)
        }
        return q / (q * q).sum().squareRoot()
    }

    /// "timestamp tx ty tz qx qy qz qw\n", TUM's trajectory line.
    public static func tumLine(timestamp: Double, pose: RigidTransform) -> String {
        let t = pose.translation
        let q = quaternion(pose.rotation)
        return String(format: "%.6f %.6f %.6f %.6f %.9f %.9f %.9f %.9f\n", timestamp, t[0], t[1], t[2], q.x, q.y, q.z, q.w)
    }

    /// The trajectory in TUM format, with a comment line first.
    public var tumText: String {
        "# timestamp tx ty tz qx qy qz qw (camera-to-world)\n" + samples.map { Self.tumLine(timestamp: $0.timestamp, pose: $0.pose) }.joined()
    }

    /// Row-major rotation of a quaternion (x, y, z, w); nil unless it is close to unit length.
    public static func rotation(quaternion q: SIMD4<Double>) -> [Double]? {
        let norm = (q * q).sum().squareRoot()
        guard norm > 0.5, norm < 1.5 else { return nil }
        let (x, y, z, w) = (q.x / norm, q.y / norm, q.z / norm, q.w / norm)
        return [
            1 - 2 * (y * y + z * z), 2 * (x * y - z * w), 2 * (x * z + y * w),
            2 * (x * y + z * w), 1 - 2 * (x * x + z * z), 2 * (y * z - x * w),
            2 * (x * z - y * w), 2 * (y * z + x * w), 1 - 2 * (x * x + y * y),
        ]
    }
}
