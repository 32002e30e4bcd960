import Foundation
import TestSupport
import WaymarkCore
import WaymarkPlanes
import WaymarkVision

enum PlaneFixtures {
    /// mOSD and PCL's derived depth images: K = (525, 525, 319.5, 239.5) with integer pixel
    /// centres, i.e. (525, 525, 320, 240) in this library's convention.
    static let kinect = Intrinsics(fx: 525, fy: 525, cx: 320, cy: 240)

    /// A depth image of planes seen by a pinhole camera: each pixel takes the nearest plane
    /// its ray meets in front of the camera, limited to that plane's region (a predicate on
    /// the hit point).
    static func render(
        width: Int, height: Int, intrinsics: Intrinsics, surfaces: [(plane: Plane, contains: (SIMD3<Double>) -> Bool)]
    ) -> (depth: DepthImage, labels: [Int]) {
        var metres = [Float](repeating: 0, count: width * height)
        var labels = [Int](repeating: 0, count: width * height)
        for row in 0..<height {
            for column in 0..<width {
                let ray = SIMD3((Double(column) + 0.5 - intrinsics.cx) / intrinsics.fx,
                                (Double(row) + 0.5 - intrinsics.cy) / intrinsics.fy, 1)
                var nearest = Double.infinity
                for (index, surface) in surfaces.enumerated() {
                    let along = (surface.plane.normal * ray).sum()
                    guard abs(along) > 1e-9 else { continue }
                    let t = -surface.plane.offset / along
                    guard t > 0, t < nearest, surface.contains(t * ray) else { continue }
                    nearest = t
                    metres[row * width + column] = Float(t)
                    labels[row * width + column] = index + 1
                }
            }
        }
        return (DepthImage(width: width, height: height, metres: metres), labels)
    }

    /// Angle in degrees between two unit normals, ignoring sign.
    static func degrees(_ a: SIMD3<Double>, _ b: SIMD3<Double>) -> Double {
        acos(min(1, abs((a * b).sum()))) * 180 / .pi
    }

    /// The least-squares plane normal of the depth pixels where `mask` holds.
    static func leastSquaresNormal(_ depth: DepthImage, _ intrinsics: Intrinsics, mask: [Bool]) -> SIMD3<Double> {
        var points: [SIMD3<Double>] = []
        for i in mask.indices where mask[i] && depth.metres[i] > 0 {
            let z = Double(depth.metres[i])
            let u = Double(i % depth.width) + 0.5
            let v = Double(i / depth.width) + 0.5
            points.append(SIMD3((u - intrinsics.cx) / intrinsics.fx * z, (v - intrinsics.cy) / intrinsics.fy * z, z))
        }
        let centre = points.reduce(.zero, +) / Double(points.count)
        // Power iteration on (trace·I − C) finds C's smallest eigenvector.
        var c = [Double](repeating: 0, count: 9)
        for p in points {
            let d = p - centre
            let v = [d.x, d.y, d.z]
            for r in 0..<3 { for k in 0..<3 { c[r * 3 + k] += v[r] * v[k] } }
        }
        let trace = c[0] + c[4] + c[8]
        var n = SIMD3<Double>(0.3, 0.5, 0.8)
        for _ in 0..<2000 {
            let m = SIMD3(trace * n.x - (c[0] * n.x + c[1] * n.y + c[2] * n.z),
                          trace * n.y - (c[3] * n.x + c[4] * n.y + c[5] * n.z),
                          trace * n.z - (c[6] * n.x + c[7] * n.y + c[8] * n.z))
            n = m / (m * m).sum().squareRoot()
        }
        return n
    }
}

#if canImport(Glibc)
    import Glibc
#endif
