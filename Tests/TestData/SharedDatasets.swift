import Foundation

/// Finds ../shared/datasets next to the repository, so tests and benchmarks read the real
/// data in place. Returns nil (and callers skip with a message) when it is absent.
public enum SharedDatasets {
    /// The repository root: the nearest ancestor of this file holding Package.swift.
    public static let repositoryRoot: URL = {
        var url = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        while url.path != "/" {
            if FileManager.default.fileExists(atPath: url.appendingPathComponent("Package.swift").path) { return url }
            url.deleteLastPathComponent()
        }
        return URL(fileURLWithPath: FileManager.default.currentDirectoryPath)
    }()

    /// `WAYMARK_DATASETS` when set, else ../shared/datasets beside the repository.
    public static let root: URL? = {
        if let override = ProcessInfo.processInfo.environment["WAYMARK_DATASETS"] {
            return URL(fileURLWithPath: override)
        }
        let candidate = repositoryRoot.deletingLastPathComponent().appendingPathComponent("shared/datasets")
        return FileManager.default.fileExists(atPath: candidate.path) ? candidate : nil
    }()

    /// Path of a dataset file, or nil when the datasets folder or the file is absent.
    public static func path(_ relative: String) -> String? {
        guard let root else { return nil }
        let path = root.appendingPathComponent(relative).path
        return FileManager.default.fileExists(atPath: path) ? path : nil
    }

    /// Whether every one of these dataset files is present: for `.enabled(if:)`, so that a test
    /// without its data shows as skipped.
    public static func has(_ relatives: String...) -> Bool { relatives.allSatisfy { path($0) != nil } }

    public static let absentMessage = "../shared/datasets is absent; set WAYMARK_DATASETS or place the datasets beside the repository"
}
