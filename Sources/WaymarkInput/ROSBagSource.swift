import Foundation
import WaymarkBags
import WaymarkCore
import WaymarkVision

/// A ROS 2 bag (`ros2 bag record`'s folder, or one .mcap or .db3 file) as frames: its colour
/// images (sensor_msgs Image in rgb8, bgr8 or mono8, or CompressedImage's JPEG or PNG), paired
/// with its depth images (16UC1, millimetres as REP 118 has them unless `depthScale` says
/// otherwise, or 32FC1 in metres) by header stamp as a TUM folder's are (depth first,
/// `TimestampAssociation`); the intrinsics of its CameraInfo; gravity from its Imu's
/// accelerometer, turned into the camera's frame by tf_static when it relates the two; and
/// recorded poses from a PoseStamped topic, or from tf's transforms of the camera's frame.
///
/// Each kind's topic is the one the bag holds, or `FrameSourceOptions.bagTopics`'s; a bag with
/// two of a kind needs the choice (the error lists them). tf is read one link deep: a transform
/// whose child is the camera's frame (a chain world → base → camera is not composed). The bag
/// is read twice: once, at opening, for its stamps and its small messages, then frame by frame
/// for the images, holding a message read ahead of its frame (storage order is arrival order,
/// near time order) until the frame is complete.
public final class ROSBagSource: FileFrameSource {
    /// One frame's messages: the colour and depth images' positions on their topics.
    struct FrameMessages {
        var timestamp: Double
        var color: Int?
        var depth: Int?
        var cameraToWorld: RigidTransform?
        var gravity: SIMD3<Double>?
    }

    public let info: FrameSourceInfo
    public let files: [String]
    let topics: (color: String, depth: String?)
    let frames: [FrameMessages]
    private let colorIsCompressed: Bool
    /// Removes camera_info's lens distortion from the colour frames of a bag without depth.
    private let undistorter: Undistorter?
    private let decodesColor: Bool
    private let limits: InputLimits
    private let bag: ROSBag
    /// Messages read ahead of their frame: by topic position.
    private var pendingColor: [Int: BagMessage] = [:], pendingDepth: [Int: BagMessage] = [:]
    private var seenColor = 0, seenDepth = 0
    private var wantedColor: [Int: Int] = [:], wantedDepth: [Int: Int] = [:]
    private var index = 0

    public static func accepts(_ path: String) -> Bool {
        var isFolder: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isFolder) else { return false }
        // A ROS 1 bag is taken too, to be refused with a way forward rather than read as a video.
        guard isFolder.boolValue else { return [".mcap", ".db3", ".bag"].contains { path.hasSuffix($0) } }
        if let metadata = try? String(contentsOfFile: path + "/metadata.yaml", encoding: .utf8) {
            return metadata.contains("rosbag2_bagfile_information")
        }
        let names = (try? FileManager.default.contentsOfDirectory(atPath: path)) ?? []
        return names.contains { $0.hasSuffix(".mcap") || $0.hasSuffix(".db3") }
    }

    public init(path: String, options: FrameSourceOptions) throws(WaymarkError) {
        guard !path.hasSuffix(".bag") else {
            throw WaymarkError(.badData, "\(path) looks like a ROS 1 bag, which Waymark does not read; rosbags-convert "
                               + "(pip install rosbags) turns it into a ROS 2 bag")
        }
        guard options.calibration == nil, options.fieldOfView == nil else {
            throw WaymarkError(.usage, "a calibration file or a field of view is for videos and image folders; "
                               + "a ROS 2 bag takes its camera_info or intrinsics fx,fy,cx,cy")
        }
        let index = try BagIndex(path: path)
        var notes: [String] = []
        if let cut = index.truncation { notes.append("the recording was cut off (\(cut)); its frames up to there are read") }
        let choice = options.bagTopics
        let colorTopic = try index.chooseColor(choice.color)
        let depthTopic = try index.chooseDepth(choice.depth)
        let colorStamps = index.imageStamps[colorTopic] ?? []
        var frames: [FrameMessages]
        var leftOut = 0
        if let depthTopic {
            let depthStamps = index.imageStamps[depthTopic] ?? []
            let pairs: [(Int, Int)]
            (pairs, leftOut) = RecordingLists.pairDepthAndColor(depthStamps.map(Self.seconds), colorStamps.map(Self.seconds),
                                                                tolerance: options.associationTolerance, notes: &notes)
            frames = pairs.map { d, c in FrameMessages(timestamp: Self.seconds(depthStamps[d]), color: c, depth: d) }
        } else {
            frames = colorStamps.enumerated().map { FrameMessages(timestamp: Self.seconds($1), color: $0) }
        }
        frames.sort { $0.timestamp < $1.timestamp }
        guard !frames.isEmpty else {
            throw WaymarkError(.badData, depthTopic == nil ? "\(path): \(colorTopic) holds no images"
                               : "\(path): no depth image of \(depthTopic!) has a colour image of \(colorTopic) within the tolerance")
        }
        let times = frames.map(\.timestamp)

        let colorFrame = index.imageFrames[colorTopic] ?? ""
        var recordedPoses: RecordedPoseOrigin?
        if let poses = try index.poses(choice.pose, cameraFrame: colorFrame) {
            let partners = TimestampAssociation.partners(of: times, in: poses.map { Self.seconds($0.stamp) },
                                                         tolerance: options.associationTolerance)
            for (k, partner) in partners.enumerated() {
                frames[k].cameraToWorld = partner.flatMap { Self.rigidTransform(poses[$0]) }
            }
            if options.posesFile == nil, frames.contains(where: { $0.cameraToWorld != nil }) { recordedPoses = .topic }
        }
        if options.posesFile != nil, let given = try RecordingLists.recordedPoses(folder: path, options: options, timestamps: times) {
            for (k, pose) in given.poses.enumerated() { frames[k].cameraToWorld = pose }
            recordedPoses = given.origin
        }
        if let log = try index.gravity(choice.imu, cameraFrame: colorFrame, notes: &notes) {
            for k in frames.indices { frames[k].gravity = log.gravity(at: frames[k].timestamp) }
        }
        let size = index.imageSizes[depthTopic ?? colorTopic] ?? index.imageSizes[colorTopic] ?? (0, 0)
        var intrinsics = options.intrinsics
        var undistorter: Undistorter?
        if intrinsics == nil, let cameraInfo = try index.cameraInfo(choice.cameraInfo, near: colorTopic) {
            let k = Intrinsics(fx: cameraInfo.k[0], fy: cameraInfo.k[4], cx: cameraInfo.k[2], cy: cameraInfo.k[5])
            intrinsics = k
            if cameraInfo.distortion.contains(where: { $0 != 0 }) {
                // plumb_bob's k1 k2 p1 p2 k3 and rational_polynomial's eight are OpenCV's own order.
                let models = ["plumb_bob": 5, "rational_polynomial": 8]
                if depthTopic != nil {
                    notes.append("its camera_info has lens distortion (\(cameraInfo.distortionModel)), which is not removed: "
                                 + "the depth images are registered to the distorted colour images")
                } else if models[cameraInfo.distortionModel] == cameraInfo.distortion.count,
                          cameraInfo.width == size.width, cameraInfo.height == size.height {
                    undistorter = Undistorter(CameraCalibration(intrinsics: k, distortion: cameraInfo.distortion,
                                                                width: size.width, height: size.height))
                } else {
                    notes.append("its camera_info's lens distortion (\(cameraInfo.distortionModel), \(cameraInfo.distortion.count) "
                                 + "values, \(cameraInfo.width)×\(cameraInfo.height)) is not one Waymark removes (plumb_bob, "
                                 + "rational_polynomial, at the images' size); it is left in")
                }
            }
        }
        let depthEncoding = depthTopic.flatMap { index.imageEncodings[$0] }
        let depthScale = depthTopic == nil ? nil : options.depthScale ?? (depthEncoding == "32FC1" ? 1 : DepthImage.defaultScaleFor16Bit)

        info = FrameSourceInfo(
            kind: "ros2_bag", path: path, width: size.width, height: size.height,
            framesPerSecond: RecordingLists.framesPerSecond(times), frameCount: frames.count, hasColor: true,
            hasDepth: depthTopic != nil, depthScale: depthScale, recordedPoses: recordedPoses,
            hasGravity: frames.contains { $0.gravity != nil }, intrinsics: intrinsics, notes: notes, imagesLeftOut: leftOut)
        self.frames = frames
        topics = (colorTopic, depthTopic)
        colorIsCompressed = index.compressedTopics.contains(colorTopic)
        self.undistorter = undistorter
        decodesColor = options.decodesColor
        limits = options.limits
        bag = try ROSBag(path: path)
        files = [path] + bag.files + (options.posesFile.map { [$0] } ?? [])
        for (k, frame) in frames.enumerated() {
            if let c = frame.color { wantedColor[c] = k }
            if let d = frame.depth { wantedDepth[d] = k }
        }
    }

    public func next() throws(WaymarkError) -> InputFrame? {
        guard index < frames.count else { return nil }
        let wanted = frames[index]
        while (wanted.color.map { pendingColor[$0] == nil } ?? false) || (wanted.depth.map { pendingDepth[$0] == nil } ?? false) {
            let topics = self.topics
            guard let message = try bag.next(whole: { topic, _ in topic == topics.color || topic == topics.depth }) else {
                // The second read ended sooner than the first (the file changed meanwhile).
                throw WaymarkError(.badData, "\(info.path) ended before frame \(index)'s images; was it changed while being read?")
            }
            if message.topic == topics.color {
                if wantedColor[seenColor] != nil { pendingColor[seenColor] = message }
                seenColor += 1
            } else if message.topic == topics.depth {
                if wantedDepth[seenDepth] != nil { pendingDepth[seenDepth] = message }
                seenDepth += 1
            }
        }
        defer { index += 1 }
        var frame = InputFrame(index: index, timestamp: wanted.timestamp, recordedPose: wanted.cameraToWorld,
                               gravity: wanted.gravity, intrinsics: info.intrinsics)
        do throws(WaymarkError) {
            if let d = wanted.depth, let message = pendingDepth.removeValue(forKey: d) {
                frame.depth = try depthImage(message)
            }
            if let c = wanted.color, let message = pendingColor.removeValue(forKey: c) {
                let decoded = try colorImage(message)
                let image = undistorter.map { $0.undistort(decoded) } ?? decoded
                if let depth = frame.depth, image.width != depth.width || image.height != depth.height {
                    throw WaymarkError(.badData, "\(topics.color) at \(wanted.timestamp) s is \(image.width)×\(image.height) but its depth is \(depth.width)×\(depth.height)")
                }
                if decodesColor && image.channels == 3 { frame.color = image } else { frame.gray = image }
            }
            return frame
        } catch {
            return .failed(index: index, timestamp: wanted.timestamp, error)
        }
    }

    private func colorImage(_ message: BagMessage) throws(WaymarkError) -> Image {
        let name = "\(message.topic) at \(Self.seconds(message.logTime)) s"
        if colorIsCompressed {
            let compressed = try ROSCompressedImage(message)
            return try Image(encoded: compressed.data, named: name, gray: !decodesColor, limits: limits)
        }
        let image = try ROSImage(message)
        try limits.checkPixels(width: image.width, height: image.height, of: name)
        let layout: Image.RawLayout
        switch image.encoding {
        case "rgb8": layout = .rgb
        case "bgr8": layout = .bgr
        case "mono8", "8UC1": layout = .gray
        default:
            throw WaymarkError(.badData, "\(name) is encoded as \(image.encoding); Waymark reads rgb8, bgr8 and mono8 colour images")
        }
        try Self.checkRows(of: image, bytesPerPixel: layout.channels, name: name)
        let picture = Image(width: image.width, height: image.height, layout: layout, rows: image.data, step: image.step)
        return decodesColor || layout == .gray ? picture : picture.gray()
    }

    /// Refuses an image whose bytes are fewer than its rows need.
    private static func checkRows(of image: ROSImage, bytesPerPixel: Int, name: String) throws(WaymarkError) {
        let row = image.width * bytesPerPixel
        guard image.width > 0, image.height > 0, image.step >= row, image.data.count >= image.step * (image.height - 1) + row else {
            throw WaymarkError(.badData, "\(name): \(image.width)×\(image.height) pixels in rows of \(image.step) bytes do not fit its "
                               + "\(image.data.count) bytes")
        }
    }

    private func depthImage(_ message: BagMessage) throws(WaymarkError) -> DepthImage {
        let image = try ROSImage(message)
        let name = "\(message.topic) at \(Self.seconds(message.logTime)) s"
        try limits.checkPixels(width: image.width, height: image.height, of: name)
        let format: DepthImage.RawFormat
        switch image.encoding {
        case "16UC1", "mono16": format = .uint16
        case "32FC1": format = .float32
        default:
            throw WaymarkError(.badData, "\(name) is encoded as \(image.encoding); Waymark reads 16UC1 and 32FC1 depth")
        }
        try Self.checkRows(of: image, bytesPerPixel: format.bytes, name: name)
        return DepthImage(width: image.width, height: image.height, format: format, bigEndian: image.isBigEndian, rows: image.data,
                          step: image.step, scale: info.depthScale ?? 1)
    }

    /// A stamp in seconds: the double nearest the stamp's decimal value, as a TUM list's text
    /// of the same time reads (so that a bag and the folder it came from pair alike).
    static func seconds(_ nanoseconds: Int64) -> Double {
        let sign = nanoseconds < 0 ? "-" : "", magnitude = nanoseconds.magnitude
        let fraction = String(magnitude % 1_000_000_000)
        return Double("\(sign)\(magnitude / 1_000_000_000).\(String(repeating: "0", count: 9 - fraction.count))\(fraction)")!
    }

    static func rigidTransform(_ transform: ROSTransform) -> RigidTransform? {
        Trajectory.rotation(quaternion: transform.rotation).map { RigidTransform(rotation: $0, translation: [transform.translation.x, transform.translation.y, transform.translation.z]) }
    }
}
