import Foundation

/// A temporary folder removed when the test ends.
public final class Scratch {
    public let url = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("waymark-test-\(UUID().uuidString)")
    public init() throws { try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true) }
    public func path(_ name: String) -> String { url.appendingPathComponent(name).path }

    /// A folder `name` here holding links to `files` of `folder` (a dataset seen in part: a TUM
    /// sequence's colour without its depth); its path.
    public func folder(_ name: String, linking files: [String], in folder: String) throws -> String {
        let made = path(name)
        try FileManager.default.createDirectory(atPath: made, withIntermediateDirectories: true)
        for file in files {
            try FileManager.default.createSymbolicLink(atPath: made + "/" + file, withDestinationPath: folder + "/" + file)
        }
        return made
    }
    deinit { try? FileManager.default.removeItem(at: url) }
}
