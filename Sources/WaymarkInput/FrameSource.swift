import Foundation
import WaymarkCore
import WaymarkVision

/// Frames in order from a recording, a camera or a robot's log. `next()` gives the next frame,
/// or nil at the end; a frame that cannot be read comes back with its `error` set and the source
/// goes on, while a stream that cannot go on (a truncated video) throws.
///
/// A new kind of input is one new type: conform to `FileFrameSource` and add it to
/// `FrameSources.kinds` to open it by path, or hand an instance to the caller directly.
public protocol FrameSource: AnyObject {
    var info: FrameSourceInfo { get }
    /// Every file the source reads (lists, poses, frames), so that a caller can make sure it
    /// writes none of them.
    var files: [String] { get }
    func next() throws(WaymarkError) -> InputFrame?
}

/// A frame source opened from a path.
public protocol FileFrameSource: FrameSource {
    /// Whether `path` is this kind of input; `FrameSources.open` asks each kind in turn.
    static func accepts(_ path: String) -> Bool
    init(path: String, options: FrameSourceOptions) throws(WaymarkError)
}

/// What every frame of a source carries, known before the first frame.
public struct FrameSourceInfo: Sendable {
    /// "video", "image_folder", "tum_rgbd", "rgbd_folder", …: for records and messages.
    public var kind: String
    public var path: String
    public var width: Int
    public var height: Int
    /// 0 when unknown.
    public var framesPerSecond: Double
    /// nil when unknown (a stream).
    public var frameCount: Int?
    /// Every frame has a colour (or gray) picture.
    public var hasColor: Bool
    public var hasDepth: Bool
    /// Metres per stored depth unit; nil for DepthImage's default (millimetres for 16-bit,
    /// metres for float images).
    public var depthScale: Double?
    /// Where recorded poses come from, when frames have them.
    public var recordedPoses: RecordedPoseOrigin?
    /// Frames carry gravity in the camera's coordinates (an accelerometer's).
    public var hasGravity: Bool
    public var intrinsics: Intrinsics?
    /// Things a person should know about the input (frames left out, and why).
    public var notes: [String]
    /// Images the input holds that no frame uses (a colour image without depth within the
    /// association tolerance, or the reverse); `notes` say why.
    public var imagesLeftOut: Int

    public init(kind: String, path: String, width: Int, height: Int, framesPerSecond: Double, frameCount: Int?,
                hasColor: Bool, hasDepth: Bool, depthScale: Double? = nil, recordedPoses: RecordedPoseOrigin? = nil,
                hasGravity: Bool = false, intrinsics: Intrinsics? = nil, notes: [String] = [], imagesLeftOut: Int = 0)
    {
        self.kind = kind
        self.path = path
        self.width = width
        self.height = height
        self.framesPerSecond = framesPerSecond
        self.frameCount = frameCount
        self.hasColor = hasColor
        self.hasDepth = hasDepth
        self.depthScale = depthScale
        self.recordedPoses = recordedPoses
        self.hasGravity = hasGravity
        self.intrinsics = intrinsics
        self.notes = notes
        self.imagesLeftOut = imagesLeftOut
    }
}

/// Where a source's recorded poses come from.
public enum RecordedPoseOrigin: String, Sendable {
    /// A trajectory file the caller gave (`FrameSourceOptions.posesFile`).
    case file
    /// The recording's own ground truth (groundtruth.txt).
    case groundtruth
    /// A topic of a ROS 2 bag (PoseStamped, or tf's transforms of the camera's frame).
    case topic
}

/// Which topics of a ROS 2 bag make its frames; nil for the one topic of that kind the bag
/// holds (and none where it holds none, but for colour).
public struct BagTopicChoice: Sendable, Equatable {
    public var color: String?
    public var depth: String?
    public var cameraInfo: String?
    public var imu: String?
    public var pose: String?

    public init(color: String? = nil, depth: String? = nil, cameraInfo: String? = nil, imu: String? = nil, pose: String? = nil) {
        (self.color, self.depth, self.cameraInfo, self.imu, self.pose) = (color, depth, cameraInfo, imu, pose)
    }
}

/// How to open a source. Each option applies where the input has no say of its own.
public struct FrameSourceOptions: Sendable {
    /// Image folders and plain RGB-D folders, whose files carry no time: frames per second.
    public var framesPerSecond = 30.0
    /// Metres per depth unit; nil for TUM's 1/5000 in the TUM layout, else DepthImage's default.
    public var depthScale: Double?
    /// Replaces the recording's own intrinsics (intrinsics.txt).
    public var intrinsics: Intrinsics?
    /// Videos and image folders: the camera's calibration, scaled to the frames' size; each
    /// frame's lens distortion is removed, and the intrinsics are the calibration's.
    public var calibration: CameraCalibration?
    /// Videos and image folders: intrinsics from this horizontal field of view, degrees (a
    /// guess, noted as one).
    public var fieldOfView: Double?
    /// A TUM trajectory (camera-to-world) whose poses replace the recording's ground truth.
    public var posesFile: String?
    /// Decode colour frames in colour; off, frames carry gray only (less to decode).
    public var decodesColor = true
    /// How far apart in time a colour image, a depth image and a pose may be to belong to one frame.
    public var associationTolerance = TimestampAssociation.defaultTolerance
    /// The largest frame accepted, checked before a frame is decoded.
    public var limits = InputLimits.standard
    /// ROS 2 bags: the topics to read.
    public var bagTopics = BagTopicChoice()

    public init() {}

    /// For inputs that take their timing from `framesPerSecond`.
    func checkFramesPerSecond() throws(WaymarkError) {
        guard framesPerSecond > 0, framesPerSecond.isFinite else {
            throw WaymarkError(.usage, "frames per second must be a positive number; got \(framesPerSecond)")
        }
    }
}

/// Opening an input by its path.
public enum FrameSources {
    /// The kinds of input a path can be, asked in this order (the video last: it takes any file).
    public static var kinds: [any FileFrameSource.Type] {
        [ROSBagSource.self, RGBDRecordingSource.self, ColorSequenceSource.self, ImageFolderSource.self, VideoFileSource.self]
    }

    /// The source for `path`: the first kind that accepts it.
    public static func open(_ path: String, options: FrameSourceOptions = FrameSourceOptions()) throws(WaymarkError)
        -> any FrameSource
    {
        guard FileManager.default.fileExists(atPath: path) else {
            _ = try regularFileSize(path)  // says why: missing, a loop of links, no permission
            throw WaymarkError(.missingInput, "no such file or folder: \(path)")
        }
        guard let kind = kinds.first(where: { $0.accepts(path) }) else {
            throw WaymarkError(.badData, "\(path) is a folder without images (\(ImageFolderSource.extensions.sorted().joined(separator: ", "))) "
                               + "and not a recording (depth.txt or a depth/ folder, or rgb.txt)")
        }
        return try kind.init(path: path, options: options)
    }
}
