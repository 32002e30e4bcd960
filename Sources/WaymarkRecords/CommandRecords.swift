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
