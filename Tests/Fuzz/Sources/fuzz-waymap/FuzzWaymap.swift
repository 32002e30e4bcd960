import FuzzSupport
import Waymark

/// A `.waymap` world map. An input whose first byte is even is the file itself (header,
/// checksum and all); an odd one is the keyframe and anchor sections, separated by "%%ANCH%%",
/// wrapped in a valid container so that the fuzzer reaches the section decoders past the
/// checksum. A map that loads must survive a save and a reload unchanged.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzWaymap(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    let input = ScratchFiles.bytes(data, size)
    guard let mode = input.first else { return 0 }
    let path: String
    if mode % 2 == 0 {
        path = ScratchFiles.write(input.dropFirst(), as: "map.waymap")
    } else {
        let sections = ScratchFiles.split(UnsafeBufferPointer(rebasing: input.dropFirst()), at: Array("%%ANCH%%".utf8), parts: 2)
        path = ScratchFiles.folder + "/map.waymap"
        let file = SectionedFile(kind: WorldMap.fileKind, version: WorldMap.fileVersion,
                                 sections: [("KEYF", Array(sections[0])), ("ANCH", Array(sections.count > 1 ? sections[1] : []))])
        guard (try? file.write(to: path)) != nil else { preconditionFailure("cannot write \(path)") }
    }
    guard let map = try? WorldMap(contentsOf: path) else { return 0 }
    let copy = ScratchFiles.folder + "/copy.waymap"
    guard (try? map.write(to: copy)) != nil, let reloaded = try? WorldMap(contentsOf: copy) else {
        preconditionFailure("a map that loaded could not be saved and reloaded")
    }
    precondition(reloaded.keyframes.count == map.keyframes.count && reloaded.pointCount == map.pointCount
                 && reloaded.anchors.map(\.id) == map.anchors.map(\.id),
                 "a map changed in a save and reload")
    return 0
}
