import CSupport
import WaymarkCore

/// Decodes a video file frame by frame.
public final class VideoReader {
    private let handle: OpaquePointer
    public let width: Int
    public let height: Int
    /// 0 when the container does not say.
    public let framesPerSecond: Double
    /// nil when unknown.
    public let frameCount: Int?

    public init(path: String) throws(WaymarkError) {
        var out: OpaquePointer?
        try check { cs_video_reader_open(path, &out, $0) }
        handle = out!
        var info = cs_video_info()
        checkInvariant { cs_video_reader_get_info(out, &info, $0) }
        width = Int(info.width)
        height = Int(info.height)
        framesPerSecond = info.frames_per_second
        frameCount = info.frame_count >= 0 ? Int(info.frame_count) : nil
    }

    deinit { cs_video_reader_destroy(handle) }

    /// Decodes the next frame (BGR) into `frame`, returning its timestamp in seconds, or nil at the end.
    public func read(into frame: Image) throws(WaymarkError) -> Double? {
        var timestamp = 0.0
        var got: Int32 = 0
        try check { cs_video_reader_read(handle, frame.handle, &timestamp, &got, $0) }
        frame.refreshSize()
        return got != 0 ? timestamp : nil
    }
}

/// Encodes BGR frames. The file appears at `path` only after `finish()`.
public final class VideoWriter {
    private let handle: OpaquePointer

    public init(path: String, width: Int, height: Int, framesPerSecond: Double) throws(WaymarkError) {
        var out: OpaquePointer?
        try check { cs_video_writer_open(path, temporarySibling(of: path), Int32(width), Int32(height), framesPerSecond, &out, $0) }
        handle = out!
    }

    deinit { cs_video_writer_destroy(handle) }

    public func write(_ frame: Image) throws(WaymarkError) {
        try check { cs_video_writer_write(handle, frame.handle, $0) }
    }

    public func finish() throws(WaymarkError) {
        try check { cs_video_writer_finish(handle, $0) }
    }
}
