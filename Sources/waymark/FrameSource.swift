import Foundation
import Waymark

/// The frames of a video file or of a folder of images, in order.
protocol FrameSource: AnyObject {
    var width: Int { get }
    var height: Int { get }
    /// 0 when unknown.
    var framesPerSecond: Double { get }
    var frameCount: Int? { get }
    /// The next frame (BGR) into `frame` and its timestamp in seconds; nil at the end.
    func read(into frame: Image) throws(WaymarkError) -> Double?
}

extension VideoReader: FrameSource {}

/// A folder of images as a video: the files in name order (.png, .jpg, .jpeg, .bmp, .tif,
/// .tiff, .webp), `framesPerSecond` apart; every image must have the first one's size.
final class ImageFolderReader: FrameSource {
    static let extensions: Set<String> = ["png", "jpg", "jpeg", "bmp", "tif", "tiff", "webp"]
    let width: Int
    let height: Int
    let framesPerSecond: Double
    var frameCount: Int? { paths.count }
    private let paths: [String]
    private var next = 0

    /// Whether `path` is a folder holding at least one image.
    static func isImageFolder(_ path: String) -> Bool {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), isDirectory.boolValue else { return false }
        return !imagePaths(in: path).isEmpty
    }

    private static func imagePaths(in folder: String) -> [String] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []
        return names.filter { extensions.contains(URL(fileURLWithPath: $0).pathExtension.lowercased()) && !$0.hasPrefix(".") }
            .sorted { $0.localizedStandardCompare($1) == .orderedAscending }
            .map { URL(fileURLWithPath: folder).appendingPathComponent($0).path }
    }

    init(folder: String, framesPerSecond: Double) throws(WaymarkError) {
        paths = Self.imagePaths(in: folder)
        guard let first = paths.first else { throw WaymarkError(.missingInput, "\(folder) holds no images") }
        let image = try Image(contentsOf: first, gray: false)
        (width, height) = (image.width, image.height)
        self.framesPerSecond = framesPerSecond
    }

    func read(into frame: Image) throws(WaymarkError) -> Double? {
        guard next < paths.count else { return nil }
        let image = try Image(contentsOf: paths[next], gray: false)
        guard image.width == width, image.height == height else {
            throw WaymarkError(.badData, "\(paths[next]) is \(image.width)×\(image.height), but the folder's first image is \(width)×\(height)")
        }
        image.resize(width: width, height: height, into: frame)
        next += 1
        return Double(next - 1) / framesPerSecond
    }
}
