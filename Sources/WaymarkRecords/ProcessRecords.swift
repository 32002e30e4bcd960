import Waymark

/// `waymark process`, schema `waymark.process/7`: a header, then a frame record per frame
/// read (an interruption record where dropped frames begin), then a summary.
public struct ProcessHeader: Codable, Sendable {
    public var type = "header"
    public var schema = RecordSchema.process
    public var waymark: String
    public var opencv: String
    public var eigen: String
    public var input: String
    public var source: SourceRecord
    public var references: [ReferenceRecord]
    public var groups: [String]
    public var autoSelect: Bool
    public var coaching: CoachingSettingsRecord

    public init(waymark: String, input: String, source: SourceRecord, references: [ReferenceRecord], groups: [String],
                autoSelect: Bool, coaching: CoachingOptions)
    {
        let versions = LibraryVersions.current
        (self.waymark, opencv, eigen) = (waymark, versions.opencv, versions.eigen)
        self.input = input
        self.source = source
        self.references = references
        self.groups = groups
        self.autoSelect = autoSelect
        self.coaching = CoachingSettingsRecord(goal: coaching.goal.rawValue, language: coaching.language.rawValue)
    }
}

/// What the input is and what its frames carry.
public struct SourceRecord: Codable, Sendable {
    /// video, image_folder, tum_rgbd, tum_color (colour only), rgbd_folder.
    public var kind: String
    public var width: Int
    public var height: Int
    public var framesPerSecond: Double
    public var frameCount: Int?
    public var hasColor: Bool
    public var hasDepth: Bool
    public var depthScale: Double?
    /// fx, fy, cx, cy.
    public var intrinsics: [Double]?
    /// Where the camera's poses come from: file, groundtruth, odometry (depth) or monocular
    /// (the images alone); absent for inputs that are not tracked (a video without intrinsics).
    public var poses: String?
    /// "unknown" when the poses come from the images alone: the world's unit is the
    /// initialization's (the first points' median depth), not a metre. Absent otherwise.
    public var scale: String?
    /// Where the world's gravity (what is horizontal and vertical) comes from, for tracked
    /// inputs (`GravitySource`): "accelerometer" (the frames carry it: TUM's accelerometer.txt),
    /// "given" (`--gravity`), "estimated" (from the planes among a monocular map's points, with
    /// surfaces on) or "assumed" (the poses' world's −y, or the first camera's +y).
    public var gravity: String?

    public init(_ info: FrameSourceInfo, intrinsics: Intrinsics?, tracked: Bool, monocular: Bool = false,
                gravity: GravitySource? = nil)
    {
        kind = info.kind
        width = info.width
        height = info.height
        framesPerSecond = info.framesPerSecond
        frameCount = info.frameCount
        hasColor = info.hasColor
        hasDepth = info.hasDepth
        depthScale = info.depthScale
        self.intrinsics = intrinsics.map { [$0.fx, $0.fy, $0.cx, $0.cy] }
        poses = tracked ? info.recordedPoses?.rawValue ?? (monocular ? "monocular" : "odometry") : nil
        scale = tracked && monocular ? "unknown" : nil
        self.gravity = tracked ? gravity?.rawValue : nil
    }
}

public struct ReferenceRecord: Codable, Sendable {
    public var name: String
    public var width: Int
    public var height: Int

    public init(_ reference: ReferenceImage) {
        (name, width, height) = (reference.name, reference.width, reference.height)
    }
}

public struct CoachingSettingsRecord: Codable, Sendable {
    public var goal: String
    public var language: String
}

/// One frame. Video frames carry detections and coaching; tracked frames also the pose,
/// tracking, events, planes and anchors; a frame that could not be read only its `error`.
public struct FrameRecord: Codable, Sendable {
    public var type = "frame"
    public var index: Int
    public var timestamp: Double
    public var error: String?
    /// Camera-to-world 4×4; absent while relocalizing.
    public var pose: [Double]?
    /// What gave the pose (`PoseSource`: local_map, odometry, recorded, relocalization,
    /// image_anchor); absent with the pose.
    public var poseSource: String?
    /// Map points the frame tracked (the inliers of its pose); with `poseSource`.
    public var trackedPoints: Int?
    public var tracking: TrackingStateRecord?
    public var mapping: String?
    public var events: [TrackingEventRecord]?
    public var relocalization: RelocalizationRecord?
    public var planes: [PlaneRecord]?
    public var planeEvents: [PlaneEventRecord]?
    public var anchorEvents: [AnchorRecord]?
    /// Named anchors placed on this frame (`--place`).
    public var placed: [AnchorRecord]?
    /// Names that could not be placed on this frame.
    public var placementFailed: [String]?
    public var detections: [DetectionRecord]?
    public var coaching: CoachingRecord?
    public var goalReached: Bool?
    public var light: LightRecord?

    /// A frame that could not be read.
    public init(index: Int, timestamp: Double, error: WaymarkError) {
        self.index = index
        self.timestamp = timestamp
        self.error = error.message
    }

    /// A processed frame; `planes` is the session's plane map after it.
    public init(index: Int, _ result: FrameResult, planes map: PlaneMap, includesDetections: Bool) {
        self.index = index
        timestamp = result.timestamp
        if let update = result.tracking {
            pose = update.cameraToWorld?.record
            poseSource = update.poseSource?.rawValue
            trackedPoints = update.poseSource.map { _ in update.trackedPoints }
            tracking = TrackingStateRecord(update.state)
            mapping = update.mapping.rawValue
            events = update.events.map(TrackingEventRecord.init)
            relocalization = update.relocalization.map { RelocalizationRecord(reason: $0.reason.rawValue, inliers: $0.inliers) }
            planes = zip(result.planes, result.planeAnchorIDs).enumerated().map { k, plane in
                PlaneRecord(plane.0, id: k + 1, anchor: plane.1)
            }
            planeEvents = result.planeEvents.map { PlaneEventRecord($0, map: map) }
            anchorEvents = result.anchorEvents.map(AnchorRecord.init)
        }
        if includesDetections { detections = result.detections.map { DetectionRecord($0, includeState: true) } }
        coaching = result.coaching.message.map(CoachingRecord.init)
        goalReached = result.coaching.isGoalReached
        light = LightRecord(result.light)
    }
}

/// Where dropped frames (`--interrupt`) begin an interruption.
public struct InterruptionRecord: Codable, Sendable {
    public var type = "interruption"
    public var index: Int
    public var timestamp: Double
    public var events: [TrackingEventRecord]
    public var anchorEvents: [AnchorRecord]

    public init(index: Int, timestamp: Double, events: [TrackingEvent], anchorEvents: [AnchorEvent]) {
        self.index = index
        self.timestamp = timestamp
        self.events = events.map(TrackingEventRecord.init)
        self.anchorEvents = anchorEvents.map(AnchorRecord.init)
    }
}

public struct ProcessSummary: Codable, Sendable {
    public var type = "summary"
    /// Frames read from the input, dropped and unreadable ones included.
    public var frames: Int
    public var framesDropped: Int
    public var framesWithErrors: Int
    public var framesWithDetections: Int
    /// Images of the input that no frame used (unpaired colour or depth images).
    public var imagesLeftOut: Int
    /// What the input's reader noticed (images left out, lists out of time order), as the
    /// warnings on stderr said it; absent when nothing.
    public var inputNotes: [String]?
    /// Every frame was read and the input did not break off.
    public var complete: Bool
    /// Why the input stopped early.
    public var error: String?
    public var interruptions: Int
    public var relocalizations: Int
    public var keyframes: Int
    /// The final plane anchors, world coordinates.
    public var planes: [PlaneRecord]
    /// Every anchor of the session, `"event": "present"`.
    public var anchors: [AnchorRecord]

    public init(frames: Int, framesDropped: Int, framesWithErrors: Int, framesWithDetections: Int, stopped: WaymarkError?,
                session: Session, source: FrameSourceInfo)
    {
        self.frames = frames
        self.framesDropped = framesDropped
        self.framesWithErrors = framesWithErrors
        self.framesWithDetections = framesWithDetections
        imagesLeftOut = source.imagesLeftOut
        inputNotes = source.notes.isEmpty ? nil : source.notes
        complete = stopped == nil && framesWithErrors == 0
        error = stopped.map { "stopped after frame \(frames): \($0.message)" }
        interruptions = session.interruptions
        relocalizations = session.relocalizations
        keyframes = session.keyframeCount
        planes = session.planes.anchors.map { PlaneRecord($0.surface, id: $0.id, observations: $0.observations) }
        anchors = session.anchors.map { AnchorRecord($0, event: "present") }
    }
}

/// A line of `process` output, by its `type`.
public enum ProcessLine: Decodable, Sendable {
    case header(ProcessHeader)
    case frame(FrameRecord)
    case interruption(InterruptionRecord)
    case summary(ProcessSummary)

    private enum Key: String, CodingKey { case type }

    public init(from decoder: any Decoder) throws {
        let type = try decoder.container(keyedBy: Key.self).decode(String.self, forKey: .type)
        switch type {
        case "header": self = .header(try ProcessHeader(from: decoder))
        case "frame": self = .frame(try FrameRecord(from: decoder))
        case "interruption": self = .interruption(try InterruptionRecord(from: decoder))
        case "summary": self = .summary(try ProcessSummary(from: decoder))
        default:
            throw DecodingError.dataCorruptedError(forKey: .type, in: try decoder.container(keyedBy: Key.self),
                                                   debugDescription: "unknown record type '\(type)'")
        }
    }
}

/// The whole output of one `process` run, split by record type.
public struct ProcessOutput: Sendable {
    public var header: ProcessHeader
    public var frames: [FrameRecord]
    public var interruptions: [InterruptionRecord]
    /// nil when the run was killed before it ended.
    public var summary: ProcessSummary?

    public init(_ text: some StringProtocol) throws {
        var header: ProcessHeader?
        (frames, interruptions, summary) = ([], [], nil)
        for line in try RecordCoding.records(ProcessLine.self, in: text) {
            switch line {
            case .header(let record): header = record
            case .frame(let record): frames.append(record)
            case .interruption(let record): interruptions.append(record)
            case .summary(let record): summary = record
            }
        }
        guard let header else { throw DecodingError.valueNotFound(ProcessHeader.self, .init(codingPath: [], debugDescription: "no header record")) }
        self.header = header
    }
}
