import FuzzSupport
import Waymark

/// A PLY point cloud, then plane detection on it (where the clouds that crashed it failed).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzPLY(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    let path = ScratchFiles.write(ScratchFiles.bytes(data, size), as: "cloud.ply")
    CloudChecks.check(path)
    return 0
}
