import FuzzSupport
import Waymark

/// A reference manifest (`references.json`), then what a session asks of the library.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzManifest(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    let path = ScratchFiles.write(ScratchFiles.bytes(data, size), as: "references.json")
    guard let library = try? ReferenceLibrary(contentsOf: path) else { return 0 }
    precondition(!library.entries.isEmpty, "a library loaded without images")
    _ = try? library.searchedEntries(groups: [], autoSelect: false)
    _ = try? library.searchedEntries(groups: Set(library.groups.prefix(1)), autoSelect: true)
    return 0
}
