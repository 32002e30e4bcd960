import Foundation
import WaymarkBags
import WaymarkCore
import WaymarkVision

/// What one read of a ROS 2 bag learns before its frames are read: each image topic's stamps,
/// size, encoding and frame; the first CameraInfo of each topic; every Imu sample, pose and
/// transform (small beside the images); and which topic of each kind a frame source takes.
struct BagIndex {
    let path: String
    var imageStamps: [String: [Int64]] = [:]
    var imageFrames: [String: String] = [:]
    var imageSizes: [String: (width: Int, height: Int)] = [:]
    var imageEncodings: [String: String] = [:]
    var compressedTopics: Set<String> = []
    var cameraInfos: [String: ROSCameraInfo] = [:]
    var imuSamples: [String: [(stamp: Int64, acceleration: SIMD3<Double>)]] = [:]
    var imuFrames: [String: String] = [:]
    var poseStamped: [String: [ROSTransform]] = [:]
    var transforms: [String: [ROSTransform]] = [:]
    var truncation: String?
    /// Every topic's message type, for what a choice refuses.
    var topicTypes: [String: String] = [:]

    /// The small messages read whole; any other (images, point clouds) comes with its head only.
    static let wholeTypes: Set<String> = [
        "sensor_msgs/msg/CameraInfo", "sensor_msgs/msg/Imu", "geometry_msgs/msg/PoseStamped", "tf2_msgs/msg/TFMessage",
    ]
    static let colorEncodings: Set<String> = ["rgb8", "bgr8", "mono8", "8UC1"]
    static let depthEncodings: Set<String> = ["16UC1", "mono16", "32FC1"]

    init(path: String) throws(WaymarkError) {
        self.path = path
        let bag = try ROSBag(path: path)
        // Images' heads only: their stamps, sizes and encodings, not their pixels.
        while let message = try bag.next(whole: { _, type in Self.wholeTypes.contains(type) }) {
            if topicTypes[message.topic] == nil { topicTypes[message.topic] = message.type }
            switch message.type {
            case "sensor_msgs/msg/Image":
                let image = try ROSImage(message, readingData: false)
                noteImage(message.topic, stamp: image.stamp, frame: image.frame, size: (image.width, image.height),
                          encoding: image.encoding)
            case "sensor_msgs/msg/CompressedImage":
                let image = try ROSCompressedImage(message, head: true)
                compressedTopics.insert(message.topic)
                var size = (width: 0, height: 0)
                if imageSizes[message.topic] == nil, let header = Image.declaredSize(ofEncoded: image.data) { size = header }
                noteImage(message.topic, stamp: image.stamp, frame: image.frame, size: size, encoding: image.format)
            case "sensor_msgs/msg/CameraInfo":
                if cameraInfos[message.topic] == nil { cameraInfos[message.topic] = try ROSCameraInfo(message) }
            case "sensor_msgs/msg/Imu":
                let imu = try ROSImu(message)
                imuSamples[message.topic, default: []].append((imu.stamp, imu.linearAcceleration))
                if imuFrames[message.topic] == nil { imuFrames[message.topic] = imu.frame }
            case "geometry_msgs/msg/PoseStamped":
                poseStamped[message.topic, default: []].append(try ROSTransform(poseStamped: message))
            case "tf2_msgs/msg/TFMessage":
                transforms[message.topic, default: []] += try ROSTransform.transforms(in: message)
            default:
                break
            }
        }
        truncation = bag.truncation
    }

    private mutating func noteImage(_ topic: String, stamp: Int64, frame: String, size: (width: Int, height: Int),
                                    encoding: String)
    {
        imageStamps[topic, default: []].append(stamp)
        if imageFrames[topic] == nil {
            (imageFrames[topic], imageSizes[topic], imageEncodings[topic]) = (frame, size, encoding)
        }
    }

    /// `named` if the bag holds it as `kind`; else the one candidate; else an error naming them.
    private func choose(_ named: String?, among candidates: [String], kind: String, option: String, required: Bool)
        throws(WaymarkError) -> String?
    {
        if let named {
            guard candidates.contains(named) else {
                let holds = topicTypes[named].map { type in
                    " (\(named) holds \(type)" + (imageEncodings[named].map { " in \($0)" } ?? "") + ", which is not a \(kind) Waymark decodes)"
                } ?? ""
                throw WaymarkError(.usage, "\(path) has no \(kind) topic \(named)" + holds
                                   + (candidates.isEmpty ? "" : "; its \(kind) topics: \(candidates.sorted().joined(separator: ", "))"))
            }
            return named
        }
        switch candidates.count {
        case 0:
            if required { throw WaymarkError(.badData, "\(path) holds no \(kind) topic") }
            return nil
        case 1:
            return candidates[0]
        default:
            throw WaymarkError(.usage, "\(path) holds \(candidates.count) \(kind) topics (\(candidates.sorted().joined(separator: ", "))); "
                               + "choose one with \(option)")
        }
    }

    func chooseColor(_ named: String?) throws(WaymarkError) -> String {
        let candidates = imageStamps.keys.filter { compressedTopics.contains($0) || Self.colorEncodings.contains(imageEncodings[$0] ?? "") }
        return try choose(named, among: candidates, kind: "colour image", option: "--color-topic", required: true)!
    }

    func chooseDepth(_ named: String?) throws(WaymarkError) -> String? {
        let candidates = imageStamps.keys.filter { !compressedTopics.contains($0) && Self.depthEncodings.contains(imageEncodings[$0] ?? "") }
        return try choose(named, among: candidates, kind: "depth image", option: "--depth-topic", required: false)
    }

    /// The chosen CameraInfo; of several, the one beside the colour topic (its namespace's
    /// camera_info, as image_transport pairs them).
    func cameraInfo(_ named: String?, near colorTopic: String) throws(WaymarkError) -> ROSCameraInfo? {
        let candidates = Array(cameraInfos.keys)
        let namespace = colorTopic.split(separator: "/").dropLast().joined(separator: "/")
        let beside = candidates.filter { $0.split(separator: "/").dropLast().joined(separator: "/") == namespace }
        let topic = named == nil && beside.count == 1
            ? beside[0] : try choose(named, among: candidates, kind: "camera info", option: "--camera-info-topic", required: false)
        guard let topic, let info = cameraInfos[topic] else { return nil }
        guard info.k.count == 9, info.k[0] > 0, info.k[4] > 0, info.k.allSatisfy(\.isFinite) else {
            throw WaymarkError(.badData, "\(path): \(topic)'s K is not an intrinsic matrix: \(info.k)")
        }
        return info
    }

    /// The camera's poses: a PoseStamped topic's, or a TFMessage topic's transforms whose child
    /// is the camera's frame. Of one PoseStamped topic and tf, the PoseStamped.
    func poses(_ named: String?, cameraFrame: String) throws(WaymarkError) -> [ROSTransform]? {
        let tfTopics = transforms.keys.filter { topic in topic != "/tf_static" && transforms[topic]!.contains { $0.child == cameraFrame } }
        let candidates = Array(poseStamped.keys) + (poseStamped.count == 1 && named == nil ? [] : tfTopics)
        guard let topic = try choose(named, among: candidates, kind: "pose", option: "--pose-topic", required: false) else { return nil }
        if let poses = poseStamped[topic] { return poses }
        return transforms[topic]!.filter { $0.child == cameraFrame }
    }

    static let identity = [1.0, 0, 0, 0, 1, 0, 0, 0, 1]

    /// The rotation (row-major) that takes vectors in frame `from` to frame `to`, by a tf_static
    /// link between them either way; nil without one.
    func staticRotation(from: String, to: String) -> [Double]? {
        let statics = transforms["/tf_static"] ?? []
        if let link = statics.first(where: { $0.parent == to && $0.child == from }) {
            return Trajectory.rotation(quaternion: link.rotation)
        }
        guard let link = statics.first(where: { $0.parent == from && $0.child == to }),
              let r = Trajectory.rotation(quaternion: link.rotation)
        else { return nil }
        return [r[0], r[3], r[6], r[1], r[4], r[7], r[2], r[5], r[8]]  // transposed: the inverse
    }

    /// Gravity in the camera's frame from the chosen Imu topic: minus its acceleration, turned
    /// by tf_static's rotation between the IMU's frame and the camera's where it has one (as the
    /// identity where not, with a note).
    func gravity(_ named: String?, cameraFrame: String, notes: inout [String]) throws(WaymarkError) -> AccelerometerLog? {
        guard let topic = try choose(named, among: Array(imuSamples.keys), kind: "IMU", option: "--imu-topic", required: false),
              let samples = imuSamples[topic]
        else { return nil }
        let imuFrame = imuFrames[topic] ?? ""
        let rotation = imuFrame == cameraFrame ? Self.identity : staticRotation(from: imuFrame, to: cameraFrame)
        if rotation == nil {
            notes.append("no tf_static relates the IMU's frame '\(imuFrame)' to the camera's '\(cameraFrame)'; "
                         + "its axes are taken as the camera's")
        }
        let r = rotation ?? Self.identity
        return AccelerometerLog(samples: samples.map { sample in
            let a = sample.acceleration
            let inCamera = SIMD3(r[0] * a.x + r[1] * a.y + r[2] * a.z, r[3] * a.x + r[4] * a.y + r[5] * a.z,
                                 r[6] * a.x + r[7] * a.y + r[8] * a.z)
            return (ROSBagSource.seconds(sample.stamp), -inCamera)
        })
    }
}
