import Testing
import WaymarkVision

@Suite struct DepthImageTests {
    /// A sloping surface halves to each 2×2 block's mean (its centre is the half-size pixel's:
    /// exact for depth linear across the block); a block across an edge (4 % apart) or with a
    /// missing or NaN measurement halves to none, not to a depth between the two surfaces.
    @Test func halvingAveragesBlocksOnOneSurfaceOnly() {
        let (width, height) = (8, 4)
        var depth = (0..<(width * height)).map { i in Float(1 + 0.01 * Double(i % width) + 0.02 * Double(i / width)) }
        depth[0 * width + 2] = 1.5 * depth[0 * width + 2]  // block (1, 0): an edge
        depth[2 * width + 4] = 0  // block (2, 1): missing
        depth[3 * width + 7] = .nan  // block (3, 1): NaN
        var half: [Float] = []
        DepthImage.halve(depth, width: width, height: height, into: &half)
        #expect(half.count == 8)
        for y in 0..<2 {
            for x in 0..<4 {
                let value = half[y * 4 + x]
                if [(1, 0), (2, 1), (3, 1)].contains(where: { $0 == (x, y) }) {
                    #expect(value == 0, "block (\(x), \(y)): \(value)")
                } else {
                    // The block centre sits at (2x + 0.5, 2y + 0.5) in pixel indices.
                    let expected = 1 + 0.01 * (2 * Double(x) + 0.5) + 0.02 * (2 * Double(y) + 0.5)
                    #expect(abs(Double(value) - expected) < 1e-6, "block (\(x), \(y)): \(value), expected \(expected)")
                }
            }
        }
    }
}
