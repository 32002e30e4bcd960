import Waymark
import WaymarkRecords

enum DetectCommand: Command {
    static let name = "detect"
    static let help = """
        Usage: waymark detect --references MANIFEST|FOLDER [--group G]... [--auto-select]
                              [--intrinsics fx,fy,cx,cy] IMAGE...

        Finds the active reference images in each IMAGE and prints one JSON line per image, in
        input order (schema "waymark.detect/1", see docs/OUTPUT.md): {"schema", "image": PATH,
        "detections": [{"name", "corners", "homography", "inliers", "confidence", "pose"?}]}. "corners" are the frame positions of the reference's corners
        (0,0), (W,0), (W,H), (0,H); "homography" maps reference pixels to image pixels (row-major).
        "pose" (image-to-camera 4×4, metres) appears when --intrinsics and the reference's
        physicalWidth are known. An image that cannot be read gets {"image", "error"} and the
        exit code says so once all images are done.

        Options:
          --references PATH   a manifest (.json) or a folder of images
          --group NAME        search only this group (repeatable); at most 25 images at once
          --auto-select       search a library of any size: per image, a fast retrieval step picks
                              the 25 most likely references and only those are searched
          --intrinsics LIST   camera focal lengths and centre in pixels: fx,fy,cx,cy
        \(Arguments.limitHelp)
          --quiet             no warnings
          --help              this text
        """
    static let valueOptions: Set<String> = ["--references", "--group", "--intrinsics", "--max-megapixels"]
    static let flagOptions: Set<String> = ["--auto-select", "--quiet", "--help"]

    static func run(_ arguments: Arguments) throws(WaymarkError) -> ExitCode {
        let images = arguments.positionals
        guard !images.isEmpty else { throw WaymarkError(.usage, "detect needs at least one IMAGE; see --help") }
        let intrinsics = try arguments.intrinsics()
        let quiet = arguments.flag("--quiet")
        let limits = try arguments.limits()
        let loaded = try loadReferences(arguments, quiet: quiet)
        let detector = ImageDetector(references: loaded.references, options: loaded.options)
        return try writeRecordPerInput(images) { (path: String) throws(WaymarkError) in
            let frame = try Image(contentsOf: path, gray: true, limits: limits)
            let found = detector.detect(in: frame, intrinsics: intrinsics)
            return DetectRecord(image: path, detections: found.map { DetectionRecord($0, includeState: false) })
        } failed: { DetectRecord(image: $0, error: $1) }
    }
}
