import FuzzSupport
import Glibc
import Waymark

/// A TUM RGB-D recording's text files: the input is depth.txt, rgb.txt, groundtruth.txt and
/// intrinsics.txt, separated by lines of "%%". The scratch folder holds a 4×3 depth image
/// `d.png` and colour image `c.png` that the lists may name. The recording is opened and its
/// first frames read; groundtruth.txt is also read as a trajectory (TUM and KITTI).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzTUM(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    _ = recording
    let files = ["depth.txt", "rgb.txt", "groundtruth.txt", "intrinsics.txt"]
    let parts = ScratchFiles.split(ScratchFiles.bytes(data, size), at: Array("\n%%\n".utf8), parts: files.count)
    for (k, name) in files.enumerated() {
        if k < parts.count { ScratchFiles.write(parts[k], as: "tum/" + name) } else { ScratchFiles.remove("tum/" + name) }
    }
    var options = FrameSourceOptions()
    options.limits = fuzzLimits
    if let source = try? RGBDRecordingSource(path: ScratchFiles.folder + "/tum", options: options) {
        precondition(!source.frames.isEmpty, "a recording opened without frames")
        precondition(zip(source.frames, source.frames.dropFirst()).allSatisfy { $0.timestamp <= $1.timestamp },
                     "a recording's frames are out of time order")
        for _ in 0..<3 { guard (try? source.next()) != nil else { break } }
    }
    let groundTruth = ScratchFiles.folder + "/tum/groundtruth.txt"
    if let trajectory = try? Trajectory(tumFile: groundTruth) {
        precondition(trajectory.samples.allSatisfy { $0.timestamp.isFinite && $0.pose.isRigid() },
                     "a trajectory loaded a non-finite time or a pose that is not rigid")
    }
    _ = try? Trajectory(kittiFile: groundTruth)
    return 0
}

/// The recording's folder with its two images, made once.
private let recording: String = {
    let folder = ScratchFiles.folder + "/tum"
    mkdir(folder, 0o700)
    for name in ["d.png", "c.png"] {
        guard (try? Raster.writeUInt16((0..<12).map { UInt16($0 * 1000) }, width: 4, height: 3, to: folder + "/" + name)) != nil
        else { preconditionFailure("cannot write \(folder)/\(name)") }
    }
    return folder
}()
