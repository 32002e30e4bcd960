import Foundation
import WaymarkCore
import WaymarkVision

/// A TUM folder with colour and no depth (`rgb.txt`, as monocular users have the TUM
/// sequences): a plain video whose frames carry their recorded times, so a gap in it is an
/// interruption; poses from groundtruth.txt or `FrameSourceOptions.posesFile` where given,
/// gravity from accelerometer.txt (`AccelerometerLog`) where the folder has it.
/// The camera is as for a video: intrinsics, a calibration or a field of view, else
/// intrinsics.txt.
public final class ColorSequenceSource: FileFrameSource {
    public struct FrameFiles: Sendable {
        public var timestamp: Double
        public var colorPath: String
        public var cameraToWorld: RigidTransform?
        /// From accelerometer.txt, in the camera's coordinates.
        public var gravity: SIMD3<Double>?
    }

    public let info: FrameSourceInfo
    public let frames: [FrameFiles]
    public var files: [String] { descriptionFiles + frames.map(\.colorPath) }
    private let descriptionFiles: [String]
    private let decodesColor: Bool
    private let limits: InputLimits
    private let camera: MonocularCamera
    private var index = 0

    /// A folder with `rgb.txt` and no depth (neither depth.txt nor a depth/ folder).
    public static func accepts(_ path: String) -> Bool {
        FileManager.default.fileExists(atPath: path + "/rgb.txt") && !RGBDRecordingSource.accepts(path)
    }

    public init(path folder: String, options: FrameSourceOptions) throws(WaymarkError) {
        guard Self.accepts(folder) else {
            throw WaymarkError(.missingInput, "\(folder) is not a colour sequence: it needs rgb.txt and no depth")
        }
        var notes: [String] = []
        let list = try RecordingLists.readList(folder + "/rgb.txt", notes: &notes)
        guard let first = list.first else { throw WaymarkError(.badData, "\(folder)/rgb.txt lists no images") }
        let image = try Image(contentsOf: folder + "/" + first.path, gray: !options.decodesColor, limits: options.limits)
        var files = list.map { FrameFiles(timestamp: $0.timestamp, colorPath: folder + "/" + $0.path) }
        let poses = try RecordingLists.recordedPoses(folder: folder, options: options, timestamps: files.map(\.timestamp))
        if let poses {
            for (k, pose) in poses.poses.enumerated() { files[k].cameraToWorld = pose }
        }
        let gravity = try RecordingLists.gravity(folder: folder, timestamps: files.map(\.timestamp))
        if let gravity {
            for (k, down) in gravity.enumerated() { files[k].gravity = down }
        }
        var cameraOptions = options
        if options.intrinsics == nil, options.calibration == nil, options.fieldOfView == nil {
            cameraOptions.intrinsics = try RecordingLists.readIntrinsics(folder + "/intrinsics.txt")
        }
        camera = try MonocularCamera(options: cameraOptions, width: image.width, height: image.height)
        info = FrameSourceInfo(
            kind: "tum_color", path: folder, width: image.width, height: image.height,
            framesPerSecond: RecordingLists.framesPerSecond(files.map(\.timestamp)), frameCount: files.count, hasColor: true,
            hasDepth: false, recordedPoses: poses?.origin, hasGravity: gravity != nil,
            intrinsics: camera.intrinsics, notes: notes + camera.notes)
        frames = files
        decodesColor = options.decodesColor
        limits = options.limits
        descriptionFiles = RecordingLists.descriptionFiles(["rgb.txt", "groundtruth.txt", "intrinsics.txt", "accelerometer.txt"],
                                                           in: folder, posesFile: options.posesFile)
    }

    /// Reads the frame's image; one that is missing, unreadable or of another size comes back
    /// with its error.
    public func next() throws(WaymarkError) -> InputFrame? {
        guard index < frames.count else { return nil }
        defer { index += 1 }
        let files = frames[index]
        var frame = InputFrame(index: index, timestamp: files.timestamp, recordedPose: files.cameraToWorld,
                               gravity: files.gravity, intrinsics: info.intrinsics)
        do throws(WaymarkError) {
            let decoded = try Image(contentsOf: files.colorPath, gray: !decodesColor, limits: limits)
            guard decoded.width == info.width, decoded.height == info.height else {
                throw WaymarkError(.badData, "\(files.colorPath) is \(decoded.width)×\(decoded.height), but the sequence's first image is \(info.width)×\(info.height)")
            }
            let image = camera.prepare(decoded)
            if decodesColor { frame.color = image } else { frame.gray = image }
            return frame
        } catch {
            return .failed(index: index, timestamp: files.timestamp, error)
        }
    }
}
