import Foundation
import Waymark

/// Writes a walk-through in the TUM RGB-D layout (rgb/, depth/, rgb.txt, depth.txt,
/// groundtruth.txt) plus labels/ (16-bit per-pixel surface ids) and truth.json.
public enum WalkthroughWriter {
    /// TUM's depth unit: 1/5000 m.
    public static let depthScale = 0.0002

    public static func write(_ walkthrough: Walkthrough, to folder: URL) throws {
        let manager = FileManager.default
        for sub in ["rgb", "depth", "labels"] {
            try manager.createDirectory(at: folder.appendingPathComponent(sub), withIntermediateDirectories: true)
        }
        var rgb = "# color images\n# timestamp filename\n"
        var depth = "# depth maps (16-bit, 5000 per metre)\n# timestamp filename\n"
        var poses = "# camera-to-world poses\n# timestamp tx ty tz qx qy qz qw\n"
        var frames: [[String: Any]] = []
        for frame in walkthrough.frames {
            let stamp = String(format: "%.6f", frame.timestamp + 1)
            let rendering = walkthrough.render(frame)
            let image = Image(width: walkthrough.width, height: walkthrough.height, channels: 3, pixels: rendering.color!)
            try image.write(to: folder.appendingPathComponent("rgb/\(stamp).png").path)
            let units = rendering.depth.map { UInt16(min(65535, (Double($0) / depthScale).rounded())) }
            try Raster.writeUInt16(units, width: walkthrough.width, height: walkthrough.height,
                                   to: folder.appendingPathComponent("depth/\(stamp).png").path)
            try Raster.writeUInt16(rendering.labels, width: walkthrough.width, height: walkthrough.height,
                                   to: folder.appendingPathComponent("labels/\(stamp).png").path)
            rgb += "\(stamp) rgb/\(stamp).png\n"
            depth += "\(stamp) depth/\(stamp).png\n"
            let t = frame.cameraToWorld.translation
            let q = quaternion(frame.cameraToWorld.rotation)
            poses += String(format: "%@ %.6f %.6f %.6f %.9f %.9f %.9f %.9f\n", stamp, t[0], t[1], t[2], q.x, q.y, q.z, q.w)
            frames.append([
                "index": frame.index, "timestamp": frame.timestamp + 1, "segment": frame.segment.rawValue,
                "brightness": frame.brightness, "cameraToWorld": frame.cameraToWorld.matrix,
                "posterHomographies": walkthrough.posterHomographies(frame).mapValues(\.elements),
            ])
        }
        try Data(rgb.utf8).write(to: folder.appendingPathComponent("rgb.txt"), options: .atomic)
        try Data(depth.utf8).write(to: folder.appendingPathComponent("depth.txt"), options: .atomic)
        try Data(poses.utf8).write(to: folder.appendingPathComponent("groundtruth.txt"), options: .atomic)
        let k = walkthrough.intrinsics
        try Data("\(k.fx) \(k.fy) \(k.cx) \(k.cy)\n".utf8).write(to: folder.appendingPathComponent("intrinsics.txt"), options: .atomic)
        let truth: [String: Any] = [
            "schema": "waymark.walkthrough/1",
            "intrinsics": ["fx": k.fx, "fy": k.fy, "cx": k.cx, "cy": k.cy, "pixelCentres": 0.5],
            "size": [walkthrough.width, walkthrough.height], "depthScale": depthScale, "gravity": [0, -1, 0],
            "surfaces": walkthrough.surfaces.map { s -> [String: Any] in
                ["id": s.id, "name": s.name, "kind": s.kind, "normal": [s.normal.x, s.normal.y, s.normal.z],
                 "offset": s.plane.offset, "corners": s.corners.map { [$0.x, $0.y, $0.z] }]
            },
            "posters": walkthrough.posters.map { p -> [String: Any] in
                ["name": p.name, "image": p.imagePath, "physicalWidth": p.physicalWidth, "surface": p.surfaceID]
            },
            "frames": frames,
        ]
        let data = try JSONSerialization.data(withJSONObject: truth, options: [.sortedKeys])
        try data.write(to: folder.appendingPathComponent("truth.json"), options: .atomic)
    }

    /// Unit quaternion (x, y, z, w) of a row-major rotation matrix.
    static func quaternion(_ r: [Double]) -> SIMD4<Double> {
        let trace = r[0] + r[4] + r[8]
        let q: SIMD4<Double>
        if trace > 0 {
            let s = (trace + 1).squareRoot() * 2
            q = SIMD4((r[7] - r[5]) / s, (r[2] - r[6]) / s, (r[3] - r[1]) / s, s / 4)
        } else if r[0] > r[4], r[0] > r[8] {
            let s = (1 + r[0] - r[4] - r[8]).squareRoot() * 2
            q = SIMD4(s / 4, (r[1] + r[3]) / s, (r[2] + r[6]) / s, (r[7] - r[5]) / s)
        } else if r[4] > r[8] {
            let s = (1 + r[4] - r[0] - r[8]).squareRoot() * 2
            q = SIMD4((r[1] + r[3]) / s, s / 4, (r[5] + r[7]) / s, (r[2] - r[6]) / s)
        } else {
            let s = (1 + r[8] - r[0] - r[4]).squareRoot() * 2
            q = SIMD4((r[2] + r[6]) / s, (r[5] + r[7]) / s, s / 4, (r[3] - r[1]) / s)
        }
        return q / (q * q).sum().squareRoot()
    }
}
