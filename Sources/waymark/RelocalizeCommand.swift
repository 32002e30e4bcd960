import Waymark
import WaymarkRecords

enum RelocalizeCommand: Command {
    static let name = "relocalize"
    static let help = """
        Usage: waymark relocalize --map MAP.waymap IMAGE [--depth D] [--intrinsics fx,fy,cx,cy]
                                  [--depth-scale S]

        Finds where IMAGE was taken in the world of MAP. Prints one JSON object (schema
        "waymark.relocalize/1", see docs/OUTPUT.md): {"schema", "image", "relocalized":
        true|false, "reason", "pose"?: [16 numbers, row-major camera-to-world 4×4, metres],
        "inliers", "keyframe"?: id}. "pose" appears only when
        relocalized; a place the map does not hold is refused, not snapped to a keyframe.
        Reasons: relocalized, too_few_features, no_similar_place, too_few_inliers,
        inaccurate_pose, ambiguous_place, depth_disagrees. Exit code 0 either way.

        Options:
          --map FILE          the world map (from `waymark map build` or `process --save-map`)
          --depth D           IMAGE's depth (same size), to verify the pose against it
          --intrinsics LIST   fx,fy,cx,cy in pixels (default: the map's camera, when IMAGE is its size)
          --depth-scale S     metres per depth unit of D (default 0.001 for 16-bit, 1 for float)
        \(Arguments.limitHelp)
          --help              this text
        """
    static let valueOptions: Set<String> = ["--map", "--depth", "--intrinsics", "--depth-scale", "--max-megapixels"]
    static let flagOptions: Set<String> = ["--help"]

    static func run(_ arguments: Arguments) throws(WaymarkError) -> ExitCode {
        guard arguments.positionals.count == 1 else { throw WaymarkError(.usage, "relocalize needs exactly one IMAGE; see --help") }
        let path = arguments.positionals[0]
        let mapPath = try arguments.required("--map")
        let limits = try arguments.limits()
        let map = try WorldMap(contentsOf: mapPath)
        guard let camera = map.keyframes.first(where: { !$0.points.isEmpty }) else {
            throw WaymarkError(.badData, "\(mapPath) holds no keyframe with points")
        }
        let gray = try Image(contentsOf: path, gray: true, limits: limits)
        let intrinsics: Intrinsics
        if let given = try arguments.intrinsics() {
            intrinsics = given
        } else if gray.width == camera.width, gray.height == camera.height {
            intrinsics = camera.intrinsics
        } else {
            throw WaymarkError(.usage, "\(path) is \(gray.width)×\(gray.height) but the map's camera is \(camera.width)×\(camera.height): "
                               + "--intrinsics fx,fy,cx,cy is needed")
        }
        let depth = try arguments.value("--depth").map { (file: String) throws(WaymarkError) -> DepthImage in
            let depth = try DepthImage(contentsOf: file, scale: try arguments.depthScale(), limits: limits)
            guard depth.width == gray.width, depth.height == gray.height else {
                throw WaymarkError(.badData, "\(file) is \(depth.width)×\(depth.height) but \(path) is \(gray.width)×\(gray.height)")
            }
            // Depth that cannot confirm a pose must not be reported as having confirmed it.
            guard depth.validCount > 0 else {
                throw WaymarkError(.badData, "\(file) has no valid depth (every pixel is 0, NaN or infinite)")
            }
            return depth
        }
        let result = Relocalizer(map: map).relocalize(gray: gray, depth: depth?.metres, intrinsics: intrinsics)
        let sink = try RecordSink(path: nil)
        try sink.write(RelocalizeRecord(image: path, result))
        try sink.finish()
        return .ok
    }
}
