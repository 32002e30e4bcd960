import Waymark

/// The input and the session of `process` and `map build`, from their arguments.
enum SessionSetup {
    /// INPUT as a frame source, opened with the options the arguments give.
    static func openSource(_ input: String, arguments: Arguments, decodesColor: Bool, posesFile: String? = nil)
        throws(WaymarkError) -> any FrameSource
    {
        var options = FrameSourceOptions()
        options.framesPerSecond = try arguments.framesPerSecond()
        options.depthScale = try arguments.depthScale()
        options.intrinsics = try arguments.intrinsics()
        options.calibration = try arguments.calibration()
        options.fieldOfView = try arguments.fieldOfView()
        options.posesFile = posesFile
        options.decodesColor = decodesColor
        options.limits = try arguments.limits()
        options.bagTopics = BagTopicChoice(
            color: try arguments.value("--color-topic"), depth: try arguments.value("--depth-topic"),
            cameraInfo: try arguments.value("--camera-info-topic"), imu: try arguments.value("--imu-topic"),
            pose: try arguments.value("--pose-topic"))
        let source = try FrameSources.open(input, options: options)
        if options.bagTopics != BagTopicChoice(), !(source is ROSBagSource) {
            throw WaymarkError(.usage, "--color-topic, --depth-topic, --camera-info-topic, --imu-topic and --pose-topic are for ROS 2 bags; \(input) is not one")
        }
        if source.info.hasDepth, source.info.intrinsics == nil {
            throw WaymarkError(.usage, "\(input) has no intrinsics.txt: --intrinsics fx,fy,cx,cy is needed to turn depth into points")
        }
        return source
    }

    /// The session for a source: the engine's defaults for what it carries, then the
    /// arguments' tracking options, gravity, map to resume and references.
    static func makeSession(_ arguments: Arguments, source: FrameSourceInfo,
                            loaded: (references: [ReferenceImage], options: ImageDetectorOptions)? = nil,
                            coaching: CoachingOptions = CoachingOptions(), objectToPlace: String? = nil)
        throws(WaymarkError) -> Session
    {
        var configuration = SessionConfiguration()
        configuration.adapt(to: source)
        if let timeout = try arguments.value("--relocalization-timeout") {
            guard let seconds = Double(timeout), seconds > 0 else {
                throw WaymarkError(.usage, "--relocalization-timeout must be a positive number of seconds; got '\(timeout)'")
            }
            configuration.tracking.relocalizationTimeout = seconds
        }
        if arguments.flag("--loop-closure") {
            configuration.tracking.loopClosure = LoopClosureOptions()
            configuration.monocularTracking.loopClosure = LoopClosureOptions()
        }
        if arguments.flag("--surfaces") { configuration.surfaces = .all }
        configuration.cameraHeight = try arguments.value("--scale-from").map(parseScaleSource)
        if let gravity = try arguments.value("--gravity") {
            configuration.planeMap.down = try PlanesCommand.parseGravity(gravity)
            configuration.measuresGravity = false
        }
        configuration.worldMap = try arguments.value("--load-map").map { (path: String) throws(WaymarkError) in
            try WorldMap(contentsOf: path)
        }
        if let loaded {
            configuration.references = loaded.references
            configuration.imageTracking.detector = loaded.options
        }
        configuration.coaching = coaching
        configuration.objectToPlace = objectToPlace
        return try Session(configuration: configuration, input: SessionInput(source))
    }

    /// --scale-from camera-height:METRES: the camera's height above the floor.
    static func parseScaleSource(_ text: String) throws(WaymarkError) -> Double {
        let prefix = "camera-height:"
        guard text.hasPrefix(prefix), let metres = Double(text.dropFirst(prefix.count)), metres > 0.05, metres < 100 else {
            throw WaymarkError(.usage, "--scale-from must be camera-height:METRES, the camera's height above the floor "
                               + "(0.05 to 100 m); got '\(text)'")
        }
        return metres
    }

    /// --place NAME:FRAME:X,Y (repeatable): a named anchor placed where pixel (X, Y) of frame
    /// FRAME meets the surfaces, as a person would tap it; the point must lie in the frame.
    static func placements(_ arguments: Arguments, source: FrameSourceInfo) throws(WaymarkError) -> [SessionRunner.Placement] {
        let frameCount = source.frameCount
        return try arguments.values("--place").map { (text: String) throws(WaymarkError) in
            let parts = text.split(separator: ":", omittingEmptySubsequences: false)
            let xy = parts.count == 3 ? parts[2].split(separator: ",").map { Double($0) } : []
            guard parts.count == 3, !parts[0].isEmpty, let frame = Int(parts[1]), frame >= 0, frame < frameCount ?? .max,
                xy.count == 2, let x = xy[0], let y = xy[1], x.isFinite, y.isFinite
            else {
                let range = frameCount.map { " (0–\($0 - 1))" } ?? ""
                throw WaymarkError(.usage, "--place must be NAME:FRAME:X,Y with FRAME a frame index\(range); got '\(text)'")
            }
            guard x >= 0, x < Double(source.width), y >= 0, y < Double(source.height) else {
                throw WaymarkError(.usage, "--place \(text): the point \(x),\(y) is outside the \(source.width)×\(source.height) frame "
                                   + "(X from 0 to under \(source.width), Y from 0 to under \(source.height))")
            }
            return SessionRunner.Placement(name: String(parts[0]), frame: frame, pixel: SIMD2(x, y))
        }
    }

    /// Frame indices --interrupt START:COUNT (repeatable) drops.
    static func droppedFrames(_ arguments: Arguments, frameCount: Int?) throws(WaymarkError) -> Set<Int> {
        var dropped = Set<Int>()
        for text in arguments.values("--interrupt") {
            let parts = text.split(separator: ":").map { Int($0) }
            guard parts.count == 2, let start = parts[0], let count = parts[1], start >= 0, count > 0 else {
                throw WaymarkError(.usage, "--interrupt must be START:COUNT, frame index and number of frames to drop; got '\(text)'")
            }
            let end = frameCount ?? Int.max
            guard start < end else {
                throw WaymarkError(.usage, "--interrupt \(text) starts after the last frame (\(end - 1))")
            }
            dropped.formUnion(start..<min(end, start.addingReportingOverflow(count).overflow ? end : start + count))
        }
        return dropped
    }
}
