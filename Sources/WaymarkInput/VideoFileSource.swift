import Foundation
import WaymarkCore
import WaymarkVision

/// The frames of a video file (whatever OpenCV's FFmpeg reads), timestamps from the container.
public final class VideoFileSource: FileFrameSource {
    public let info: FrameSourceInfo
    private let reader: VideoReader
    private let camera: MonocularCamera
    private var index = 0

    /// Any path that is not a folder.
    public static func accepts(_ path: String) -> Bool {
        var isDirectory: ObjCBool = false
        return !FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) || !isDirectory.boolValue
    }

    public var files: [String] { [info.path] }

    public init(path: String, options: FrameSourceOptions) throws(WaymarkError) {
        _ = try regularFileSize(path)
        reader = try VideoReader(path: path)
        try options.limits.checkPixels(width: reader.width, height: reader.height, of: path)
        camera = try MonocularCamera(options: options, width: reader.width, height: reader.height)
        info = FrameSourceInfo(kind: "video", path: path, width: reader.width, height: reader.height,
                               framesPerSecond: reader.framesPerSecond, frameCount: reader.frameCount, hasColor: true,
                               hasDepth: false, intrinsics: camera.intrinsics, notes: camera.notes)
    }

    /// Throws when the stream breaks, or when it ends well before the container's frame count
    /// (a truncated file).
    public func next() throws(WaymarkError) -> InputFrame? {
        let frame = Image(width: 1, height: 1, channels: 3)
        guard let timestamp = try reader.read(into: frame) else {
            if let expected = info.frameCount, index + max(2, expected / 50) < expected {
                throw WaymarkError(.badData, "the video ended after \(index) of its \(expected) frames; it looks truncated")
            }
            return nil
        }
        defer { index += 1 }
        return InputFrame(index: index, timestamp: timestamp, color: camera.prepare(frame), intrinsics: info.intrinsics)
    }
}
