/// Solves H x = g for a symmetric positive definite `size`×`size` H (row-major; only its upper
/// triangle is read), by Cholesky; nil when H is singular or not positive definite.
public func solveSymmetricPositiveDefinite(_ h: [Double], _ g: [Double], size n: Int) -> [Double]? {
    var l = [Double](repeating: 0, count: n * n)
    for i in 0..<n {
        for j in 0...i {
            var sum = h[j * n + i]
            for m in 0..<j { sum -= l[i * n + m] * l[j * n + m] }
            if i == j {
                guard sum > 1e-12 else { return nil }
                l[i * n + i] = sum.squareRoot()
            } else {
                l[i * n + j] = sum / l[j * n + j]
            }
        }
    }
    var y = [Double](repeating: 0, count: n)
    for i in 0..<n {
        var sum = g[i]
        for m in 0..<i { sum -= l[i * n + m] * y[m] }
        y[i] = sum / l[i * n + i]
    }
    var x = [Double](repeating: 0, count: n)
    for i in stride(from: n - 1, through: 0, by: -1) {
        var sum = y[i]
        for m in (i + 1)..<n { sum -= l[m * n + i] * x[m] }
        x[i] = sum / l[i * n + i]
    }
    return x
}
