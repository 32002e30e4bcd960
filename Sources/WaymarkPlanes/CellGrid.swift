import WaymarkCore

/// Square pixel cells over an organized point grid, each with the least-squares plane of its
/// points. Planar cells are the data the organized plane search runs RANSAC over: one cell is a
/// minimal sample, and its moments let a whole plane be refitted without touching pixels again.
struct CellGrid {
    let size: Int
    let columns: Int
    let rows: Int
    var moments: [PointMoments]
    /// Per cell, for scoring planes without the pixels: centroid and covariance.
    var centroids: [SIMD3<Double>]
    var covariances: [SymmetricMatrix3]
    /// Valid points in all cells.
    var validCount = 0.0
    /// Per cell: its plane (normal towards the sensor) and whether it is planar.
    var normals: [SIMD3<Double>]
    var offsets: [Double]
    var planar: [Bool]

    /// Cosine of the steepest view of a surface a cell may have: 78°.
    static let minimumFacing = 0.2

    init(points: OrganizedPoints, size: Int, tolerance: DistanceTolerance) {
        self.size = size
        columns = (points.width + size - 1) / size
        rows = (points.height + size - 1) / size
        let count = columns * rows
        moments = [PointMoments](repeating: PointMoments(), count: count)
        centroids = [SIMD3<Double>](repeating: .zero, count: count)
        covariances = [SymmetricMatrix3](repeating: SymmetricMatrix3(xx: 0, xy: 0, xz: 0, yy: 0, yz: 0, zz: 0), count: count)
        normals = [SIMD3<Double>](repeating: .zero, count: count)
        offsets = [Double](repeating: 0, count: count)
        planar = [Bool](repeating: false, count: count)
        let width = points.width
        let height = points.height
        points.x.withUnsafeBufferPointer { xs in
            points.y.withUnsafeBufferPointer { ys in
                points.z.withUnsafeBufferPointer { zs in
                    for cellRow in 0..<rows {
                        let rowRange = (cellRow * size)..<min(cellRow * size + size, height)
                        for cellColumn in 0..<columns {
                            let columnRange = (cellColumn * size)..<min(cellColumn * size + size, width)
                            let cell = cellRow * columns + cellColumn
                            let cellMoments = Self.accumulate(xs, ys, zs, width: width, rows: rowRange, columns: columnRange)
                            moments[cell] = cellMoments
                            validCount += cellMoments.count
                            let pixels = Double(rowRange.count * columnRange.count)
                            guard cellMoments.count >= max(6, pixels / 2) else { continue }
                            centroids[cell] = cellMoments.centroid
                            covariances[cell] = cellMoments.covariance
                            guard let fit = cellMoments.fitPlane() else { continue }
                            let plane = fit.plane.facing(.zero)
                            let depth = Float(centroids[cell].z)
                            normals[cell] = plane.normal
                            offsets[cell] = plane.offset
                            let noise = 0.5 * Double(tolerance.at(depth: depth))
                            // A plane seen almost edge-on is what a cell straddling a depth
                            // jump fits (two strips at two depths); real surfaces that steep
                            // are too noisy to use.
                            let facing = abs((plane.normal * normalize(moments[cell].centroid)).sum())
                            planar[cell] = fit.meanSquaredDistance <= noise * noise && facing >= Self.minimumFacing
                        }
                    }
                }
            }
        }
    }

    /// Moments of one cell's valid points, summed in Float about the first point (exact
    /// enough for a hundred points) and returned in Double about the origin.
    private static func accumulate(
        _ xs: UnsafeBufferPointer<Float>, _ ys: UnsafeBufferPointer<Float>, _ zs: UnsafeBufferPointer<Float>,
        width: Int, rows: Range<Int>, columns: Range<Int>
    ) -> PointMoments {
        var origin: SIMD3<Float>?
        search: for row in rows {
            for column in columns where zs[row * width + column] == zs[row * width + column] {
                let i = row * width + column
                origin = SIMD3(xs[i], ys[i], zs[i])
                break search
            }
        }
        guard let origin else { return PointMoments() }
        var n: Float = 0
        var s = SIMD3<Float>.zero
        var sxx: Float = 0, sxy: Float = 0, sxz: Float = 0, syy: Float = 0, syz: Float = 0, szz: Float = 0
        for row in rows {
            let base = row * width
            for column in columns {
                let i = base + column
                let z = zs[i]
                guard z == z else { continue }
                let d = SIMD3(xs[i], ys[i], z) - origin
                n += 1
                s += d
                sxx += d.x * d.x
                sxy += d.x * d.y
                sxz += d.x * d.z
                syy += d.y * d.y
                syz += d.y * d.z
                szz += d.z * d.z
            }
        }
        // Shift the moments from `origin` back to the coordinate origin.
        let o = SIMD3<Double>(origin)
        let sum = SIMD3<Double>(s)
        var m = PointMoments()
        m.count = Double(n)
        m.sum = sum + m.count * o
        m.products = (
            Double(sxx) + 2 * o.x * sum.x + m.count * o.x * o.x,
            Double(sxy) + o.x * sum.y + o.y * sum.x + m.count * o.x * o.y,
            Double(sxz) + o.x * sum.z + o.z * sum.x + m.count * o.x * o.z,
            Double(syy) + 2 * o.y * sum.y + m.count * o.y * o.y,
            Double(syz) + o.y * sum.z + o.z * sum.y + m.count * o.y * o.z,
            Double(szz) + 2 * o.z * sum.z + m.count * o.z * o.z
        )
        return m
    }

    /// The 8 neighbours of a cell that lie inside the grid.
    func forEachNeighbour(of cell: Int, _ body: (Int) -> Void) {
        let r = cell / columns
        let c = cell % columns
        for dr in -1...1 {
            let nr = r + dr
            guard nr >= 0, nr < rows else { continue }
            for dc in -1...1 where dr != 0 || dc != 0 {
                let nc = c + dc
                guard nc >= 0, nc < columns else { continue }
                body(nr * columns + nc)
            }
        }
    }
}

/// RANSAC over planar cells: a sample is one cell's plane; a cell is an inlier when its normal
/// agrees and its points lie within the tolerance of the plane; refits sum cell moments.
struct CellPlaneProblem: RansacProblem {
    let grid: CellGrid
    let tolerance: DistanceTolerance
    let minimumCosine: Double

    var sampleSize: Int { 1 }

    func model(fromSample sample: [Int]) -> Plane? {
        let cell = sample[0]
        return Plane(normal: grid.normals[cell], offset: grid.offsets[cell])
    }

    @inline(__always)
    func isInlier(_ cell: Int, of plane: Plane) -> Bool {
        guard (grid.normals[cell] * plane.normal).sum() >= minimumCosine else { return false }
        let limit = Double(tolerance.at(depth: Float(grid.centroids[cell].z)))
        let shift = plane.signedDistance(to: grid.centroids[cell])
        return grid.covariances[cell].quadraticForm(plane.normal) + shift * shift <= limit * limit
    }

    func weight(of cell: Int) -> Double { grid.moments[cell].count }

    func refit(inliers: [Int]) -> Plane? {
        var total = PointMoments()
        for cell in inliers { total += grid.moments[cell] }
        return total.fitPlane()?.plane.facing(.zero)
    }
}
