import WaymarkCore
import WaymarkVision

/// The planes found in one input.
public struct PlaneDetection: Sendable {
    /// Largest first.
    public var planes: [DetectedPlane]
    /// Per pixel (organized input) or per point (unorganized): 0 for no plane, k for `planes[k - 1]`.
    public var labels: [UInt16]
}

/// Finds every significant plane in a depth map or point cloud: seeded RANSAC, connected
/// regions split apart, least-squares refits on the inliers, outlines, and gravity alignment.
///
/// Organized input (depth maps, organized clouds) is searched through cells: each square of
/// `cellSize` pixels gets its own least-squares plane; RANSAC draws single planar cells as
/// samples and scores planes by the pixels of the cells that agree; each connected region of
/// agreeing cells becomes a plane; then every pixel of those cells and their neighbours is
/// tested against its plane, and the plane is refitted on the pixels that pass.
public struct PlaneDetector: Sendable {
    public let options: PlaneDetectionOptions

    public init(options: PlaneDetectionOptions = PlaneDetectionOptions()) throws(WaymarkError) {
        self.options = try options.validated()
    }

    /// `down` is gravity's direction in the input's coordinates; a camera's +y by default.
    public func detect(in depth: DepthImage, intrinsics: Intrinsics, down: SIMD3<Double> = SIMD3(0, 1, 0))
        -> PlaneDetection
    {
        detect(in: OrganizedPoints(depth: depth, intrinsics: intrinsics), down: down)
    }

    public func detect(in cloud: PointCloud, down: SIMD3<Double> = SIMD3(0, 1, 0)) -> PlaneDetection {
        if let grid = cloud.organizedPoints { return detect(in: grid, down: down) }
        return detect(inUnorganized: cloud.points, down: down)
    }

    public func detect(in points: OrganizedPoints, down: SIMD3<Double> = SIMD3(0, 1, 0)) -> PlaneDetection {
        let down = normalize(down)
        let grid = CellGrid(points: points, size: options.cellSize, tolerance: options.tolerance)
        let minimum = Double(max(options.minimumPoints, Int(options.minimumShare * grid.validCount)))
        let regions = planarRegions(in: grid, points: points, minimumPixels: minimum)
        let (pixelLabels, moments, boundaries) = labelPixels(points, grid: grid, regions: regions)
        var labels = pixelLabels
        var found: [(label: Int, plane: DetectedPlane)] = []
        for index in regions.indices where moments[index].count >= minimum {
            guard let plane = PlaneOutline.make(
                inliers: moments[index], boundaryPoints: boundaries[index], down: down,
                alignmentToleranceDegrees: options.alignmentToleranceDegrees)
            else { continue }
            found.append((index + 1, plane))
        }
        return finish(found, labels: &labels, regionCount: regions.count, down: down)
    }

    /// Orders planes largest first, renumbers the labels to match, and classifies the surfaces.
    func finish(_ found: [(label: Int, plane: DetectedPlane)], labels: inout [UInt16], regionCount: Int,
                down: SIMD3<Double>) -> PlaneDetection
    {
        let ordered = found.sorted { $0.plane.inlierCount > $1.plane.inlierCount }
        var renumber = [UInt16](repeating: 0, count: regionCount + 1)
        for (rank, entry) in ordered.enumerated() { renumber[entry.label] = UInt16(rank + 1) }
        if renumber != (0...regionCount).map({ UInt16($0) }) {
            renumber.withUnsafeBufferPointer { renumber in
                labels.withUnsafeMutableBufferPointer { labels in
                    for i in labels.indices where labels[i] != 0 { labels[i] = renumber[Int(labels[i])] }
                }
            }
        }
        var planes = ordered.map(\.plane)
        SurfaceClassifier.classify(&planes, down: down)
        return PlaneDetection(planes: planes, labels: labels)
    }

    /// Sequential RANSAC over planar cells; each connected region of a plane's cells that is
    /// large enough becomes a region of its own.
    private func planarRegions(in grid: CellGrid, points: OrganizedPoints, minimumPixels: Double)
        -> [(plane: Plane, cells: [Int])]
    {
        var pool = grid.planar.indices.filter { grid.planar[$0] }
        let problem = CellPlaneProblem(
            grid: grid, tolerance: options.tolerance,
            minimumCosine: cos(options.maximumCellAngleDegrees * .pi / 180))
        var regions: [(plane: Plane, cells: [Int])] = []
        var round: UInt64 = 0
        var member = [Bool](repeating: false, count: grid.moments.count)
        while regions.count < options.maximumPlanes {
            round += 1
            let ransacOptions = RansacOptions(
                confidence: 0.99, maximumIterations: 100, refinementRounds: 3, screening: 100, seed: options.seed &+ round)
            guard let report = ransac(problem, count: grid.moments.count, candidates: pool, options: ransacOptions),
                report.score >= minimumPixels
            else { break }
            for cell in report.inliers { member[cell] = true }
            let pieces = connectedComponents(of: report.inliers, member: &member, grid: grid)
            for component in joinOccludedPieces(pieces, of: report.model, points: points, grid: grid) {
                var total = PointMoments()
                for cell in component { total += grid.moments[cell] }
                guard total.count >= minimumPixels, let fit = total.fitPlane() else { continue }
                regions.append((fit.plane.facing(.zero), component))
                if regions.count == options.maximumPlanes { break }
            }
            let taken = Set(report.inliers)
            pool.removeAll { taken.contains($0) }
        }
        return mergeCoplanarNeighbours(regions, grid: grid, problem: problem)
    }

    /// Sequential RANSAC can cut one surface in two when an early, slightly wrong plane takes
    /// part of it. Neighbouring regions merge when one plane fitted to both keeps 95% of
    /// the cells of each within the tolerance.
    private func mergeCoplanarNeighbours(
        _ regions: [(plane: Plane, cells: [Int])], grid: CellGrid, problem: CellPlaneProblem
    ) -> [(plane: Plane, cells: [Int])] {
        var regions = regions
        var owner = [Int](repeating: -1, count: grid.moments.count)
        func assignOwners() {
            owner = [Int](repeating: -1, count: grid.moments.count)
            for (index, region) in regions.enumerated() { for cell in region.cells { owner[cell] = index } }
        }
        assignOwners()
        var merged = true
        while merged {
            merged = false
            search: for a in regions.indices {
                var neighbours = Set<Int>()
                for cell in regions[a].cells {
                    grid.forEachNeighbour(of: cell) { if owner[$0] > a { neighbours.insert(owner[$0]) } }
                }
                for b in neighbours.sorted() {
                    let cells = regions[a].cells + regions[b].cells
                    guard let plane = problem.refit(inliers: cells) else { continue }
                    func keepsMost(_ region: [Int]) -> Bool {
                        var kept = 0.0
                        var total = 0.0
                        for cell in region {
                            total += problem.weight(of: cell)
                            if problem.isInlier(cell, of: plane) { kept += problem.weight(of: cell) }
                        }
                        return kept >= 0.95 * total
                    }
                    if keepsMost(regions[a].cells), keepsMost(regions[b].cells) {
                        regions[a] = (plane, cells)
                        regions.remove(at: b)
                        assignOwners()
                        merged = true
                        break search
                    }
                }
            }
        }
        return regions
    }

    /// Pieces of one plane that are apart only because something stands in front of the plane
    /// (objects on a table) are one surface; pieces with a view past the plane between them
    /// (the floor between a table and a sofa) stay separate. Two pieces join when the image
    /// line between their closest cells shows nothing behind the plane.
    private func joinOccludedPieces(_ pieces: [[Int]], of plane: Plane, points: OrganizedPoints, grid: CellGrid)
        -> [[Int]]
    {
        guard pieces.count > 1 else { return pieces }
        var root = Array(pieces.indices)
        func find(_ i: Int) -> Int {
            var i = i
            while root[i] != i { i = root[i] }
            return i
        }
        for a in pieces.indices {
            for b in (a + 1)..<pieces.count where find(a) != find(b) {
                let (cellA, cellB) = closestCells(pieces[a], pieces[b], grid: grid)
                if lineShowsNothingBehind(plane, from: cellA, to: cellB, points: points, grid: grid) {
                    root[find(b)] = find(a)
                }
            }
        }
        var groups: [Int: [Int]] = [:]
        for index in pieces.indices { groups[find(index), default: []] += pieces[index] }
        return groups.keys.sorted().map { groups[$0]! }
    }

    private func closestCells(_ a: [Int], _ b: [Int], grid: CellGrid) -> (Int, Int) {
        var best = (a[0], b[0], Int.max)
        for i in a {
            let (ri, ci) = (i / grid.columns, i % grid.columns)
            for j in b {
                let (dr, dc) = (j / grid.columns - ri, j % grid.columns - ci)
                let distance = dr * dr + dc * dc
                if distance < best.2 { best = (i, j, distance) }
            }
        }
        return (best.0, best.1)
    }

    /// Walks the pixels between two cell centres: true when at most 2% of the valid ones lie
    /// behind the plane (farther than it along their ray, beyond the tolerance).
    private func lineShowsNothingBehind(_ plane: Plane, from a: Int, to b: Int, points: OrganizedPoints, grid: CellGrid)
        -> Bool
    {
        let half = grid.size / 2
        let start = SIMD2(Double((a % grid.columns) * grid.size + half), Double((a / grid.columns) * grid.size + half))
        let end = SIMD2(Double((b % grid.columns) * grid.size + half), Double((b / grid.columns) * grid.size + half))
        let steps = Int(max(abs(end.x - start.x), abs(end.y - start.y)))
        guard steps > 0 else { return true }
        let n = SIMD3<Float>(plane.normal)
        let d = Float(plane.offset)
        var valid = 0
        var behind = 0
        for step in 0...steps {
            let p = start + (end - start) * (Double(step) / Double(steps))
            let column = min(points.width - 1, Int(p.x))
            let row = min(points.height - 1, Int(p.y))
            let i = row * points.width + column
            let z = points.z[i]
            guard z == z else { continue }
            valid += 1
            if n.x * points.x[i] + n.y * points.y[i] + n.z * z + d < -options.tolerance.at(depth: z) { behind += 1 }
        }
        return behind * 50 <= valid
    }

    /// 8-connected components of `cells`; clears `member` for them as it goes.
    private func connectedComponents(of cells: [Int], member: inout [Bool], grid: CellGrid) -> [[Int]] {
        var components: [[Int]] = []
        for start in cells where member[start] {
            member[start] = false
            var component = [start]
            var next = 0
            while next < component.count {
                grid.forEachNeighbour(of: component[next]) { neighbour in
                    if member[neighbour] {
                        member[neighbour] = false
                        component.append(neighbour)
                    }
                }
                next += 1
            }
            components.append(component)
        }
        return components
    }
}

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif
