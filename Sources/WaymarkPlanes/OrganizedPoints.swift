import WaymarkCore
import WaymarkVision

/// 3-D points on the pixel grid they were measured on (camera coordinates: x right, y down,
/// z forward, metres), stored as three contiguous planes. A missing point has NaN coordinates.
public struct OrganizedPoints: Sendable {
    public let width: Int
    public let height: Int
    public internal(set) var x: [Float]
    public internal(set) var y: [Float]
    public internal(set) var z: [Float]

    public init(width: Int, height: Int, x: [Float], y: [Float], z: [Float]) {
        let count = width * height
        precondition(width > 0 && height > 0 && x.count == count && y.count == count && z.count == count,
                     "point planes do not match the grid size")
        self.width = width
        self.height = height
        self.x = x
        self.y = y
        self.z = z
        for i in 0..<count where !(x[i].isFinite && y[i].isFinite && z[i].isFinite) {
            self.x[i] = .nan
            self.y[i] = .nan
            self.z[i] = .nan
        }
    }

    /// Back-projects a depth map through pinhole intrinsics (pixel centres at +0.5).
    public init(depth: DepthImage, intrinsics: Intrinsics) {
        width = depth.width
        height = depth.height
        let count = width * height
        x = [Float](repeating: .nan, count: count)
        y = x
        z = x
        let columnFactor = (0..<width).map { Float((Double($0) + 0.5 - intrinsics.cx) / intrinsics.fx) }
        let rowFactor = (0..<height).map { Float((Double($0) + 0.5 - intrinsics.cy) / intrinsics.fy) }
        depth.metres.withUnsafeBufferPointer { metres in
            columnFactor.withUnsafeBufferPointer { columnFactor in
                x.withUnsafeMutableBufferPointer { xs in
                    y.withUnsafeMutableBufferPointer { ys in
                        z.withUnsafeMutableBufferPointer { zs in
                            for row in 0..<height {
                                let fy = rowFactor[row]
                                let base = row * width
                                for column in 0..<width {
                                    let d = metres[base + column]
                                    guard d > 0 else { continue }
                                    xs[base + column] = columnFactor[column] * d
                                    ys[base + column] = fy * d
                                    zs[base + column] = d
                                }
                            }
                        }
                    }
                }
            }
        }
    }

    public var validCount: Int { z.reduce(0) { $0 + ($1.isNaN ? 0 : 1) } }

    @inline(__always)
    func point(_ index: Int) -> SIMD3<Double> { SIMD3(Double(x[index]), Double(y[index]), Double(z[index])) }
}
