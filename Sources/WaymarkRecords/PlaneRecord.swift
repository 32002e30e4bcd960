import Waymark

/// A plane's geometry, in camera coordinates (a frame's planes) or world coordinates (anchors).
public struct PlaneRecord: Codable, Sendable {
    public var id: Int
    public var normal: [Double]
    public var offset: Double
    public var inliers: Int
    public var alignment: String
    public var classification: String
    public var center: [Double]
    public var extent: [Double]
    public var polygon: [[Double]]
    /// A frame's plane: the world anchor it joined (absent: none).
    public var anchor: Int?
    /// A final plane anchor: the frames it was seen in.
    public var observations: Int?

    public init(_ plane: DetectedPlane, id: Int, anchor: Int? = nil, observations: Int? = nil) {
        self.id = id
        normal = plane.plane.normal.record
        offset = plane.plane.offset
        inliers = plane.inlierCount
        alignment = plane.alignment.rawValue
        classification = plane.classification.rawValue
        center = plane.center.record
        extent = [plane.extent.x, plane.extent.y]
        polygon = plane.boundaryPoints.map(\.record)
        self.anchor = anchor
        self.observations = observations
    }

    /// Planes of one input, numbered 1, 2, … in order.
    public static func numbered(_ planes: [DetectedPlane]) -> [PlaneRecord] {
        planes.enumerated().map { index, plane in PlaneRecord(plane, id: index + 1) }
    }
}

/// What happened to a plane anchor: added, updated (with its world geometry), merged, removed.
public struct PlaneEventRecord: Codable, Sendable {
    public var event: String
    public var id: Int
    public var plane: PlaneRecord?
    /// `merged`: the anchor that absorbed this one.
    public var into: Int?

    public init(_ event: PlaneEvent, map: PlaneMap) {
        switch event {
        case .added(let id), .updated(let id):
            self.event = if case .added = event { "added" } else { "updated" }
            self.id = id
            plane = map.anchor(id: id).map { PlaneRecord($0.surface, id: id) }
        case .merged(let absorbed, let into):
            self.event = "merged"
            id = absorbed
            self.into = into
        case .removed(let id):
            self.event = "removed"
            self.id = id
        }
    }
}
