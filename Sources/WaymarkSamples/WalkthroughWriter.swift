import Foundation
import Waymark

/// Writes a walk-through in the TUM RGB-D layout (rgb/, depth/, rgb.txt, depth.txt,
/// groundtruth.txt, accelerometer.txt) plus labels/ (16-bit per-pixel surface ids) and truth.json.
public enum WalkthroughWriter {
    /// TUM's depth unit: 1/5000 m.
    public static let depthScale = 0.0002

    /// `frameLimit` writes only the first frames (quick tests); `progress` hears (written, total).
    public static func write(_ walkthrough: Walkthrough, to folder: URL, frameLimit: Int? = nil,
                             progress: ((Int, Int) -> Void)? = nil) throws {
        let manager = FileManager.default
        for sub in ["rgb", "depth", "labels"] {
            try manager.createDirectory(at: folder.appendingPathComponent(sub), withIntermediateDirectories: true)
        }
        var rgb = "# color images\n# timestamp filename\n"
        var depth = "# depth maps (16-bit, 5000 per metre)\n# timestamp filename\n"
        var poses = "# camera-to-world poses\n# timestamp tx ty tz qx qy qz qw\n"
        var frames: [[String: Any]] = []
        let total = min(frameLimit ?? walkthrough.frames.count, walkthrough.frames.count)
        for frame in walkthrough.frames.prefix(total) {
            progress?(frame.index, total)
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
            poses += Trajectory.tumLine(timestamp: frame.timestamp + 1, pose: frame.cameraToWorld)
            frames.append([
                "index": frame.index, "timestamp": frame.timestamp + 1, "segment": frame.segment.rawValue,
                "brightness": frame.brightness, "cameraToWorld": frame.cameraToWorld.matrix,
                "posterHomographies": walkthrough.posterHomographies(frame).mapValues(\.elements),
            ])
        }
        try Data(rgb.utf8).write(to: folder.appendingPathComponent("rgb.txt"), options: .atomic)
        try Data(depth.utf8).write(to: folder.appendingPathComponent("depth.txt"), options: .atomic)
        try Data(poses.utf8).write(to: folder.appendingPathComponent("groundtruth.txt"), options: .atomic)
        try Data(accelerometerLog(Array(walkthrough.frames.prefix(total))).utf8)
            .write(to: folder.appendingPathComponent("accelerometer.txt"), options: .atomic)
        let k = walkthrough.intrinsics
        try Data("\(k.fx) \(k.fy) \(k.cx) \(k.cy)\n".utf8).write(to: folder.appendingPathComponent("intrinsics.txt"), options: .atomic)
        let truth: [String: Any] = [
            "schema": "waymark.walkthrough/1",
            "intrinsics": ["fx": k.fx, "fy": k.fy, "cx": k.cx, "cy": k.cy, "pixelCentres": 0.5],
            "size": [walkthrough.width, walkthrough.height], "depthScale": depthScale, "gravity": [down.x, down.y, down.z],
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

    /// The walk-through's gravity.
    static let down = SIMD3<Double>(0, -1, 0)

    /// What a Kinect's accelerometer would read at each frame, in TUM's accelerometer.txt
    /// (`AccelerometerLog`: x left, y up, z forward; the specific force, m/s²: 9.81 upwards at
    /// rest, plus the camera's own acceleration, from the path's second differences where the
    /// frames on either side are one frame interval away, none across a gap), so shaking is in it.
    static func accelerometerLog(_ frames: [Walkthrough.Frame]) -> String {
        var log = "# accelerometer data\n# timestamp ax ay az\n"
        for k in frames.indices {
            var acceleration = SIMD3<Double>.zero
            if k > 0, k + 1 < frames.count {
                let (before, after) = (frames[k].timestamp - frames[k - 1].timestamp, frames[k + 1].timestamp - frames[k].timestamp)
                if abs(before - after) < 1e-6 * after {
                    let (a, b, c) = (frames[k - 1].cameraToWorld.translationVector, frames[k].cameraToWorld.translationVector,
                                     frames[k + 1].cameraToWorld.translationVector)
                    acceleration = (a - 2 * b + c) / (after * after)
                }
            }
            let force = frames[k].cameraToWorld.applyInverseRotation(acceleration - 9.81 * down)
            log += String(format: "%.6f %.6f %.6f %.6f\n", frames[k].timestamp + 1, -force.x, -force.y, force.z)
        }
        return log
    }
}
