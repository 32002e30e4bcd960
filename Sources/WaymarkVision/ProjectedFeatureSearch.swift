import WaymarkCore

/// A 256-bit ORB descriptor as four words, for Hamming distances without byte loops.
public typealias PackedDescriptor = SIMD4<UInt64>

@inline(__always)
public func hammingDistance(_ a: PackedDescriptor, _ b: PackedDescriptor) -> Int {
    let x = a ^ b
    return x[0].nonzeroBitCount + x[1].nonzeroBitCount + x[2].nonzeroBitCount + x[3].nonzeroBitCount
}

extension FeatureSet {
    /// The descriptors, one packed value per feature.
    public var packedDescriptors: [PackedDescriptor] {
        let bytes = descriptors
        return [PackedDescriptor](uninitializedCapacity: count) { buffer, n in
            bytes.withUnsafeBytes { raw in
                for i in 0..<count {
                    let base = i * FeatureSet.descriptorBytes
                    buffer[i] = PackedDescriptor(
                        raw.loadUnaligned(fromByteOffset: base, as: UInt64.self),
                        raw.loadUnaligned(fromByteOffset: base + 8, as: UInt64.self),
                        raw.loadUnaligned(fromByteOffset: base + 16, as: UInt64.self),
                        raw.loadUnaligned(fromByteOffset: base + 24, as: UInt64.self))
                }
            }
            n = count
        }
    }
}

/// A frame's features bucketed by pixel, to match points projected into the frame against the
/// features near where they land (ORB-SLAM's search by projection). Built once per frame; the
/// features are stored cell by cell, so a search reads contiguous memory.
public struct ProjectedFeatureSearch {
    public let keypoints: [Keypoint]
    private let cellSize = 16.0
    private let columns: Int
    private let rows: Int
    /// Features of cell c are slots `cellStarts[c]..<cellStarts[c + 1]` of the slot arrays.
    private let cellStarts: [Int32]
    /// Per slot: the feature's index, position, octave and descriptor.
    private let slotFeature: [Int32]
    private let slotLocation: [SIMD2<Double>]
    private let slotOctave: [Int32]
    private let slotDescriptor: [PackedDescriptor]

    public init(_ features: FeatureSet, width: Int, height: Int) {
        keypoints = features.keypoints
        let descriptors = features.packedDescriptors
        columns = max(1, Int((Double(width) / cellSize).rounded(.up)))
        rows = max(1, Int((Double(height) / cellSize).rounded(.up)))
        let cells = keypoints.map { [columns, rows, cellSize] k -> Int in
            let cx = min(columns - 1, max(0, Int(k.location.x / cellSize)))
            let cy = min(rows - 1, max(0, Int(k.location.y / cellSize)))
            return cy * columns + cx
        }
        var starts = [Int32](repeating: 0, count: columns * rows + 1)
        for c in cells { starts[c + 1] += 1 }
        for c in 0..<(columns * rows) { starts[c + 1] += starts[c] }
        var next = starts
        var order = [Int32](repeating: 0, count: cells.count)
        for (i, c) in cells.enumerated() {
            order[Int(next[c])] = Int32(i)
            next[c] += 1
        }
        cellStarts = starts
        slotFeature = order
        slotLocation = order.map { [keypoints] i in SIMD2(keypoints[Int(i)].location.x, keypoints[Int(i)].location.y) }
        slotOctave = order.map { [keypoints] i in Int32(keypoints[Int(i)].octave) }
        slotDescriptor = order.map { descriptors[Int($0)] }
    }

    public var count: Int { keypoints.count }

    /// The feature nearest `descriptor` among those within `radius` pixels of `pixel` whose
    /// octave is in `octaves`, when within `maxDistance` bits; nil when another feature on the
    /// same octave comes within `ratio` of it (ambiguous; ORB-SLAM's rule).
    public func nearest(to descriptor: PackedDescriptor, around pixel: Point2, radius: Double, octaves: ClosedRange<Int>,
                        maxDistance: Int, ratio: Double) -> (feature: Int, distance: Int)?
    {
        let x0 = max(0, Int((pixel.x - radius) / cellSize)), x1 = min(columns - 1, Int((pixel.x + radius) / cellSize))
        let y0 = max(0, Int((pixel.y - radius) / cellSize)), y1 = min(rows - 1, Int((pixel.y + radius) / cellSize))
        guard x0 <= x1, y0 <= y1 else { return nil }
        let r2 = radius * radius
        let centre = SIMD2(pixel.x, pixel.y)
        let (lowest, highest) = (Int32(octaves.lowerBound), Int32(octaves.upperBound))
        var best = Int.max, second = Int.max, bestSlot = -1, bestOctave: Int32 = 0, secondOctave: Int32 = 0
        for cy in y0...y1 {
            // The cells of one row are adjacent slots.
            let first = Int(cellStarts[cy * columns + x0]), end = Int(cellStarts[cy * columns + x1 + 1])
            for slot in first..<end {
                let octave = slotOctave[slot]
                guard octave >= lowest, octave <= highest else { continue }
                let d2 = slotLocation[slot] - centre
                guard (d2 * d2).sum() <= r2 else { continue }
                let d = hammingDistance(descriptor, slotDescriptor[slot])
                if d < best {
                    (second, secondOctave) = (best, bestOctave)
                    (best, bestSlot, bestOctave) = (d, slot, octave)
                } else if d < second {
                    (second, secondOctave) = (d, octave)
                }
            }
        }
        guard bestSlot >= 0, best <= maxDistance else { return nil }
        if bestOctave == secondOctave, Double(best) > ratio * Double(second) { return nil }
        return (Int(slotFeature[bestSlot]), best)
    }
}
