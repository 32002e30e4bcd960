import Foundation
import WaymarkCore
import WaymarkVision

/// One plane's shading on one frame: the plane (its normal towards the camera that saw it) and
/// the mean luminance of its pixels, linear light.
public struct PlaneShading: Sendable, Equatable {
    public var plane: Plane
    public var luminance: Double

    public init(plane: Plane, luminance: Double) {
        self.plane = plane
        self.luminance = luminance
    }
}

extension PlaneDetection {
    /// The shading of each plane large enough to tell (1 % of the frame's light samples, mean
    /// luminance over 0.005) in `image`, whose pixels `labels` (`labelsWidth`×`labelsHeight`,
    /// the depth map's) cover.
    public func shading(in image: Image, labelsWidth: Int, labelsHeight: Int) -> [PlaneShading] {
        guard !planes.isEmpty else { return [] }
        let least = max(1, (image.width / 4) * (image.height / 4) / 100)
        let regions = image.regionLuminance(labels: labels, width: labelsWidth, height: labelsHeight, regions: planes.count)
        return zip(planes, regions).compactMap { plane, region in
            guard region.samples >= least, region.luminance > 0.005 else { return nil }
            return PlaneShading(plane: plane.plane.facing(.zero), luminance: region.luminance)
        }
    }
}

/// The direction of a scene's main light from the shading of its large planes, gathered over a
/// session in the world's coordinates.
///
/// A matte surface of normal n under ambient light a and a distant light b (a vector towards
/// the light, as strong as its length) has radiance ρ (a + max(0, b·n)). Planes found again
/// (normals within `clusterDegrees`, offsets within `clusterMetres`) count as one surface.
/// Within a frame only ratios of the planes' luminances are used, so the camera's exposure,
/// however it changes, drops out; the ratios of all frames give each surface's log radiance
/// relative to the others (least squares over the graph of surfaces seen together), and a, b
/// are fitted to those (the surfaces b faces away from by a alone).
///
/// This assumes the surfaces share one albedo ρ, as a room's painted walls and ceiling do: a
/// floor darker than its walls reads as light from less high. Surfaces that face the same way
/// but differ in albedo (two boxes' sides) disagree, and lower the confidence; when all that
/// face one way share an albedo unlike the others', nothing here can tell. ARKit estimates no
/// direction without a face; ARCore's HDR mode learns it from images.
///
/// The confidence is the product of: the fit's R² (0.5 when the surfaces are no more than its
/// unknowns, so that it cannot check itself); the light's directional share |b| / (a + |b|),
/// doubled and capped at 1 (an even, ambient light has no direction); and the share of the
/// three dimensions the lit surfaces' normals span (light seen on two orientations only says
/// nothing of its part along the third).
public struct ShadingLightEstimator: Sendable {
    public static let clusterDegrees = 15.0
    public static let clusterMetres = 0.1
    public static let maximumSurfaces = 48

    /// Per surface: its world plane when first seen, the sum of its world normals, frames seen.
    private var planes: [Plane] = []
    private var normalSums: [SIMD3<Double>] = []
    private var frames: [Double] = []
    /// Row-major, `maximumSurfaces` square: the sums of log(L_i / L_j) over the frames that saw
    /// both, and how many did.
    private var logRatios = [Double](repeating: 0, count: maximumSurfaces * maximumSurfaces)
    private var pairs = [Double](repeating: 0, count: maximumSurfaces * maximumSurfaces)
    /// The main light so far, fitted again whenever a frame adds to what was seen; nil until four
    /// surfaces were seen together and their fit holds.
    public private(set) var mainLight: MainLight?

    public init() {}

    /// One frame's planes (`PlaneDetection.shading`), seen from `cameraToWorld`.
    public mutating func add(_ shading: [PlaneShading], cameraToWorld: RigidTransform) {
        guard shading.count >= 2 else { return }
        var seen: [(surface: Int, logLuminance: Double)] = []
        for entry in shading {
            let normal = cameraToWorld.applyRotation(entry.plane.normal)
            let point = cameraToWorld.apply(-entry.plane.offset * entry.plane.normal)
            let world = Plane(normal: normal, offset: -(normal * point).sum())
            guard let surface = surface(of: world), !seen.contains(where: { $0.surface == surface }) else { continue }
            normalSums[surface] += world.normal
            frames[surface] += 1
            seen.append((surface, log(entry.luminance)))
        }
        let n = Self.maximumSurfaces
        for (i, first) in seen.enumerated() {
            for second in seen[(i + 1)...] {
                let ratio = first.logLuminance - second.logLuminance
                logRatios[first.surface * n + second.surface] += ratio
                logRatios[second.surface * n + first.surface] -= ratio
                pairs[first.surface * n + second.surface] += 1
                pairs[second.surface * n + first.surface] += 1
            }
        }
        if seen.count >= 2 { mainLight = fitted() }
    }

    /// The surface `plane` belongs to, new if none is near; nil when all are taken.
    private mutating func surface(of plane: Plane) -> Int? {
        let cosine = cos(Self.clusterDegrees * .pi / 180)
        if let near = planes.indices.first(where: {
            (planes[$0].normal * plane.normal).sum() > cosine && abs(planes[$0].offset - plane.offset) < Self.clusterMetres
        }) {
            return near
        }
        guard planes.count < Self.maximumSurfaces else { return nil }
        planes.append(plane)
        normalSums.append(.zero)
        frames.append(0)
        return planes.count - 1
    }

    private func fitted() -> MainLight? {
        let members = largestConnectedGroup()
        guard members.count >= 4, let logRadiance = relativeLogRadiance(of: members) else { return nil }
        let normals = members.map { normalize(normalSums[$0]) }
        let radiance = logRadiance.map { exp($0) }
        let weights = members.map { frames[$0] }
        guard let fit = Self.fitAmbientAndDirectional(normals: normals, radiance: radiance, weights: weights) else { return nil }
        let strength = (fit.directional * fit.directional).sum().squareRoot()
        guard strength > 0, fit.ambient + strength > 0 else { return nil }
        let share = min(1, 2 * strength / (fit.ambient + strength))
        let agreement = members.count > 1 + fit.span ? max(0, fit.rSquared) : 0.5
        return MainLight(direction: fit.directional / strength,
                         confidence: max(0, share) * agreement * Double(fit.span) / 3)
    }

    /// The surfaces linked, through frames that saw two of them together, to the most others.
    private func largestConnectedGroup() -> [Int] {
        let n = Self.maximumSurfaces, count = normalSums.count
        var group = [Int](repeating: -1, count: count), best: [Int] = []
        for start in 0..<count where group[start] < 0 {
            var members = [start], next = 0
            group[start] = start
            while next < members.count {
                let i = members[next]
                next += 1
                for j in 0..<count where group[j] < 0 && pairs[i * n + j] > 0 {
                    group[j] = start
                    members.append(j)
                }
            }
            if members.count > best.count { best = members }
        }
        return best.sorted()
    }

    /// Each member's log radiance, the first's 0: least squares over the pairs' mean log ratios.
    private func relativeLogRadiance(of members: [Int]) -> [Double]? {
        let n = Self.maximumSurfaces, m = members.count - 1
        var h = [Double](repeating: 0, count: m * m), g = [Double](repeating: 0, count: m)
        for (a, i) in members.enumerated() {
            for (b, j) in members.enumerated() where a != b && pairs[i * n + j] > 0 {
                // Each frame's ratio is one observation of r_i − r_j.
                let weight = pairs[i * n + j], ratio = logRatios[i * n + j]
                if a > 0 {
                    h[(a - 1) * m + (a - 1)] += weight
                    g[a - 1] += ratio
                    if b > 0 { h[(a - 1) * m + (b - 1)] -= weight }
                }
            }
        }
        guard let solved = solveSymmetricPositiveDefinite(h, g, size: m) else { return nil }
        return [0] + solved
    }

    /// a and b in radiance ≈ a + max(0, b·n), weighted least squares: the orientations b faces
    /// away from fitted by a alone, b sought among the directions the others span (so light
    /// only ever seen on two orientations gets no part along the third), refitted until the
    /// lit set settles. `span`: how many dimensions b was free in.
    static func fitAmbientAndDirectional(normals: [SIMD3<Double>], radiance: [Double], weights: [Double])
        -> (ambient: Double, directional: SIMD3<Double>, rSquared: Double, span: Int)?
    {
        var lit = [Bool](repeating: true, count: normals.count)
        var best: (ambient: Double, directional: SIMD3<Double>, span: Int)?
        for _ in 0..<5 {
            let basis = spanningBasis(of: zip(normals, lit).filter(\.1).map(\.0))
            let size = 1 + basis.count
            var h = [Double](repeating: 0, count: size * size), g = [Double](repeating: 0, count: size)
            for k in normals.indices {
                let row = [1] + basis.map { lit[k] ? ($0 * normals[k]).sum() : 0 }
                for i in 0..<size {
                    g[i] += weights[k] * row[i] * radiance[k]
                    for j in 0..<size { h[i * size + j] += weights[k] * row[i] * row[j] }
                }
            }
            guard let x = solveSymmetricPositiveDefinite(h, g, size: size) else { break }
            let b = zip(basis, x.dropFirst()).reduce(SIMD3<Double>()) { $0 + $1.0 * $1.1 }
            best = (x[0], b, basis.count)
            let now = normals.map { ($0 * b).sum() > 0 }
            if now == lit { break }
            lit = now
        }
        guard let best else { return nil }
        let predicted = normals.map { best.ambient + max(0, ($0 * best.directional).sum()) }
        let total = weights.reduce(0, +)
        let mean = zip(weights, radiance).map { $0 * $1 }.reduce(0, +) / total
        var residual = 0.0, spread = 0.0
        for k in normals.indices {
            residual += weights[k] * (radiance[k] - predicted[k]) * (radiance[k] - predicted[k])
            spread += weights[k] * (radiance[k] - mean) * (radiance[k] - mean)
        }
        return (best.ambient, best.directional, spread > 0 ? 1 - residual / spread : 0, best.span)
    }

    /// An orthonormal basis of the directions `normals` span, by Gram–Schmidt; a normal adds a
    /// direction when over half of it (sin 30°) lies outside the others'.
    private static func spanningBasis(of normals: [SIMD3<Double>]) -> [SIMD3<Double>] {
        var basis: [SIMD3<Double>] = []
        for normal in normals where basis.count < 3 {
            let rest = basis.reduce(normal) { $0 - ($0 * $1).sum() * $1 }
            let length = (rest * rest).sum().squareRoot()
            if length > 0.5 { basis.append(rest / length) }
        }
        return basis
    }
}
