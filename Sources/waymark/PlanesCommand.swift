import Foundation
import Waymark
import WaymarkRecords

enum PlanesCommand: Command {
    static let name = "planes"
    static let help = """
        Usage: waymark planes INPUT... [--intrinsics fx,fy,cx,cy] [--depth-scale S] [--gravity x,y,z]
                              [--tolerance A[,B]] [--labels DIR] [--overlay DIR [--color RRGGBB]...]
                              [--seed N]

        Finds the planes in each INPUT (a depth image, .ply or .pcd file), in order, and prints one
        JSON line per input: {"input": PATH, "planes": [{"id", "normal", "offset", "inliers",
        "alignment", "classification", "center", "extent", "polygon"}]}, largest plane first, in
        camera coordinates (x right, y down, z forward, metres; a plane is normal·X + offset = 0
        with the normal towards the camera). "alignment" is horizontal-up, horizontal-down,
        vertical or other; "classification" is floor, table, wall, ceiling or other; "extent" is
        the width and height of the plane's bounding rectangle and "polygon" its outline.
        An input that cannot be used gets {"input", "error"} and the exit code says so once all
        inputs are done.

        Options:
          --intrinsics LIST   fx,fy,cx,cy in pixels (pixel centres at +0.5); needed for depth images
          --depth-scale S     metres per depth unit (default: 0.001 for 16-bit, 1 for float images;
                              TUM RGB-D depth is 0.0002)
          --gravity x,y,z     the direction of gravity in camera coordinates (default 0,1,0: the
                              camera's down)
          --tolerance A[,B]   how far a point may lie from its plane: A metres plus B per square
                              metre of depth (default 0.006,0.003, for Kinect-class cameras: 9 mm
                              at 1 m, 18 mm at 2 m); for clouds, of distance from the origin
          --labels DIR        write DIR/<input stem>.png per depth image: 16-bit, 0 = no plane,
                              k = the k-th plane of that input's line
          --overlay DIR       write DIR/<input stem>.png: the planes drawn over the colour image
                              beside the depth image (see README), else over the depth
          --color RRGGBB      colours for the 1st, 2nd, ... plane in overlays (repeatable)
          --seed N            RANSAC seed (default 1); the same seed gives the same planes
        \(Arguments.limitHelp)
          --max-points N      refuse a cloud whose header declares over N points (default 50000000)
          --help              this text
        """
    static let valueOptions: Set<String> = [
        "--intrinsics", "--depth-scale", "--gravity", "--tolerance", "--labels", "--overlay", "--color", "--seed",
        "--max-megapixels", "--max-points",
    ]
    static let flagOptions: Set<String> = ["--help"]

    static func run(_ arguments: Arguments) throws(WaymarkError) -> ExitCode {
        let inputs = arguments.positionals
        guard !inputs.isEmpty else { throw WaymarkError(.usage, "planes needs at least one INPUT; see --help") }
        let intrinsics = try arguments.intrinsics()
        if intrinsics == nil, let depthInput = inputs.first(where: { !isPointCloud($0) }) {
            throw WaymarkError(.usage, "\(depthInput) is a depth image: --intrinsics fx,fy,cx,cy is needed to turn it into points")
        }
        let scale = try arguments.depthScale()
        let down = try arguments.value("--gravity").map(parseGravity) ?? SIMD3(0, 1, 0)
        var options = PlaneDetectionOptions()
        if let seed = try arguments.value("--seed") {
            guard let value = UInt64(seed) else { throw WaymarkError(.usage, "--seed must be a whole number; got '\(seed)'") }
            options.seed = value
        }
        if let text = try arguments.value("--tolerance") { options.tolerance = try parseTolerance(text) }
        let detector = try PlaneDetector(options: options)
        let limits = try arguments.limits()
        let labelDirectory = try arguments.value("--labels").map(makeDirectory)
        let overlay = try arguments.value("--overlay").map { (directory: String) throws(WaymarkError) in
            PlaneOverlay(directory: try makeDirectory(directory), colors: try arguments.values("--color").map(parseColor))
        }
        try checkOutputs(of: inputs, labels: labelDirectory, overlays: overlay?.directory)
        return try writeRecordPerInput(inputs) { (path: String) throws(WaymarkError) in
            if isPointCloud(path) {
                let cloud = try PointCloud(contentsOf: path, limits: limits)
                guard !cloud.validPoints.isEmpty else { throw WaymarkError(.badData, "\(path) has no valid points") }
                let far = cloud.farPointCount
                if far > 0 {
                    Console.warning("\(path): \(far) of \(cloud.points.count) points lie more than \(Int(PointCloud.maximumCoordinate / 1000)) km "
                                    + "from the sensor and are left out as no measurement")
                }
                return PlanesRecord(input: path, planes: PlaneRecord.numbered(detector.detect(in: cloud, down: down).planes),
                                    pointsLeftOut: far)
            }
            let depth = try DepthImage(contentsOf: path, scale: scale, limits: limits)
            let camera = intrinsics!
            try check(depth, against: camera, path: path)
            let found = detector.detect(in: depth, intrinsics: camera, down: down)
            let stem = Self.stem(path)
            if let labelDirectory {
                try Raster.writeUInt16(
                    found.labels, width: depth.width, height: depth.height, to: "\(labelDirectory)/\(stem).png")
            }
            try overlay?.draw(found, depth: depth, intrinsics: camera, depthPath: path, stem: stem)
            return PlanesRecord(input: path, planes: PlaneRecord.numbered(found.planes))
        } failed: { PlanesRecord(input: $0, error: $1) }
    }

    private static func stem(_ path: String) -> String { ((path as NSString).lastPathComponent as NSString).deletingPathExtension }

    /// The label and overlay images of every depth image, against the inputs (and the colour
    /// images the overlays are drawn on) and each other, before the first input is read.
    private static func checkOutputs(of inputs: [String], labels: String?, overlays: String?) throws(WaymarkError) {
        let depthInputs = inputs.filter { !isPointCloud($0) }
        let backgrounds = overlays == nil ? [] : depthInputs.compactMap(PlaneOverlay.colorImage(besides:))
        var plan = OutputPlan(inputs: inputs + backgrounds)
        for input in depthInputs {
            if let labels { try plan.claim("\(labels)/\(stem(input)).png", for: "--labels (for \(input))") }
            if let overlays { try plan.claim("\(overlays)/\(stem(input)).png", for: "--overlay (for \(input))") }
        }
    }

    static func isPointCloud(_ path: String) -> Bool {
        ["ply", "pcd"].contains((path as NSString).pathExtension.lowercased())
    }

    /// Depth that cannot be used is bad data, not an empty result.
    private static func check(_ depth: DepthImage, against intrinsics: Intrinsics, path: String) throws(WaymarkError) {
        guard depth.validCount > 0 else {
            throw WaymarkError(.badData, "\(path) has no valid depth (every pixel is 0, NaN or infinite)")
        }
        guard intrinsics.cx > 0, intrinsics.cx < Double(depth.width), intrinsics.cy > 0,
            intrinsics.cy < Double(depth.height)
        else {
            throw WaymarkError(
                .badData,
                "\(path) is \(depth.width)×\(depth.height) but the intrinsics put the image centre at (\(intrinsics.cx), \(intrinsics.cy)): wrong image or wrong intrinsics"
            )
        }
    }

    static func parseGravity(_ text: String) throws(WaymarkError) -> SIMD3<Double> {
        let parts = text.split(separator: ",", omittingEmptySubsequences: false).compactMap {
            Double($0.trimmingWhitespace())
        }
        guard parts.count == 3, parts.allSatisfy(\.isFinite), parts.contains(where: { $0 != 0 }) else {
            throw WaymarkError(.usage, "--gravity must be three numbers x,y,z, not all zero; got '\(text)'")
        }
        return SIMD3(parts[0], parts[1], parts[2])
    }

    private static func parseTolerance(_ text: String) throws(WaymarkError) -> DistanceTolerance {
        let parts = text.split(separator: ",", omittingEmptySubsequences: false).map { Double($0.trimmingWhitespace()) }
        guard (1...2).contains(parts.count), let base = parts[0], base > 0, base.isFinite,
            let perSquareMetre = parts.count == 2 ? parts[1] : 0, perSquareMetre >= 0, perSquareMetre.isFinite
        else {
            throw WaymarkError(.usage, "--tolerance must be A or A,B: A > 0 metres, B ≥ 0 metres per square metre; got '\(text)'")
        }
        return DistanceTolerance(base: base, perSquareMetre: perSquareMetre)
    }

    private static func parseColor(_ text: String) throws(WaymarkError) -> Color {
        let hex = text.hasPrefix("#") ? String(text.dropFirst()) : text
        guard hex.count == 6, let value = UInt32(hex, radix: 16) else {
            throw WaymarkError(.usage, "--color must be six hex digits RRGGBB; got '\(text)'")
        }
        return Color(red: UInt8(value >> 16 & 0xFF), green: UInt8(value >> 8 & 0xFF), blue: UInt8(value & 0xFF))
    }

    private static func makeDirectory(_ path: String) throws(WaymarkError) -> String {
        do {
            try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        } catch {
            throw WaymarkError(.cannotCreateOutput, "cannot create the folder \(path): \(error.localizedDescription)")
        }
        return path
    }
}
