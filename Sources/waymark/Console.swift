import Foundation
import Waymark

/// Messages for people, on standard error.
enum Console {
    static func error(_ message: String) { write("waymark: \(message)\n") }

    static func warning(_ message: String) { write("waymark: warning: \(message)\n") }

    static func write(_ text: String) { FileHandle.standardError.write(Data(text.utf8)) }

    static var isTerminal: Bool { isatty(STDERR_FILENO) != 0 }

    /// Text for standard output (help, version), with a line break; a full disk or a closed
    /// pipe is a write failure, not a silent success.
    static func output(_ text: String) -> ExitCode {
        do {
            try FileHandle.standardOutput.write(contentsOf: Data((text + "\n").utf8))
            return .ok
        } catch {
            write("waymark: cannot write to standard output: \(error.localizedDescription)\n")
            return .writeFailed
        }
    }
}

/// A one-line progress display, shown only when standard error is a terminal.
struct Progress {
    private let enabled: Bool
    private let total: Int?
    private let start = Date()
    private var lastDraw = Date.distantPast

    init(total: Int?, quiet: Bool) {
        enabled = !quiet && Console.isTerminal
        self.total = total
    }

    mutating func update(frames: Int) {
        guard enabled, Date().timeIntervalSince(lastDraw) > 0.2 else { return }
        lastDraw = Date()
        let elapsed = Date().timeIntervalSince(start)
        let rate = elapsed > 0 ? Double(frames) / elapsed : 0
        var line = "frame \(frames)"
        if let total, total > 0 {
            line += "/\(total)"
            if rate > 0 { line += String(format: ", %.0f s left", Double(max(0, total - frames)) / rate) }
        }
        line += String(format: ", %.1f frames/s", rate)
        Console.write("\r\(line)\u{1B}[K")
    }

    func finish() {
        if enabled { Console.write("\r\u{1B}[K") }
    }
}

/// Replaces `path` with `text` in one step: a reader sees the old file or the new one, never half.
func writeAtomically(_ text: String, to path: String, what: String) throws(WaymarkError) {
    do {
        try Data(text.utf8).write(to: URL(fileURLWithPath: path), options: .atomic)
    } catch {
        throw WaymarkError(.writeFailed, "cannot write \(what) to \(path): \(error.localizedDescription)")
    }
}
