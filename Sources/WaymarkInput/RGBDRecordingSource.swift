import Foundation
import WaymarkCore
import WaymarkVision

/// An RGB-D recording on disk, in one of two layouts:
/// - TUM RGB-D: `depth.txt` and optional `rgb.txt` ("timestamp path" lines, # comments),
///   optional `groundtruth.txt` ("timestamp tx ty tz qx qy qz qw", camera-to-world). With
///   colour, a frame is a depth image and the colour image paired with it by
///   `TimestampAssociation` (as TUM's associate.py pairs them); a depth image without a partner
///   is left out, and `info.notes` says how many.
/// - A plain folder: `depth/` and optional `rgb/` (or `color/`) with matching file names, in
///   name order, `framesPerSecond` apart; optional `groundtruth.txt` as above, timestamps in
///   seconds from the first frame. With colour, a depth image without one is left out.
///
/// Either may hold `intrinsics.txt` ("fx fy cx cy" in pixels, pixel centres at +0.5). Recorded
/// poses (groundtruth.txt, or `FrameSourceOptions.posesFile`) are paired with frames by
/// `TimestampAssociation` too; a frame without a pose within the tolerance has none. A TUM
/// folder's accelerometer.txt gives each frame gravity (`AccelerometerLog`).
public final class RGBDRecordingSource: FileFrameSource {
    public enum Layout: String, Sendable { case tum, folder }

    /// One frame's files and pose.
    public struct FrameFiles: Sendable {
        /// The depth image's time (the frame's), seconds.
        public var timestamp: Double
        public var colorPath: String?
        /// The colour image's own time where the layout lists it (TUM's rgb.txt): a Kinect's two
        /// streams are not synchronized, so it can differ from `timestamp` by up to the tolerance.
        public var colorTimestamp: Double?
        public var depthPath: String
        public var cameraToWorld: RigidTransform?
        /// From accelerometer.txt (TUM layout), in the camera's coordinates.
        public var gravity: SIMD3<Double>?
    }

    public let info: FrameSourceInfo
    public let layout: Layout
    public let frames: [FrameFiles]
    public var files: [String] { descriptionFiles + frames.flatMap { [$0.depthPath] + ($0.colorPath.map { [$0] } ?? []) } }
    /// The lists, poses and intrinsics read when the source was opened.
    private let descriptionFiles: [String]
    private let decodesColor: Bool
    private let limits: InputLimits
    private var index = 0

    /// A folder with `depth.txt` (TUM) or a `depth/` folder.
    public static func accepts(_ path: String) -> Bool {
        var isDirectory: ObjCBool = false
        let manager = FileManager.default
        guard manager.fileExists(atPath: path, isDirectory: &isDirectory), isDirectory.boolValue else { return false }
        return manager.fileExists(atPath: path + "/depth.txt") || manager.fileExists(atPath: path + "/depth")
    }

    public init(path folder: String, options: FrameSourceOptions) throws(WaymarkError) {
        guard Self.accepts(folder) else {
            throw WaymarkError(.missingInput, "\(folder) is not an RGB-D recording: it needs depth.txt (TUM) or a depth/ folder")
        }
        guard options.calibration == nil, options.fieldOfView == nil else {
            throw WaymarkError(.usage, "a calibration file or a field of view is for videos and image folders; "
                               + "an RGB-D recording takes its intrinsics.txt or intrinsics fx,fy,cx,cy")
        }
        try options.checkFramesPerSecond()
        let manager = FileManager.default
        var notes: [String] = []
        var leftOut = 0
        var files: [FrameFiles]
        let hasColor: Bool
        if manager.fileExists(atPath: folder + "/depth.txt") {
            layout = .tum
            let depth = try RecordingLists.readList(folder + "/depth.txt", notes: &notes)
            if manager.fileExists(atPath: folder + "/rgb.txt") {
                let color = try RecordingLists.readList(folder + "/rgb.txt", notes: &notes)
                let pairs: [(Int, Int)]
                (pairs, leftOut) = RecordingLists.pairDepthAndColor(depth.map(\.timestamp), color.map(\.timestamp),
                                                                    tolerance: options.associationTolerance, notes: &notes)
                files = pairs.map { d, c in
                    FrameFiles(timestamp: depth[d].timestamp, colorPath: folder + "/" + color[c].path,
                               colorTimestamp: color[c].timestamp, depthPath: folder + "/" + depth[d].path)
                }
                hasColor = true
            } else {
                files = depth.map { FrameFiles(timestamp: $0.timestamp, depthPath: folder + "/" + $0.path) }
                hasColor = false
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
            files = names.enumerated().compactMap { position, name in
                let color = colors[(name as NSString).deletingPathExtension].map { folder + "/\(colorFolder!)/" + $0 }
                guard color != nil || colorFolder == nil else { return nil }
                return FrameFiles(timestamp: Double(position) / options.framesPerSecond, colorPath: color,
                                  depthPath: folder + "/depth/" + name)
            }
            hasColor = colorFolder != nil
            leftOut = names.count - files.count
            if files.count < names.count {
                notes.append("\(names.count - files.count) of \(names.count) depth images have no colour image of the same name and are left out")
            }
        }
        guard let first = files.first else {
            throw WaymarkError(.badData, hasColor ? "\(folder) has no depth image with a colour image" : "\(folder) has no depth images")
        }
        let poses = try RecordingLists.recordedPoses(folder: folder, options: options, timestamps: files.map(\.timestamp))
        if let poses {
            for (k, pose) in poses.poses.enumerated() { files[k].cameraToWorld = pose }
        }
        let gravity = layout == .tum ? try RecordingLists.gravity(folder: folder, timestamps: files.map(\.timestamp)) : nil
        if let gravity {
            for (k, down) in gravity.enumerated() { files[k].gravity = down }
        }
        let size = try DepthImage(contentsOf: first.depthPath, scale: nil, limits: options.limits)
        let depthScale = options.depthScale ?? (layout == .tum ? 1 / 5000 : nil)
        var intrinsics = options.intrinsics
        if intrinsics == nil { intrinsics = try RecordingLists.readIntrinsics(folder + "/intrinsics.txt") }
        info = FrameSourceInfo(
            kind: layout == .tum ? "tum_rgbd" : "rgbd_folder", path: folder, width: size.width, height: size.height,
            framesPerSecond: RecordingLists.framesPerSecond(files.map(\.timestamp)), frameCount: files.count, hasColor: hasColor,
            hasDepth: true, depthScale: depthScale, recordedPoses: poses?.origin, hasGravity: gravity != nil,
            intrinsics: intrinsics, notes: notes, imagesLeftOut: leftOut)
        frames = files
        decodesColor = options.decodesColor
        limits = options.limits
        descriptionFiles = RecordingLists.descriptionFiles(
            ["depth.txt", "rgb.txt", "groundtruth.txt", "intrinsics.txt", "accelerometer.txt"], in: folder,
            posesFile: options.posesFile)
    }

    /// Reads the frame's depth and colour; a frame whose files are missing, unreadable or of
    /// another size comes back with its error.
    public func next() throws(WaymarkError) -> InputFrame? {
        guard index < frames.count else { return nil }
        defer { index += 1 }
        let files = frames[index]
        var frame = InputFrame(index: index, timestamp: files.timestamp, recordedPose: files.cameraToWorld,
                               gravity: files.gravity, intrinsics: info.intrinsics)
        do throws(WaymarkError) {
            let depth = try DepthImage(contentsOf: files.depthPath, scale: info.depthScale, limits: limits)
            guard depth.width == info.width, depth.height == info.height else {
                throw WaymarkError(.badData, "\(files.depthPath) is \(depth.width)×\(depth.height), but the recording's first frame is \(info.width)×\(info.height)")
            }
            frame.depth = depth
            if let path = files.colorPath {
                let image = try Image(contentsOf: path, gray: !decodesColor, limits: limits)
                guard image.width == depth.width, image.height == depth.height else {
                    throw WaymarkError(.badData, "\(path) is \(image.width)×\(image.height) but its depth is \(depth.width)×\(depth.height)")
                }
                if decodesColor { frame.color = image } else { frame.gray = image }
            }
            return frame
        } catch {
            return .failed(index: index, timestamp: files.timestamp, error)
        }
    }
}
