import Foundation
import Waymark
import WaymarkSamples

extension Walkthrough {
    /// The room seen by a camera walking up to poster `name`: from `far` metres away and
    /// `startAngle` degrees off the poster's axis to `near` metres and `endAngle`, over `frameCount`
    /// frames, with the distance shrinking geometrically (so the poster's share of the frame grows
    /// steadily) and a slow sway of a few centimetres. Always aimed at the poster's centre.
    public func approaching(_ name: String, far: Double, near: Double, startAngle: Double, endAngle: Double,
                            frameCount: Int) -> Walkthrough
    {
        let poster = posters.first { $0.name == name }!
        let normal = surfaces.first { $0.id == poster.surfaceID }!.normal
        let centre = poster.origin + (poster.u + poster.v) / 2
        let across = poster.u / (poster.u * poster.u).sum().squareRoot()
        let poses = (0..<frameCount).map { index -> RigidTransform in
            let s = Double(index) / Double(max(1, frameCount - 1))
            let distance = far * pow(near / far, s)
            let angle = (startAngle + (endAngle - startAngle) * s) * .pi / 180
            let sway = SIMD3(0.03 * sin(Double(index) / 7), 0.02 * sin(Double(index) / 11), 0)
            let position = centre + normal * (distance * cos(angle)) + across * (distance * sin(angle)) + sway
            let look = centre - position
            let forward = look / (look * look).sum().squareRoot()
            return Self.pose(position, yaw: atan2(-forward.x, -forward.z) * 180 / .pi, pitch: asin(forward.y) * 180 / .pi)
        }
        return along(poses)
    }

    /// The poster's outline area under `homography` (poster pixels → frame pixels) as a share
    /// of the frame's.
    public func coverage(of homography: Homography, posterWidth: Int, posterHeight: Int) -> Double {
        let corners = imageCorners(width: posterWidth, height: posterHeight).compactMap(homography.apply)
        guard corners.count == 4 else { return 0 }
        return Quadrilateral(corners).signedArea / Double(width * height)
    }
}
