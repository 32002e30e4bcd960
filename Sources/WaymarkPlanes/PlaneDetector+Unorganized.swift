import WaymarkCore

extension PlaneDetector {
    /// Sequential RANSAC on 3-point samples; the inliers of each plane are split into
    /// connected pieces (points within `neighbourDistance`), and each large piece is refitted.
    /// The tolerance is taken at each point's distance from the origin (the sensor).
    func detect(inUnorganized points: [SIMD3<Float>], down: SIMD3<Double>) -> PlaneDetection {
        let down = normalize(down)
        var labels = [UInt16](repeating: 0, count: points.count)
        let valid = points.indices.filter { PointCloud.isValid(points[$0]) }
        let minimum = max(options.minimumPoints, Int(options.minimumShare * Double(valid.count)))
        let problem = PointPlaneProblem(points: points, tolerance: options.tolerance)
        var pool = valid
        var found: [(label: Int, plane: DetectedPlane)] = []
        var round: UInt64 = 0
        while found.count < options.maximumPlanes {
            round += 1
            let ransacOptions = RansacOptions(confidence: 0.999, maximumIterations: 1000, seed: options.seed &+ round)
            guard let report = ransac(problem, count: points.count, candidates: pool, options: ransacOptions),
                report.inliers.count >= minimum
            else { break }
            for piece in connectedPieces(of: report.inliers, points: points) where piece.count >= minimum {
                var moments = PointMoments()
                for i in piece { moments.add(Double(points[i].x), Double(points[i].y), Double(points[i].z)) }
                guard let plane = PlaneOutline.make(
                    inliers: moments, boundaryPoints: piece.map { SIMD3<Double>(points[$0]) }, down: down,
                    alignmentToleranceDegrees: options.alignmentToleranceDegrees)
                else { continue }
                let label = found.count + 1
                for i in piece { labels[i] = UInt16(label) }
                found.append((label, plane))
                if found.count == options.maximumPlanes { break }
            }
            let taken = Set(report.inliers)
            pool.removeAll { taken.contains($0) }
        }
        return finish(found, labels: &labels, regionCount: found.count, down: down)
    }

    /// Groups points into pieces linked by steps shorter than `neighbourDistance`, through a
    /// hash of cubic voxels of that size (neighbouring voxels count as linked).
    private func connectedPieces(of indices: [Int], points: [SIMD3<Float>]) -> [[Int]] {
        let size = Float(options.neighbourDistance)
        // Valid points (within PointCloud.maximumCoordinate) and a validated distance keep these
        // within 10^12 voxels of the origin.
        struct Voxel: Hashable {
            var x, y, z: Int64
        }
        var voxels: [Voxel: [Int]] = [:]
        for i in indices {
            let p = (points[i] / size).rounded(.down)
            voxels[Voxel(x: Int64(p.x), y: Int64(p.y), z: Int64(p.z)), default: []].append(i)
        }
        var seen = Set<Voxel>()
        var pieces: [[Int]] = []
        for start in voxels.keys where !seen.contains(start) {
            seen.insert(start)
            var queue = [start]
            var piece: [Int] = []
            while let voxel = queue.popLast() {
                piece += voxels[voxel]!
                for dx in Int64(-1)...1 {
                    for dy in Int64(-1)...1 {
                        for dz in Int64(-1)...1 {
                            let next = Voxel(x: voxel.x + dx, y: voxel.y + dy, z: voxel.z + dz)
                            if voxels[next] != nil, seen.insert(next).inserted { queue.append(next) }
                        }
                    }
                }
            }
            pieces.append(piece.sorted())
        }
        return pieces.sorted { $0.count != $1.count ? $0.count > $1.count : $0[0] < $1[0] }
    }
}

/// RANSAC over points: three points make a plane; a point is an inlier within the tolerance.
struct PointPlaneProblem: RansacProblem {
    let points: [SIMD3<Float>]
    let tolerance: DistanceTolerance

    var sampleSize: Int { 3 }

    func model(fromSample sample: [Int]) -> Plane? {
        let a = SIMD3<Double>(points[sample[0]])
        let normal = cross(SIMD3<Double>(points[sample[1]]) - a, SIMD3<Double>(points[sample[2]]) - a)
        guard (normal * normal).sum() > 1e-18 else { return nil }
        return Plane(normal: normal, offset: -(normal * a).sum())
    }

    func isInlier(_ index: Int, of plane: Plane) -> Bool {
        let p = points[index]
        let distance = abs(Float(plane.normal.x) * p.x + Float(plane.normal.y) * p.y + Float(plane.normal.z) * p.z
            + Float(plane.offset))
        let range = (p * p).sum().squareRoot()
        return distance <= tolerance.at(depth: range)
    }

    func refit(inliers: [Int]) -> Plane? {
        var moments = PointMoments()
        for i in inliers { moments.add(Double(points[i].x), Double(points[i].y), Double(points[i].z)) }
        return moments.fitPlane()?.plane
    }
}
