import Foundation
import Waymark

extension Walkthrough {
    public struct Rendering {
        /// BGR, or nil when colour was not asked for.
        public var color: [UInt8]?
        /// Metres along the optical axis; 0 where nothing is in view.
        public var depth: [Float]
        /// Per pixel: the id of the surface seen (posters count as their wall), 0 for none.
        public var labels: [UInt16]
    }

    /// Ray-casts the room for `frame`: depth and labels from its pose; colour averaged over the
    /// exposure (motion blur), shaded by the sunlight if any, scaled by the frame's brightness and
    /// relit by its light, with seeded sensor noise.
    public func render(_ frame: Frame, color: Bool = true) -> Rendering {
        var depth = [Float](repeating: 0, count: width * height)
        var labels = [UInt16](repeating: 0, count: width * height)
        var sums = color ? [Double](repeating: 0, count: 3 * width * height) : []
        let shaded = sunlightTables()
        for (shot, pose) in frame.exposure.enumerated() {
            let last = shot == frame.exposure.count - 1
            cast(from: pose) { i, z, surface, bgr in
                if last {
                    depth[i] = Float(z)
                    labels[i] = UInt16(surface)
                }
                if color, let table = shaded?[surface] {
                    sums[3 * i] += table[Int(bgr.0)]
                    sums[3 * i + 1] += table[Int(bgr.1)]
                    sums[3 * i + 2] += table[Int(bgr.2)]
                } else if color {
                    sums[3 * i] += Double(bgr.0)
                    sums[3 * i + 1] += Double(bgr.1)
                    sums[3 * i + 2] += Double(bgr.2)
                }
            }
        }
        guard color else { return Rendering(color: nil, depth: depth, labels: labels) }
        var generator = SeededGenerator(seed: 0x5EED_0000 &+ UInt64(frame.index))
        let scale = frame.brightness / Double(frame.exposure.count)
        let relit = frame.light != SIMD3(1, 1, 1)
        let gains = [frame.light.z, frame.light.y, frame.light.x]  // BGR
        let pixels = sums.enumerated().map { k, sum -> UInt8 in
            let code = relit ? Self.relight(sum * scale, by: gains[k % 3]) : sum * scale
            return UInt8(max(0, min(255, (code + 2 * generator.nextGaussian()).rounded())))
        }
        return Rendering(color: pixels, depth: depth, labels: labels)
    }

    /// Per surface id: each code value (0–255) as the sunlight shades that surface; nil without sunlight.
    private func sunlightTables() -> [Int: [Double]]? {
        guard let sunlight else { return nil }
        let albedos = surfaces.map { $0.texture.meanLuminance }
        let evenAlbedo = albedos.reduce(0, +) / Double(albedos.count)
        var tables: [Int: [Double]] = [:]
        for (surface, albedo) in zip(surfaces, albedos) {
            let shade = sunlight.ambient + (1 - sunlight.ambient) * max(0, (surface.normal * sunlight.direction).sum())
            let gain = sunlight.evenAlbedo ? shade * evenAlbedo / albedo : shade
            tables[surface.id] = (0..<256).map { Self.relight(Double($0), by: gain) }
        }
        return tables
    }

    /// An sRGB code value (0–255) whose linear light is multiplied by `gain`.
    private static func relight(_ code: Double, by gain: Double) -> Double {
        255 * SRGB.coded(min(SRGB.linear(min(max(code / 255, 0), 1)) * gain, 1))
    }

    /// Calls `hit(pixel index, depth, surface id, colour)` for the nearest surface along each pixel's ray.
    private func cast(from pose: RigidTransform, hit: (Int, Double, Int, (UInt8, UInt8, UInt8)) -> Void) {
        let r = pose.rotation
        let centre = pose.translationVector
        let extents = surfaces.map { (($0.u * $0.u).sum().squareRoot(), ($0.v * $0.v).sum().squareRoot()) }
        for row in 0..<height {
            for column in 0..<width {
                let c = SIMD3((Double(column) + 0.5 - intrinsics.cx) / intrinsics.fx,
                              (Double(row) + 0.5 - intrinsics.cy) / intrinsics.fy, 1)
                let ray = SIMD3(r[0] * c.x + r[1] * c.y + r[2] * c.z, r[3] * c.x + r[4] * c.y + r[5] * c.z,
                                r[6] * c.x + r[7] * c.y + r[8] * c.z)
                var best: (t: Double, surface: Int, s: Double, u: Double)?
                for (index, surface) in surfaces.enumerated() {
                    guard let (t, s, u) = Self.intersect(centre, ray, surface.origin, surface.u, surface.v, surface.normal),
                        t < best?.t ?? .infinity
                    else { continue }
                    best = (t, index, s, u)
                }
                guard let best else { continue }
                let surface = surfaces[best.surface]
                var bgr = surface.texture.sample(s: best.s, t: best.u, extentU: extents[best.surface].0,
                                                 extentV: extents[best.surface].1)
                for poster in posters where poster.surfaceID == surface.id {
                    let p = centre + best.t * ray - poster.origin
                    let s = (p * poster.u).sum() / (poster.u * poster.u).sum()
                    let t = (p * poster.v).sum() / (poster.v * poster.v).sum()
                    if s >= 0, s < 1, t >= 0, t < 1 {
                        let x = min(poster.texture.width - 1, Int(s * Double(poster.texture.width)))
                        let y = min(poster.texture.height - 1, Int(t * Double(poster.texture.height)))
                        let i = 3 * (y * poster.texture.width + x)
                        bgr = (poster.texture.pixels[i], poster.texture.pixels[i + 1], poster.texture.pixels[i + 2])
                    }
                }
                hit(row * width + column, best.t, surface.id, bgr)
            }
        }
    }

    /// Ray (camera-frame z = 1 per unit of t, so t is the depth) against a one-sided rectangle.
    @inline(__always)
    private static func intersect(
        _ o: SIMD3<Double>, _ d: SIMD3<Double>, _ corner: SIMD3<Double>, _ u: SIMD3<Double>, _ v: SIMD3<Double>,
        _ n: SIMD3<Double>
    ) -> (Double, Double, Double)? {
        let along = (n * d).sum()
        guard along < -1e-12 else { return nil }
        let t = (n * (corner - o)).sum() / along
        guard t > 1e-6 else { return nil }
        let p = o + t * d - corner
        let s = (p * u).sum() / (u * u).sum()
        let w = (p * v).sum() / (v * v).sum()
        guard s >= 0, s <= 1, w >= 0, w <= 1 else { return nil }
        return (t, s, w)
    }

    /// Poster image pixels → frame pixels for every poster in front of the camera:
    /// H = K · R_worldToCamera · [u / W, v / H, origin − camera centre].
    public func posterHomographies(_ frame: Frame) -> [String: Homography] {
        let c = SIMD3(frame.cameraToWorld.translation[0], frame.cameraToWorld.translation[1], frame.cameraToWorld.translation[2])
        let toCamera = frame.cameraToWorld.applyInverseRotation
        var result: [String: Homography] = [:]
        for poster in posters {
            let corners = [poster.origin, poster.origin + poster.u, poster.origin + poster.u + poster.v, poster.origin + poster.v]
            guard corners.allSatisfy({ toCamera($0 - c).z > 0.05 }) else { continue }
            let columns = [toCamera(poster.u) / Double(poster.texture.width), toCamera(poster.v) / Double(poster.texture.height),
                           toCamera(poster.origin - c)]
            let k = intrinsics
            let m = columns.map { SIMD3(k.fx * $0.x + k.cx * $0.z, k.fy * $0.y + k.cy * $0.z, $0.z) }
            result[poster.name] = Homography([m[0].x, m[1].x, m[2].x, m[0].y, m[1].y, m[2].y, m[0].z, m[1].z, m[2].z])
        }
        return result
    }
}
