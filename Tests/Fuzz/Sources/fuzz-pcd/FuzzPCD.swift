import FuzzSupport
import Waymark

/// A PCD point cloud (ascii, binary, binary_compressed), then plane detection on it.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzPCD(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    let path = ScratchFiles.write(ScratchFiles.bytes(data, size), as: "cloud.pcd")
    CloudChecks.check(path)
    return 0
}
