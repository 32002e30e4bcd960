import Foundation
import WaymarkCore
import WaymarkVision

/// Local bundle adjustment after a keyframe joins the map (ORB-SLAM's local mapping).
public struct LocalAdjustmentOptions: Equatable, Sendable {
    /// The new keyframe and the keyframes that share most points with it, this many: their
    /// points are adjusted, seen from every keyframe that holds them.
    public var neighbours = 10
    /// Whether the keyframes' poses move too (a full local bundle adjustment), or only their
    /// points. Off: the tracker's keyframe poses come from dense alignment, which is more
    /// accurate than ORB corners (placed to a pixel at their octave) can make them; moving
    /// them by the corners made the walk-through's ATE ten times worse (Benchmarks/RESULTS.md).
    public var movesKeyframes = false
    public var solver: BundleAdjustmentOptions = {
        var options = BundleAdjustmentOptions()
        options.maximumIterations = 10
        // Depth's weight from the sensor's noise rather than ORB-SLAM2's 8 cm stereo baseline,
        // which leaves a point 3 m away free to slide centimetres along its ray: a Kinect's
        // depth error is about 1.4e-3·z² m (Khoshelham and Elberink, 2012), which a virtual
        // camera 1/(fx·1.4e-3) ≈ 1.3 m to the right gives a one-pixel observation (fx ≈ 525).
        options.depthBaseline = 1.3
        return options
    }()

    public init() {}
}

/// What a local adjustment did.
public struct LocalAdjustment: Sendable {
    public var movedKeyframes: Int
    public var heldKeyframes: Int
    /// Points seen by two keyframes or more (a point seen once says nothing about the poses).
    public var points: Int
    public var observations: Int
    /// Observations beyond the robust cost's bound afterwards: each keyframe forgets its feature there.
    public var outliers: Int
    /// The last solve's report (the second, when the first found wrong matches).
    public var solver: BundleAdjustmentReport
}

extension WorldMap {
    /// Adjusts keyframe `index`, its most covisible keyframes and the points they share
    /// (Ceres: reprojection error with the measured depth as ORB-SLAM2's virtual right camera,
    /// a Huber cost). Observations left beyond the cost's bound are wrong matches: their
    /// keyframes forget those features. With `movesKeyframes`, points seen by one moving
    /// keyframe alone move with it. Nil when there is nothing to adjust (no shared point); a
    /// throw only for a problem the solver refuses.
    public mutating func adjustLocally(around index: Int, options: LocalAdjustmentOptions = LocalAdjustmentOptions())
        throws(WaymarkError) -> LocalAdjustment?
    {
        let window = [index] + covisible(with: index).prefix(options.neighbours).map(\.keyframe)
        let windowSet = Set(window)
        var pointIndex: [SIMD3<Double>: Int] = [:]
        var positions: [SIMD3<Double>] = []
        var held = Set<Int>()
        for k in window {
            for point in keyframes[k].points where pointIndex[point] == nil {
                let seenBy = holders(of: point)
                guard seenBy.count >= 2 else { continue }
                pointIndex[point] = positions.count
                positions.append(point)
                held.formUnion(seenBy.filter { !windowSet.contains($0) })
            }
        }
        guard !positions.isEmpty else { return nil }
        let members = window + held.sorted()
        var fixed = members.map { !options.movesKeyframes || !windowSet.contains($0) }
        if held.isEmpty, options.movesKeyframes, let oldest = window.indices.min(by: { keyframes[window[$0]].id < keyframes[window[$1]].id }) {
            // Nothing else ties the window to the world: its oldest keyframe does.
            fixed[oldest] = true
        }
        var observations: [BundleObservation] = []
        // Each observation's keyframe (slot in `members`) and feature.
        var owners: [(slot: Int, feature: Int)] = []
        var outliers: [Set<Int>] = Array(repeating: [], count: members.count)
        for (slot, k) in members.enumerated() {
            let keyframe = keyframes[k]
            let keypoints = keyframe.features.keypoints
            for (i, point) in keyframe.points.enumerated() {
                guard let j = pointIndex[point] else { continue }
                // A point behind the camera that holds it is a wrong match: the solver cannot use it.
                guard keyframe.cameraToWorld.applyInverse(point).z > 0.05 else {
                    outliers[slot].insert(i)
                    continue
                }
                let depth = keyframe.depths[i]
                observations.append(BundleObservation(pose: slot, point: j, pixel: keypoints[i].location,
                                                      depth: depth > 0 ? Double(depth) : nil,
                                                      sigma: keypoints[i].octaveScale))
                owners.append((slot, i))
            }
        }
        var problem = BundleAdjustmentProblem(intrinsics: keyframes[index].intrinsics,
                                              poses: members.map { keyframes[$0].cameraToWorld }, fixed: fixed,
                                              points: positions, observations: observations)
        // As ORB-SLAM does: a first solve finds the wrong matches, a second one without them
        // places the points and poses they pulled on.
        var report = try problem.solve(options: options.solver)
        let wrong = report.residuals.indices.filter { report.residuals[$0] > options.solver.huber }
        for w in wrong { outliers[owners[w].slot].insert(owners[w].feature) }
        if !wrong.isEmpty {
            problem.observations = zip(problem.observations, report.residuals).filter { $1 <= options.solver.huber }.map(\.0)
            report = try problem.solve(options: options.solver)
        }
        for (slot, k) in members.enumerated() {
            let keyframe = keyframes[k]
            let pose = problem.poses[slot].orthonormalized
            let carried = pose * keyframe.cameraToWorld.inverse
            let moved = keyframe.points.map { point in
                pointIndex[point].map { problem.points[$0] } ?? (fixed[slot] ? point : carried.apply(point))
            }
            let kept = keyframe.points.indices.filter { !outliers[slot].contains($0) }
            replace(k, with: keyframe.adjusted(cameraToWorld: fixed[slot] ? keyframe.cameraToWorld : pose, points: moved,
                                               keeping: kept))
        }
        return LocalAdjustment(movedKeyframes: fixed.filter { !$0 }.count, heldKeyframes: fixed.filter { $0 }.count,
                               points: positions.count, observations: observations.count,
                               outliers: outliers.map(\.count).reduce(0, +), solver: report)
    }
}
