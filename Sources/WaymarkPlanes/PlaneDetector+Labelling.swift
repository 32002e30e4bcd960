import WaymarkCore

extension PlaneDetector {
    /// Labels each pixel of a region's cells and their neighbours with the closest region plane
    /// within tolerance, favouring the region that owns the pixel's cell (so noise does not
    /// speckle two similar planes, while pixels along a seam still go to the surface they lie
    /// on). Returns the labels, each region's inlier moments, and its boundary pixels (leftmost
    /// and rightmost per image row).
    ///
    /// Cell by cell: a cell only one region can claim (the usual case) adds that region's cell
    /// moments less the pixels that fail the tolerance, so most pixels cost a distance and a
    /// comparison; cells several regions can claim are decided and summed pixel by pixel.
    func labelPixels(_ points: OrganizedPoints, grid: CellGrid, regions: [(plane: Plane, cells: [Int])])
        -> ([UInt16], [PointMoments], [[SIMD3<Double>]])
    {
        let width = points.width
        let height = points.height
        var labels = [UInt16](repeating: 0, count: width * height)
        var moments = [PointMoments](repeating: PointMoments(), count: regions.count)
        var leftmost = [Int](repeating: Int.max, count: regions.count * height)
        var rightmost = [Int](repeating: -1, count: regions.count * height)
        var owner = [Int](repeating: -1, count: grid.moments.count)
        for (index, region) in regions.enumerated() { for cell in region.cells { owner[cell] = index } }
        let normals = regions.map { SIMD3<Float>($0.plane.normal) }
        let offsets = regions.map { Float($0.plane.offset) }
        let toleranceBase = Float(options.tolerance.base)
        let toleranceSlope = Float(options.tolerance.perSquareMetre)
        var claimants: [Int] = []
        points.x.withUnsafeBufferPointer { xs in
            points.y.withUnsafeBufferPointer { ys in
                points.z.withUnsafeBufferPointer { zs in
                    labels.withUnsafeMutableBufferPointer { labels in
                        @inline(__always) func extend(_ region: Int, row: Int, from low: Int, to high: Int) {
                            let slot = region * height + row
                            if low < leftmost[slot] { leftmost[slot] = low }
                            if high > rightmost[slot] { rightmost[slot] = high }
                        }
                        for cell in grid.moments.indices where grid.moments[cell].count > 0 {
                            // The regions that own this cell or one of its neighbours.
                            claimants.removeAll(keepingCapacity: true)
                            if owner[cell] >= 0 { claimants.append(owner[cell]) }
                            grid.forEachNeighbour(of: cell) { neighbour in
                                let region = owner[neighbour]
                                if region >= 0, !claimants.contains(region) { claimants.append(region) }
                            }
                            guard !claimants.isEmpty else { continue }
                            let r0 = (cell / grid.columns) * grid.size
                            let c0 = (cell % grid.columns) * grid.size
                            let rows = r0..<min(r0 + grid.size, height)
                            let columns = c0..<min(c0 + grid.size, width)
                            if claimants.count == 1 {
                                let region = claimants[0]
                                let (n, d) = (normals[region], offsets[region])
                                let label = UInt16(region + 1)
                                var failing = PointMoments()
                                for row in rows {
                                    let base = row * width
                                    var low = Int.max
                                    var high = -1
                                    for column in columns {
                                        let i = base + column
                                        let z = zs[i]
                                        guard z == z else { continue }
                                        let distance = abs(n.x * xs[i] + n.y * ys[i] + n.z * z + d)
                                        if distance <= toleranceBase + toleranceSlope * z * z {
                                            labels[i] = label
                                            if low == Int.max { low = column }
                                            high = column
                                        } else {
                                            failing.add(Double(xs[i]), Double(ys[i]), Double(z))
                                        }
                                    }
                                    if high >= 0 { extend(region, row: row, from: low, to: high) }
                                }
                                if failing.count < grid.moments[cell].count {
                                    moments[region] += grid.moments[cell].removing(failing)
                                }
                                continue
                            }
                            for row in rows {
                                let base = row * width
                                for column in columns {
                                    let i = base + column
                                    let z = zs[i]
                                    guard z == z else { continue }
                                    var best = -1
                                    var bestWeighed = Float.infinity
                                    for region in claimants {
                                        let n = normals[region]
                                        let distance = abs(n.x * xs[i] + n.y * ys[i] + n.z * z + offsets[region])
                                        // A region's own cells count its distance at half.
                                        let weighed = owner[cell] == region ? distance * 0.5 : distance
                                        if distance <= toleranceBase + toleranceSlope * z * z, weighed < bestWeighed {
                                            best = region
                                            bestWeighed = weighed
                                        }
                                    }
                                    guard best >= 0 else { continue }
                                    labels[i] = UInt16(best + 1)
                                    moments[best].add(Double(xs[i]), Double(ys[i]), Double(z))
                                    extend(best, row: row, from: column, to: column)
                                }
                            }
                        }
                    }
                }
            }
        }
        var boundaries = [[SIMD3<Double>]](repeating: [], count: regions.count)
        for index in regions.indices {
            for row in 0..<height where rightmost[index * height + row] >= 0 {
                boundaries[index].append(points.point(row * width + leftmost[index * height + row]))
                boundaries[index].append(points.point(row * width + rightmost[index * height + row]))
            }
        }
        return (labels, moments, boundaries)
    }
}
