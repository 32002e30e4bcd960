import Foundation

/// A temporary folder removed when the test ends.
public final class Scratch {
    public let url = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("waymark-test-\(UUID().uuidString)")
    public init() throws { try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true) }
    public func path(_ name: String) -> String { url.appendingPathComponent(name).path }
    deinit { try? FileManager.default.removeItem(at: url) }
}
