import Foundation
import WaymarkCore
import WaymarkVision

/// A folder of images as a video: the files in name order (.png, .jpg, .jpeg, .bmp, .tif,
/// .tiff, .webp), `framesPerSecond` apart. An image that cannot be read, or whose size is not
/// the first one's, is a frame with an error.
public final class ImageFolderSource: FileFrameSource {
    public static let extensions: Set<String> = ["png", "jpg", "jpeg", "bmp", "tif", "tiff", "webp"]
    public let info: FrameSourceInfo
    public var files: [String] { paths }
    private let paths: [String]
    private let decodesColor: Bool
    private let limits: InputLimits
    private let camera: MonocularCamera
    private var index = 0

    /// A folder holding at least one image.
    public static func accepts(_ path: String) -> Bool {
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

    public init(path: String, options: FrameSourceOptions) throws(WaymarkError) {
        try options.checkFramesPerSecond()
        paths = Self.imagePaths(in: path)
        guard let first = paths.first else { throw WaymarkError(.missingInput, "\(path) holds no images") }
        let image = try Image(contentsOf: first, gray: !options.decodesColor, limits: options.limits)
        decodesColor = options.decodesColor
        limits = options.limits
        camera = try MonocularCamera(options: options, width: image.width, height: image.height)
        info = FrameSourceInfo(kind: "image_folder", path: path, width: image.width, height: image.height,
                               framesPerSecond: options.framesPerSecond, frameCount: paths.count, hasColor: true,
                               hasDepth: false, intrinsics: camera.intrinsics, notes: camera.notes)
    }

    public func next() throws(WaymarkError) -> InputFrame? {
        guard index < paths.count else { return nil }
        defer { index += 1 }
        let timestamp = Double(index) / info.framesPerSecond
        do throws(WaymarkError) {
            let decoded = try Image(contentsOf: paths[index], gray: !decodesColor, limits: limits)
            guard decoded.width == info.width, decoded.height == info.height else {
                throw WaymarkError(.badData, "\(paths[index]) is \(decoded.width)×\(decoded.height), but the folder's first image is \(info.width)×\(info.height)")
            }
            let image = camera.prepare(decoded)
            return decodesColor
                ? InputFrame(index: index, timestamp: timestamp, color: image, intrinsics: info.intrinsics)
                : InputFrame(index: index, timestamp: timestamp, gray: image, intrinsics: info.intrinsics)
        } catch {
            return .failed(index: index, timestamp: timestamp, error)
        }
    }
}
