import Foundation

/// The bytes of a file; an absent file is a missing input, a folder or an unreadable file bad data.
public func readFileBytes(_ path: String) throws(WaymarkError) -> [UInt8] {
    var isDirectory: ObjCBool = false
    guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
        throw WaymarkError(.missingInput, "no such file: \(path)")
    }
    guard !isDirectory.boolValue else { throw WaymarkError(.badData, "is a directory, not a file: \(path)") }
    guard let data = FileManager.default.contents(atPath: path) else { throw WaymarkError(.badData, "cannot read \(path)") }
    return [UInt8](data)
}
