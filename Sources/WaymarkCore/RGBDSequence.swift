import Foundation

/// The frames of an RGB-D recording on disk: colour and depth image paths, timestamps, and
/// camera poses when the recording has them.
///
/// Two layouts:
/// - TUM RGB-D: `rgb.txt` and `depth.txt` ("timestamp path" lines, # comments), optional
///   `groundtruth.txt` ("timestamp tx ty tz qx qy qz qw", camera-to-world). Each depth image is
///   paired with the colour image nearest in time (within 0.02 s, as TUM's associate.py), each
///   frame with the pose nearest in time (within 0.02 s).
/// - A plain folder: `depth/` and `rgb/` (or `color/`) with matching file names (PNG or JPEG
///   colour), taken in name order at `framesPerSecond`; optional `groundtruth.txt` as above
///   with timestamps in seconds from the first frame.
///
/// Either may hold `intrinsics.txt`: "fx fy cx cy" in pixels, pixel centres at +0.5.
public struct RGBDSequence: Sendable {
    public struct Frame: Sendable {
        public var timestamp: Double
        public var colorPath: String?
        public var depthPath: String
        /// Camera-to-world, when the recording has a pose for this frame.
        public var cameraToWorld: RigidTransform?
    }

    public enum Layout: String, Sendable { case tum, folder }

    public let folder: String
    public let layout: Layout
    public let frames: [Frame]
    /// From `intrinsics.txt`, if present.
    public let intrinsics: Intrinsics?

    /// Whether `path` is a folder in one of the two layouts.
    public static func isSequence(_ path: String) -> Bool {
        let manager = FileManager.default
        var isDirectory: ObjCBool = false
        guard manager.fileExists(atPath: path, isDirectory: &isDirectory), isDirectory.boolValue else { return false }
        return manager.fileExists(atPath: path + "/depth.txt") || manager.fileExists(atPath: path + "/depth")
    }

    public init(folder: String, framesPerSecond: Double = 30) throws(WaymarkError) {
        self.folder = folder
        let manager = FileManager.default
        guard Self.isSequence(folder) else {
            throw WaymarkError(.missingInput, "\(folder) is not an RGB-D sequence: it needs depth.txt (TUM) or a depth/ folder")
        }
        let poses = FileManager.default.fileExists(atPath: folder + "/groundtruth.txt")
            ? try Trajectory(tumFile: folder + "/groundtruth.txt").samples.map { (timestamp: $0.timestamp, value: $0.pose) } : []
        if manager.fileExists(atPath: folder + "/depth.txt") {
            layout = .tum
            let depth = try Self.readList(folder + "/depth.txt")
            let color = manager.fileExists(atPath: folder + "/rgb.txt")
                ? try Self.readList(folder + "/rgb.txt").sorted { $0.timestamp < $1.timestamp } : []
            frames = depth.map { entry in
                Frame(timestamp: entry.timestamp, colorPath: Self.nearest(color, to: entry.timestamp).map { folder + "/" + $0.value },
                      depthPath: folder + "/" + entry.value, cameraToWorld: Self.nearest(poses, to: entry.timestamp)?.value)
            }
        } else {
            layout = .folder
            let colorFolder = ["rgb", "color"].first { manager.fileExists(atPath: folder + "/" + $0) }
            let colors = Dictionary(
                (colorFolder.flatMap { try? manager.contentsOfDirectory(atPath: folder + "/" + $0) } ?? []).map {
                    (($0 as NSString).deletingPathExtension, $0)
                }, uniquingKeysWith: min)
            let names = ((try? manager.contentsOfDirectory(atPath: folder + "/depth")) ?? []).filter {
                ["png", "tif", "tiff", "pfm"].contains(($0 as NSString).pathExtension.lowercased())
            }.sorted()
            frames = names.enumerated().map { index, name in
                let stem = (name as NSString).deletingPathExtension
                let t = Double(index) / framesPerSecond
                return Frame(timestamp: t, colorPath: colors[stem].map { folder + "/\(colorFolder!)/" + $0 },
                             depthPath: folder + "/depth/" + name, cameraToWorld: Self.nearest(poses, to: t)?.value)
            }
        }
        guard !frames.isEmpty else { throw WaymarkError(.badData, "\(folder) has no depth images") }
        intrinsics = try Self.readIntrinsics(folder + "/intrinsics.txt")
    }

    /// Frames have poses from the recording.
    public var hasPoses: Bool { frames.contains { $0.cameraToWorld != nil } }

    private static func lines(_ path: String) throws(WaymarkError) -> [[Substring]]? {
        FileManager.default.fileExists(atPath: path) ? try Trajectory.rows(path) : nil
    }

    private static func readList(_ path: String) throws(WaymarkError) -> [(timestamp: Double, value: String)] {
        try (lines(path) ?? []).enumerated().map { (number, words) throws(WaymarkError) in
            guard words.count >= 2, let t = Double(words[0]) else {
                throw WaymarkError(.badData, "\(path), line \(number + 1): expected 'timestamp filename'")
            }
            return (t, String(words[1]))
        }
    }

    private static func readIntrinsics(_ path: String) throws(WaymarkError) -> Intrinsics? {
        guard let rows = try lines(path) else { return nil }
        let values = rows.joined().compactMap { Double($0) }
        guard values.count == 4 else { throw WaymarkError(.badData, "\(path): expected 'fx fy cx cy'") }
        return try Intrinsics(parsing: values.map { String($0) }.joined(separator: ","))
    }

    /// The entry nearest in time, within 0.02 s; `entries` sorted by time.
    private static func nearest<T>(_ entries: [(timestamp: Double, value: T)], to t: Double) -> (timestamp: Double, value: T)? {
        var low = 0
        var high = entries.count
        while low < high {
            let middle = (low + high) / 2
            if entries[middle].timestamp < t { low = middle + 1 } else { high = middle }
        }
        let candidates = [low - 1, low].filter { entries.indices.contains($0) }
        guard let best = candidates.min(by: { abs(entries[$0].timestamp - t) < abs(entries[$1].timestamp - t) }),
            abs(entries[best].timestamp - t) <= 0.02
        else { return nil }
        return entries[best]
    }
}
