import Foundation

/// Monotonic wall-clock time in milliseconds.
func milliseconds<T>(_ body: () throws -> T) rethrows -> (T, Double) {
    let start = DispatchTime.now().uptimeNanoseconds
    let value = try body()
    return (value, Double(DispatchTime.now().uptimeNanoseconds - start) / 1e6)
}

struct Summary: Codable {
    var median: Double
    var p90: Double
    var count: Int

    init(_ values: [Double]) {
        let sorted = values.sorted()
        count = sorted.count
        median = sorted.isEmpty ? .nan : Self.quantile(sorted, 0.5)
        p90 = sorted.isEmpty ? .nan : Self.quantile(sorted, 0.9)
    }

    private static func quantile(_ sorted: [Double], _ q: Double) -> Double {
        let position = q * Double(sorted.count - 1)
        let low = Int(position.rounded(.down))
        let high = min(sorted.count - 1, low + 1)
        let t = position - Double(low)
        // Failures are recorded as infinity; interpolating towards one must not give NaN.
        return t == 0 || sorted[high] == sorted[low] ? sorted[low] : sorted[low] * (1 - t) + sorted[high] * t
    }
}

func format(_ value: Double, _ digits: Int = 2) -> String { String(format: "%.\(digits)f", value) }
