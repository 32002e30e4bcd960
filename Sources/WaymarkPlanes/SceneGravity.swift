import Foundation
import WaymarkCore

/// Gravity from a scene's planes where nothing measures it (a video without motion sensors):
/// rooms are built level and square, so the largest planes are horizontal (floor, table tops)
/// or vertical (walls). Each horizontal-looking plane's normal, and each pair of walls' common
/// direction, is a guess at gravity; the guess that the most points agree with (planes within
/// `agreementDegrees` of horizontal or vertical by it, weighted by their inliers) wins, provided
/// two planes that are not parallel agree, and is refined over all the planes that agree.
public enum SceneGravity {
    /// How far gravity may be from the `assumed` down (the camera held upright), degrees.
    public static let maximumTiltDegrees = 35.0
    /// A plane agrees with a gravity when it is this close to horizontal or vertical by it.
    public static let agreementDegrees = 5.0

    /// Gravity (unit, on the side of `assumed`) from `planes` (their normals and inlier counts,
    /// in the frame of `assumed`, the camera's); nil when no two non-parallel planes agree on
    /// one. Planes the camera sees edge-on are passed over (`DetectedPlane.isSeenEdgeOn`).
    public static func estimate(from planes: [DetectedPlane], assumed: SIMD3<Double>) -> SIMD3<Double>? {
        let planes = planes.filter { !$0.isSeenEdgeOn }
        let assumed = normalize(assumed)
        let normals = planes.map { normalize($0.plane.normal) }
        let weights = planes.map { Double($0.inlierCount) }
        let nearAssumed = cos(maximumTiltDegrees * .pi / 180)
        let towardAssumed = { (g: SIMD3<Double>) in (g * assumed).sum() < 0 ? -g : g }
        var guesses: [SIMD3<Double>] = normals.filter { abs(($0 * assumed).sum()) >= nearAssumed }.map(towardAssumed)
        for i in normals.indices {
            for j in normals.indices where j > i {
                let across = cross(normals[i], normals[j])
                let length = (across * across).sum().squareRoot()
                guard length > sin(30 * .pi / 180) else { continue }
                let guess = towardAssumed(across / length)
                if (guess * assumed).sum() >= nearAssumed { guesses.append(guess) }
            }
        }
        let (level, upright) = (cos(agreementDegrees * .pi / 180), sin(agreementDegrees * .pi / 180))
        func agreeing(_ g: SIMD3<Double>) -> (horizontal: [Int], vertical: [Int]) {
            let horizontal = normals.indices.filter { abs((normals[$0] * g).sum()) >= level }
            let vertical = normals.indices.filter { abs((normals[$0] * g).sum()) <= upright }
            return (horizontal, vertical)
        }
        let supported = guesses.map { g in
            let (horizontal, vertical) = agreeing(g)
            return (guess: g, support: (horizontal + vertical).map { weights[$0] }.reduce(0, +))
        }
        guard let best = supported.max(by: { $0.support < $1.support })?.guess else { return nil }
        let (horizontal, vertical) = agreeing(best)
        let directions = horizontal.isEmpty ? 0 : 1
        guard directions + distinctDirections(vertical.map { normals[$0] }) >= 2 else { return nil }
        // The direction nearest to every horizontal plane's normal and farthest from every
        // wall's: the smallest eigenvector of Σ w (I − n nᵀ) over the horizontal planes plus
        // Σ w n nᵀ over the walls.
        var m = SymmetricMatrix3(xx: 0, xy: 0, xz: 0, yy: 0, yz: 0, zz: 0)
        func add(_ k: Int, sign: Double, identity: Double) {
            let n = normals[k]
            m.xx += sign * n.x * n.x + identity
            m.yy += sign * n.y * n.y + identity
            m.zz += sign * n.z * n.z + identity
            m.xy += sign * n.x * n.y
            m.xz += sign * n.x * n.z
            m.yz += sign * n.y * n.z
        }
        for k in horizontal { add(k, sign: -weights[k], identity: weights[k]) }
        for k in vertical { add(k, sign: weights[k], identity: 0) }
        return towardAssumed(m.smallestEigen().vector)
    }

    /// How many directions `normals` span beyond one: 0 for none, 1 for parallel ones, 2 for any
    /// two at least 30° apart.
    private static func distinctDirections(_ normals: [SIMD3<Double>]) -> Int {
        guard let first = normals.first else { return 0 }
        return normals.contains { abs((first * $0).sum()) < cos(30 * .pi / 180) } ? 2 : 1
    }
}
