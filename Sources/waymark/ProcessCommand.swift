import Foundation
import Waymark
import WaymarkRecords

enum ProcessCommand: Command {
    static let name = "process"
    static let help = """
        Usage: waymark process VIDEO --references MANIFEST|FOLDER [--group G]... [--auto-select]
                               [--output FILE] [--annotate VIDEO] [--report FILE]
                               [--intrinsics fx,fy,cx,cy | --calibration FILE | --fov DEGREES]
                               [--trajectory FILE] [--interrupt START:COUNT]... [--save-map FILE]
                               [--load-map FILE] [--surfaces] [--place NAME:FRAME:X,Y]...
                               [--scale-from camera-height:METRES] [--quiet]
               waymark process SEQUENCE [--references MANIFEST|FOLDER] [--intrinsics fx,fy,cx,cy] [--annotate VIDEO]
                               [--report FILE]
                               [--depth-scale S] [--gravity x,y,z] [--fps N] [--trajectory FILE]
                               [--interrupt START:COUNT]... [--place NAME:FRAME:X,Y]... [--save-map FILE]
                               [--load-map FILE]
                               [--relocalization-timeout SECONDS] [--loop-closure] [--output FILE] [--quiet]
               waymark process BAG [--color-topic T] [--depth-topic T] [--camera-info-topic T] [--imu-topic T]
                               [--pose-topic T] and SEQUENCE's options
               (all) [--goal GOAL] [--language en|zh-Hans|zh-Hant]

        Follows the active reference images through VIDEO (a video file, a FOLDER of images
        taken as frames in name order, --fps apart, or a TUM folder with rgb.txt and no depth,
        its frames at their listed times). When the camera is known (--intrinsics, --calibration,
        --fov, or the folder's intrinsics.txt) the camera is also tracked from the images alone:
        each frame reports its tracking state and pose in a world whose scale is unknown
        (docs/OUTPUT.md), and --trajectory, --interrupt, --save-map and --load-map work as
        for a SEQUENCE; --references is then optional. Writes JSON Lines (schema
        "waymark.process/7", see docs/OUTPUT.md): a header record, one record per frame
        {"type": "frame", "index", "timestamp" (seconds, from the video), "detections": [...
        with "state": detected | tracked | lost], "coaching": the message on screen (absent when
        none), "goalReached", "light": the scene's ambient intensity (ARKit's scale, 1000 for a
        frame exposed for middle gray), colour temperature and colour correction}, and a summary
        record. The file is flushed after every frame. An
        image of a FOLDER that cannot be read gets a frame record with its "error" and the run
        goes on; if the video breaks off, the frames so far are kept and the summary says where
        it stopped. Either way the exit code says so (65 for bad data).

        SEQUENCE is an RGB-D recording: a TUM RGB-D folder (rgb.txt, depth.txt, optional
        groundtruth.txt) or a plain folder (depth/ and rgb/ or color/ with matching names; see the
        README), or a ROS 2 BAG (a folder with metadata.yaml and its .mcap or .db3 files, or
        one such file): its colour images (Image rgb8, bgr8, mono8, or CompressedImage JPEG/PNG)
        paired with its depth images (16UC1 in millimetres unless --depth-scale says otherwise,
        or 32FC1 in metres) by header stamp as a TUM folder's are, its CameraInfo's intrinsics,
        gravity from its Imu (turned into the camera's frame by tf_static), and recorded poses
        from a PoseStamped topic or tf's transforms of the camera's frame; each kind's topic is
        the one the bag holds, else the --*-topic option names it (`waymark bag info BAG` lists
        them). A BAG whose recording was cut off gives the frames written. Each frame record then has "planes" (this frame's, in camera coordinates, each
        with the "anchor" it joined) and "planeEvents" (added, updated, merged, removed world
        anchors) in the world of groundtruth.txt's poses, or, without it, of the engine's own
        RGB-D odometry (world = the first camera); the summary lists the final anchors.
        Each frame also reports its tracking state and mapping status. A time jump over 0.5 s
        (or three frame intervals, whichever is longer), dropped frames or lost tracking is an
        interruption: no pose and every anchor hidden until the camera is relocalized in the
        map, then poses in the original world and the anchors restored where they were.

        Options:
          --references PATH   a manifest (.json) or a folder of images
          --group NAME        search only this group (repeatable); at most 25 images at once
          --auto-select       search a library of any size: per frame, a fast retrieval step picks
                              the 25 most likely references and only those are searched
          --output FILE       write the records here instead of standard output
          --annotate VIDEO    also write the video as a person would see it in an app (.mp4, .avi):
                              image outlines and names, surfaces, the surface indicator, the
                              tracking state and the coaching message (needs fonts-noto-cjk)
          --report FILE       also write a one-page HTML report: a timeline of tracking, coaching,
                              images and surfaces, the messages, and thumbnails of the frames
          --intrinsics LIST   fx,fy,cx,cy in pixels, to report each image's pose (and, for a
                              SEQUENCE without intrinsics.txt, to turn depth into points)
          --calibration FILE  VIDEO: the camera's OpenCV calibration (YAML, XML or JSON, as
                              OpenCV's calibration sample writes it); frames are undistorted and
                              the intrinsics are its own, scaled to the video's size
          --fov DEGREES       VIDEO: intrinsics from the horizontal field of view of an
                              uncalibrated camera (a warning says poses are approximate)
          --depth-scale S     SEQUENCE: metres per depth unit (default 0.0002 for TUM; else 0.001
                              for 16-bit and 1 for float depth images)
          --gravity x,y,z     SEQUENCE: the direction of gravity in the poses' world (default:
                              measured from the folder's accelerometer.txt where it has one, else
                              0,-1,0 with recorded poses and the first camera's +y without)
          --fps N             image FOLDER or plain-folder SEQUENCE: frames per second (default 30)
          --trajectory FILE   SEQUENCE, tracked VIDEO: write the camera poses used, TUM format
                              (camera-to-world)
          --interrupt S:N     SEQUENCE, tracked VIDEO: drop N frames from index S, as an
                              interruption (repeatable)
          --save-map FILE     SEQUENCE, tracked VIDEO: write the world map (.waymap) when an
                              interruption starts and at the end
          --load-map FILE     SEQUENCE, tracked VIDEO: start by relocalizing into this map's
                              world; its anchors are restored once found
          --place NAME:FRAME:X,Y
                              SEQUENCE, tracked VIDEO: place a named anchor where pixel X,Y of
                              frame FRAME meets the surfaces, as a tap would (repeatable); kept in
                              the world map. A video's world must be metric by then (a reference
                              image of known width seen, or --scale-from), else it is not placed
          --relocalization-timeout SECONDS
                              SEQUENCE: give relocalization up after this long (stream time) and
                              start a new world (default: keep trying)
          --scale-from camera-height:METRES
                              tracked VIDEO: the camera's height above the floor, about constant;
                              the world becomes metric once the floor is found among the map's
                              points, unless a reference image of known width fixes it first
          --surfaces          tracked VIDEO: find surfaces among the map's points once the world
                              is metric (a reference image of known width, or --scale-from),
                              with gravity from the frames (a TUM folder's accelerometer.txt) or
                              else estimated from the map's planes (off by default: on our
                              walk-through one in seven was within 3° and 3 cm of a true surface;
                              Benchmarks/RESULTS.md)
          --loop-closure      input without recorded poses: when the camera comes back to a
                              place mapped long before, correct the path since and the anchors
                              ("loop_closed" and "moved" in the records; from a single camera
                              the path's scale too, "scaleCorrection"). Off by default: our
                              sequences leave it nothing to correct, and re-indexing the map for
                              it costs a frame ~150 ms (docs/ARCHITECTURE.md)
          --goal GOAL         what coaching works towards (done once reached): tracking (default
                              for a tracked VIDEO without references), horizontal_surface,
                              vertical_surface, any_surface (SEQUENCE default) or image (VIDEO
                              default)
          --language LANG     coaching messages in en (default), zh-Hans or zh-Hant
        \(Arguments.limitHelp)
          --color-topic T, --depth-topic T, --camera-info-topic T, --imu-topic T, --pose-topic T
                              BAG: the topic of each kind to read, where the bag has several
          --quiet             no progress and no warnings
          --help              this text
        """
    static let valueOptions: Set<String> = [
        "--max-megapixels", "--references", "--group", "--output", "--annotate", "--intrinsics", "--calibration", "--fov", "--depth-scale", "--gravity", "--fps",
        "--trajectory", "--interrupt", "--relocalization-timeout", "--save-map", "--load-map", "--place", "--language",
        "--goal", "--report", "--scale-from", "--color-topic", "--depth-topic", "--camera-info-topic", "--imu-topic", "--pose-topic",
    ]
    static let flagOptions: Set<String> = ["--auto-select", "--quiet", "--help", "--loop-closure", "--surfaces"]
    /// Options that only an input with depth can use.
    static let depthOptions = [
        "--depth-scale", "--gravity", "--trajectory", "--interrupt", "--save-map", "--load-map", "--place",
        "--relocalization-timeout", "--loop-closure", "--surfaces",
    ]
    /// Of those, the ones a VIDEO tracked from its images alone (its camera known) can use too.
    static let monocularOptions: Set<String> = [
        "--trajectory", "--interrupt", "--save-map", "--load-map", "--surfaces", "--place", "--loop-closure",
    ]

    static func run(_ arguments: Arguments) throws(WaymarkError) -> ExitCode {
        guard arguments.positionals.count == 1 else {
            throw WaymarkError(.usage, "process needs exactly one VIDEO, image FOLDER or SEQUENCE; see --help")
        }
        let input = arguments.positionals[0]
        // Parsed first: a bad --language or --goal is refused before any file is read.
        var coaching = try arguments.coaching(defaultGoal: .image)
        let quiet = arguments.flag("--quiet")
        let hasReferences = try arguments.value("--references") != nil
        if !hasReferences, let option = ["--group", "--auto-select"].first(where: arguments.has) {
            throw WaymarkError(.usage, "\(option) chooses among reference images: it needs --references")
        }
        // In colour always: every frame's record gives the light's colour.
        let source = try SessionSetup.openSource(input, arguments: arguments, decodesColor: true)
        let info = source.info
        let monocular = !info.hasDepth && info.recordedPoses == nil && info.intrinsics != nil
        if arguments.has("--scale-from"), !monocular {
            let metric = info.hasDepth ? "depth" : info.recordedPoses != nil ? "recorded poses" : nil
            throw WaymarkError(.usage, metric.map {
                "--scale-from is for a VIDEO tracked from its images, whose scale is unknown; \(input) is metric (it has \($0))"
            } ?? "--scale-from needs a VIDEO whose camera is known (--intrinsics, --calibration or --fov)")
        }
        if !info.hasDepth {
            if let option = depthOptions.first(where: { arguments.has($0) && !(monocular && monocularOptions.contains($0)) }) {
                let camera = monocularOptions.contains(option) ? ", or a VIDEO whose camera is known (--intrinsics, --calibration or --fov)" : ""
                throw WaymarkError(.usage, "\(option) needs an RGB-D SEQUENCE\(camera); \(input) has no depth")
            }
            guard hasReferences || monocular else {
                throw WaymarkError(.usage, "--references is required for a VIDEO or image FOLDER whose camera is not known "
                                   + "(without --intrinsics, --calibration or --fov it is not tracked); see --help")
            }
            if !hasReferences, !arguments.has("--goal") { coaching.goal = .tracking }
        }
        if arguments.flag("--loop-closure"), let poses = info.recordedPoses {
            throw WaymarkError(.usage, "--loop-closure corrects the engine's own tracking; \(input) has recorded poses"
                               + (poses == .groundtruth ? " (groundtruth.txt)" : "") + ", which are used as they are")
        }
        if info.hasDepth, !arguments.has("--goal") { coaching.goal = .anySurface }
        let plan = SessionRunner.Plan(dropped: try SessionSetup.droppedFrames(arguments, frameCount: info.frameCount),
                                      placements: try SessionSetup.placements(arguments, source: info))
        let loaded = hasReferences ? try loadReferences(arguments, quiet: quiet) : nil
        try checkOutputs(arguments, reading: source.files + [try arguments.value("--references"), try arguments.value("--load-map")]
            .compactMap { $0 } + (loaded?.references.map(\.entry.path) ?? []))
        let session = try SessionSetup.makeSession(arguments, source: info, loaded: loaded, coaching: coaching,
                                                   objectToPlace: plan.placements.first?.name)
        if !quiet { for note in info.notes + session.support.notes { Console.warning(note) } }
        let output = try arguments.value("--output")
        let trajectoryPath = try arguments.value("--trajectory")
        var outputs = SessionRunner.Outputs(records: try RecordSink(path: output), mapPath: try arguments.value("--save-map"),
                                            includesDetections: hasReferences)
        outputs.report = try arguments.value("--report").map { RunReport(path: $0, input: input, coaching: coaching) }
        outputs.annotation = try arguments.value("--annotate").map { (path: String) throws(WaymarkError) in
            try SessionAnnotation(path: path, width: info.width, height: info.height,
                                  framesPerSecond: info.framesPerSecond > 0 ? info.framesPerSecond : 30,
                                  language: coaching.language, intrinsics: info.intrinsics)
        }
        try outputs.records?.write(ProcessHeader(
            waymark: waymarkVersion, input: input,
            source: SourceRecord(info, intrinsics: info.intrinsics, tracked: session.isTracking, monocular: session.isMonocular,
                                 gravity: session.gravitySource),
            references: (loaded?.references ?? []).map(ReferenceRecord.init), groups: arguments.values("--group"),
            autoSelect: arguments.flag("--auto-select"), coaching: coaching))

        let outcome = try SessionRunner(source: source, session: session, plan: plan, outputs: outputs, quiet: quiet).run()

        try outputs.records?.write(ProcessSummary(
            frames: outcome.frames, framesDropped: outcome.framesDropped, framesWithErrors: outcome.framesWithErrors,
            framesWithDetections: outcome.framesWithDetections, stopped: outcome.stopped, session: session,
            source: info))
        try outputs.records?.finish()
        try session.saveMap(to: outputs.mapPath)
        if let trajectoryPath { try writeAtomically(outcome.trajectory.tumText, to: trajectoryPath, what: "the trajectory") }
        if let stopped = outcome.stopped {
            Console.error("\(input): stopped after \(outcome.frames) frames: \(stopped.message)")
        } else if let first = outcome.firstFrameError {
            Console.error("\(input): \(outcome.framesWithErrors) of \(outcome.frames) frames could not be used; the first: \(first.message)")
        } else if !quiet, let output {
            let found = !session.configuration.surfaces.isEmpty ? "\(session.planes.anchors.count) surfaces"
                : "references seen in \(outcome.framesWithDetections)"
            Console.write("waymark: \(outcome.frames) frames, \(found); results in \(output)\n")
        }
        return outcome.exitCode
    }

    /// Every output against the inputs and each other, before the first frame.
    private static func checkOutputs(_ arguments: Arguments, reading inputs: [String]) throws(WaymarkError) {
        if let annotate = try arguments.value("--annotate"),
            !["mp4", "avi"].contains((annotate as NSString).pathExtension.lowercased())
        {
            throw WaymarkError(.usage, "--annotate writes an .mp4 or .avi video; got '\(annotate)'")
        }
        var plan = OutputPlan(inputs: inputs)
        for option in ["--output", "--annotate", "--report", "--save-map", "--trajectory"] {
            if let path = try arguments.value(option), path != "-" || option != "--output" { try plan.claim(path, for: option) }
        }
    }
}
