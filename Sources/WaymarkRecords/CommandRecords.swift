import Waymark

/// `waymark detect`, schema `waymark.detect/1`: one record per image.
public struct DetectRecord: Codable, Sendable {
    public var schema = RecordSchema.detect
    public var image: String
    public var detections: [DetectionRecord]?
    public var error: String?

    public init(image: String, detections: [DetectionRecord]) {
        self.image = image
        self.detections = detections
    }

    public init(image: String, error: WaymarkError) {
        self.image = image
        self.error = error.message
    }
}

/// `waymark planes`, schema `waymark.planes/1`: one record per input.
public struct PlanesRecord: Codable, Sendable {
    public var schema = RecordSchema.planes
    public var input: String
    public var planes: [PlaneRecord]?
    /// Points of a cloud left out as no measurement (over 1000 km from the sensor); absent
    /// when none.
    public var pointsLeftOut: Int?
    public var error: String?

    public init(input: String, planes: [PlaneRecord], pointsLeftOut: Int = 0) {
        self.input = input
        self.planes = planes
        self.pointsLeftOut = pointsLeftOut > 0 ? pointsLeftOut : nil
    }

    public init(input: String, error: WaymarkError) {
        self.input = input
        self.error = error.message
    }
}

/// `waymark relocalize`, schema `waymark.relocalize/1`.
public struct RelocalizeRecord: Codable, Sendable {
    public var schema = RecordSchema.relocalize
    public var image: String
    public var relocalized: Bool
    public var reason: String
    /// Camera-to-world 4×4; only when relocalized.
    public var pose: [Double]?
    public var inliers: Int
    public var keyframe: Int?

    public init(image: String, _ result: Relocalization) {
        self.image = image
        relocalized = result.isRelocalized
        reason = result.reason.rawValue
        pose = result.cameraToWorld?.record
        inliers = result.inliers
        keyframe = result.keyframe
    }
}

/// `waymark map build`, schema `waymark.map-build/1`.
public struct MapBuildRecord: Codable, Sendable {
    public var schema = RecordSchema.mapBuild
    public var map: String
    public var keyframes: Int
    public var points: Int
    public var anchors: Int
    /// Frames read from the recording.
    public var frames: Int
    /// Frames that had a pose.
    public var framesUsed: Int
    public var framesWithErrors: Int
    /// Images of the recording that no frame used (unpaired colour or depth images).
    public var imagesLeftOut: Int
    /// file, groundtruth or odometry.
    public var poses: String

    public init(map path: String, _ map: WorldMap, frames: Int, framesUsed: Int, framesWithErrors: Int, imagesLeftOut: Int,
                poses: String)
    {
        self.map = path
        keyframes = map.keyframes.count
        points = map.pointCount
        anchors = map.anchors.count
        self.frames = frames
        self.framesUsed = framesUsed
        self.framesWithErrors = framesWithErrors
        self.imagesLeftOut = imagesLeftOut
        self.poses = poses
    }
}

/// `waymark references check`, schema `waymark.references-check/1`: one record per image.
public struct ReferenceCheckRecord: Codable, Sendable {
    public var schema = RecordSchema.referencesCheck
    public var name: String
    public var path: String
    public var width: Int
    public var height: Int
    /// 0–100: the share of trial views found.
    public var score: Int
    public var problems: [String]
    public var reasons: [String]
    /// The reference that shows the same picture.
    public var lookalike: String?

    public init(name: String, path: String, width: Int, height: Int, score: Int, problems: [String], reasons: [String],
                lookalike: String?)
    {
        (self.name, self.path, self.width, self.height, self.score) = (name, path, width, height, score)
        (self.problems, self.reasons, self.lookalike) = (problems, reasons, lookalike)
    }
}

/// `waymark bag info`: one record per topic, then one for the bag.
public struct BagTopicRecord: Codable, Sendable {
    public var schema = RecordSchema.bagInfo
    public var type = "topic"
    public var topic: String
    /// The ROS message type: `sensor_msgs/msg/Image`.
    public var messageType: String
    public var serializationFormat: String
    public var messages: Int
    /// Messages a second between the first and the last; absent for fewer than two.
    public var rate: Double?
    /// The first and last messages' log times, seconds since the epoch.
    public var firstTime: Double?
    public var lastTime: Double?

    public init(_ topic: BagTopic) {
        self.topic = topic.name
        messageType = topic.type
        serializationFormat = topic.serializationFormat
        messages = topic.messageCount
        rate = topic.rate
        firstTime = topic.firstLogTime.map { Double($0) / 1e9 }
        lastTime = topic.lastLogTime.map { Double($0) / 1e9 }
    }
}

public struct BagSummaryRecord: Codable, Sendable {
    public var schema = RecordSchema.bagInfo
    public var type = "bag"
    public var path: String
    /// `mcap` or `sqlite3`.
    public var storage: String
    public var files: [String]
    public var messages: Int
    /// From the first message's log time to the last's, seconds.
    public var duration: Double
    /// Where and why reading stopped before the storage's end; absent for a whole bag.
    public var truncation: String?

    public init(bag: ROSBag, topics: [BagTopic]) {
        path = bag.path
        storage = bag.storage.rawValue
        files = bag.files
        messages = topics.reduce(0) { $0 + $1.messageCount }
        let first = topics.compactMap(\.firstLogTime).min(), last = topics.compactMap(\.lastLogTime).max()
        duration = first.flatMap { first in last.map { Double($0 - first) / 1e9 } } ?? 0
        truncation = bag.truncation
    }
}
