import WaymarkCore

/// A TUM recording's `accelerometer.txt` ("timestamp ax ay az", m/s²): the Kinect's
/// accelerometer, whose axes are the colour camera's with x and y reversed (x left, y up,
/// z forward), reading the specific force: +9.8 m/s² upwards at rest. Gravity in the camera's
/// coordinates (x right, y down, z forward) is therefore (ax, ay, −az), normalized. Checked on
/// TUM fr1/xyz: carried into the motion-capture world by the recorded orientations, the
/// 15,000 samples point within 4° of the world's −z (spread 4° per sample, the hand's own
/// acceleration); with y not reversed they point along a horizontal axis, with x not reversed
/// they spread 6°.
public struct AccelerometerLog: Sendable {
    public let timestamps: [Double]
    /// Gravity in camera coordinates per sample, not normalized.
    let gravity: [SIMD3<Double>]

    /// Samples within this many seconds of a frame's time are averaged for it: the sensor's
    /// noise and the hand's short jolts average out; the camera turns little in that time.
    public static let window = 0.05

    /// Samples in time order; a row that is not four numbers, or a time that is not a time in
    /// seconds, is refused.
    public init(contentsOf path: String) throws(WaymarkError) {
        var samples: [(Double, SIMD3<Double>)] = []
        for (number, words) in try TextRows.read(path).enumerated() {
            let values = words.prefix(4).compactMap { Double($0) }
            guard words.count >= 4, values.count == 4, values[1...].allSatisfy(\.isFinite) else {
                throw WaymarkError(.badData, "\(path), line \(number + 1): expected 'timestamp ax ay az'")
            }
            try TimestampAssociation.check(values[0], at: "\(path), line \(number + 1)")
            samples.append((values[0], SIMD3(values[1], values[2], -values[3])))
        }
        self.init(samples: samples)
    }

    /// Samples of gravity in the camera's coordinates (any length), at their times in seconds.
    public init(samples: [(timestamp: Double, gravity: SIMD3<Double>)]) {
        let sorted = samples.sorted { $0.timestamp < $1.timestamp }
        timestamps = sorted.map(\.timestamp)
        gravity = sorted.map(\.gravity)
    }

    /// The direction of gravity in the camera's coordinates at `time` (unit length): the mean
    /// of the samples within `window`; nil when there are none, or they cancel out.
    public func gravity(at time: Double) -> SIMD3<Double>? {
        var low = 0, high = timestamps.count
        while low < high {
            let middle = (low + high) / 2
            if timestamps[middle] < time - Self.window { low = middle + 1 } else { high = middle }
        }
        var sum = SIMD3<Double>.zero
        var k = low
        while k < timestamps.count, timestamps[k] <= time + Self.window {
            sum += gravity[k]
            k += 1
        }
        let length = (sum * sum).sum().squareRoot()
        return length > 0 ? sum / length : nil
    }
}
