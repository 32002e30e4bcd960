/// Which surfaces a session looks for.
public struct SurfaceKinds: OptionSet, Sendable {
    public let rawValue: Int
    public init(rawValue: Int) { self.rawValue = rawValue }
    public static let horizontal = SurfaceKinds(rawValue: 1)
    public static let vertical = SurfaceKinds(rawValue: 2)
    public static let all: SurfaceKinds = [.horizontal, .vertical]

    /// Whether a surface of this alignment is one of these kinds.
    public func includes(_ alignment: SurfaceAlignment) -> Bool {
        switch alignment {
        case .horizontalUp, .horizontalDown: contains(.horizontal)
        case .vertical: contains(.vertical)
        case .other: false
        }
    }
}

/// Everything a `Session` does, chosen once: as ARKit's configuration.
public struct SessionConfiguration {
    /// The active reference images (at most 25, or any number with retrieval selection).
    public var references: [ReferenceImage] = []
    public var imageTracking = ImageTrackerOptions()
    /// Surfaces to find in the depth; empty for none.
    public var surfaces: SurfaceKinds = .all
    /// After an interruption, find the camera in the world map again (on) or start a new world
    /// at once (off).
    public var relocalization = true
    public var coaching = CoachingOptions()
    public var tracking = WorldTrackingOptions()
    /// How frames without depth or recorded poses are tracked (when the intrinsics are known).
    public var monocularTracking = MonocularTrackingOptions()
    public var planeMap = PlaneMapOptions()
    /// The world's gravity is measured from frames that carry it (`SessionFrame.gravity`, an
    /// accelerometer's) and have a pose: their mean in the world, over the frames before the
    /// first surface is seen, replaces `planeMap.down`. Off when the caller knows the world's
    /// gravity (`planeMap.down` then stands).
    public var measuresGravity = true
    /// A saved world to resume: the session starts by relocalizing into it.
    public var worldMap: WorldMap?
    /// The object a person is about to place: coaching asks them to tap a location for it once
    /// the goal is reached, until it is placed.
    public var objectToPlace: String?
    /// The camera's height above the floor, metres, about constant (a phone held at chest
    /// height, a robot's camera): a world tracked from images alone takes its scale from it once
    /// the floor is found among the map's points (`Session+Scale`), unless a reference image of
    /// known width fixes it first.
    public var cameraHeight: Double?

    public init() {}

    /// Searches `library`'s `groups` (all of it when empty): at most 25 images at once, or with
    /// `autoSelect` any number, a retrieval step choosing the 25 most likely per frame.
    /// Each image is prepared here (features, index), so this is the slow part of setting up.
    public mutating func useReferences(from library: ReferenceLibrary, groups: Set<String> = [], autoSelect: Bool = false)
        throws(WaymarkError)
    {
        let (entries, selection) = try library.searchedEntries(groups: groups, autoSelect: autoSelect)
        var prepared: [ReferenceImage] = []
        for entry in entries { prepared.append(try ReferenceImage(entry: entry)) }
        references = prepared
        imageTracking.detector.selection = selection
    }
}

/// What the frames of an input carry, for the capability check before a run.
public struct SessionInput: Sendable {
    public var width: Int
    public var height: Int
    public var hasDepth: Bool
    public var hasRecordedPoses: Bool
    /// Needed to turn depth into points and to give reference images a pose.
    public var intrinsics: Intrinsics?
    /// Frames carry gravity (`SessionFrame.gravity`).
    public var hasGravity: Bool

    public init(width: Int, height: Int, hasDepth: Bool, hasRecordedPoses: Bool = false, intrinsics: Intrinsics? = nil,
                hasGravity: Bool = false)
    {
        self.width = width
        self.height = height
        self.hasDepth = hasDepth
        self.hasRecordedPoses = hasRecordedPoses
        self.intrinsics = intrinsics
        self.hasGravity = hasGravity
    }
}

/// What a configuration can and cannot do with an input, known before the first frame (as
/// ARKit's `isSupported`): problems stop the session from starting; notes are limits to know.
public struct SessionSupport: Sendable {
    public var problems: [String]
    public var notes: [String]
    public var isSupported: Bool { problems.isEmpty }

    public init(_ configuration: SessionConfiguration, input: SessionInput) {
        var problems: [String] = []
        var notes: [String] = []
        let goal = configuration.coaching.goal
        if !input.hasDepth {
            if !configuration.surfaces.isEmpty, input.intrinsics == nil || input.hasRecordedPoses {
                problems.append("finding surfaces needs depth images, or the camera's intrinsics and no recorded poses")
            }
            if configuration.relocalization, input.intrinsics == nil || input.hasRecordedPoses {
                problems.append("resuming after an interruption needs depth images, or the camera's intrinsics and no recorded poses")
            }
            if goal == .tracking, !input.hasRecordedPoses, input.intrinsics == nil {
                problems.append("following the camera needs depth images, recorded poses or the camera's intrinsics, and this input has none")
            }
        } else if input.intrinsics == nil {
            problems.append("depth images need the camera's intrinsics (fx, fy, cx, cy) to become points")
        }
        if let map = configuration.worldMap, !map.isMetric, input.hasDepth || input.hasRecordedPoses {
            problems.append("the world map's scale is unknown (it was tracked from images alone and no reference image of "
                            + "known width fixed it): it resumes with frames tracked from their images, not with depth or recorded poses")
        }
        let surfaceGoal: SurfaceKinds? = switch goal {
        case .horizontalSurface: .horizontal
        case .verticalSurface: .vertical
        case .anySurface: .all
        case .tracking, .image: nil
        }
        if let surfaceGoal, configuration.surfaces.intersection(surfaceGoal).isEmpty {
            problems.append("the coaching goal '\(goal.rawValue)' needs that kind of surface to be looked for")
        }
        if goal == .image, configuration.references.isEmpty {
            problems.append("the coaching goal 'image' needs reference images")
        }
        let sized = configuration.references.filter { $0.entry.physicalWidth != nil }
        if !sized.isEmpty, input.intrinsics == nil {
            notes.append("reference images get no pose without the camera's intrinsics")
        }
        if let intrinsics = input.intrinsics, intrinsics.cx > Double(input.width) || intrinsics.cy > Double(input.height) {
            problems.append("the intrinsics' centre (\(intrinsics.cx), \(intrinsics.cy)) lies outside the \(input.width)×\(input.height) frames")
        }
        self.problems = problems
        self.notes = notes
    }
}
