import Foundation
import Waymark

/// Runs plane detection and the plane map over a walk-through with its exact poses, and
/// scores the anchors against the true surfaces.
public struct WalkthroughPlaneReplay {
    /// Surfaces covering ≥ 1% of the view in at least 3 frames: what the map should end with.
    public var visibleSurfaces: Set<Int> = []
    public var map = PlaneMap()
    /// "frame f: surface s was anchor a, now b" for every identifier that changed after it was established.
    public var identifierChanges: [String] = []
    /// The true surfaces each anchor's observations came from (by majority of their pixels).
    public var surfacesOfAnchor: [Int: Set<Int>] = [:]
    /// Milliseconds per frame: detection, then integration into the map.
    public var detectMilliseconds: [Double] = []
    public var integrateMilliseconds: [Double] = []

    public init(_ walk: Walkthrough, detector: PlaneDetector) {
        var framesSeen = [Int: Int]()
        var identity = [Int: Int]()
        var identifiers = AnchorIdentifiers()
        for frame in walk.frames {
            let rendering = walk.render(frame, color: false)
            // The depth as TUM's 16-bit file stores it: 1/5000 m steps.
            let metres = rendering.depth.map { Float((Double($0) / WalkthroughWriter.depthScale).rounded() * WalkthroughWriter.depthScale) }
            let depth = DepthImage(width: walk.width, height: walk.height, metres: metres)
            var counts = [Int: Int]()
            for label in rendering.labels where label != 0 { counts[Int(label), default: 0] += 1 }
            for (surface, count) in counts where count >= walk.width * walk.height / 100 { framesSeen[surface, default: 0] += 1 }
            let down = frame.cameraToWorld.applyInverseRotation(SIMD3(0, -1, 0))
            let start = DispatchTime.now().uptimeNanoseconds
            let detection = detector.detect(in: depth, intrinsics: walk.intrinsics, down: down)
            let middle = DispatchTime.now().uptimeNanoseconds
            let update = map.integrate(detection, cameraToWorld: frame.cameraToWorld, identifiers: &identifiers)
            let end = DispatchTime.now().uptimeNanoseconds
            detectMilliseconds.append(Double(middle - start) / 1e6)
            integrateMilliseconds.append(Double(end - middle) / 1e6)
            for (index, id) in update.anchorIDs.enumerated() {
                guard let id else { continue }
                var votes = [Int: Int]()
                for i in detection.labels.indices where Int(detection.labels[i]) == index + 1 {
                    votes[Int(rendering.labels[i]), default: 0] += 1
                }
                guard let surface = votes.max(by: { $0.value < $1.value })?.key else { continue }
                surfacesOfAnchor[id, default: []].insert(surface)
                if let known = identity[surface], known != id, map.anchor(id: known) != nil {
                    identifierChanges.append("frame \(frame.index): surface \(surface) was anchor \(known), now \(id)")
                }
                if identity[surface].flatMap({ map.anchor(id: $0) }) == nil { identity[surface] = id }
            }
        }
        visibleSurfaces = Set(framesSeen.filter { $0.value >= 3 }.keys)
    }
}
