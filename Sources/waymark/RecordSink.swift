import Foundation
import Waymark
import WaymarkRecords

/// Writes JSON Lines to stdout or to a file. A file is written beside its final path and
/// flushed after every record, then moved into place when the run ends, so a run that stops
/// part-way keeps its records and never leaves a half-replaced file.
final class RecordSink {
    private let handle: FileHandle
    private let path: String?
    private let temporaryPath: String?
    private var finished = false

    init(path: String?) throws(WaymarkError) {
        guard let path, path != "-" else {
            handle = .standardOutput
            self.path = nil
            temporaryPath = nil
            return
        }
        let temporary = temporarySibling(of: path)
        guard FileManager.default.createFile(atPath: temporary, contents: nil),
            let handle = FileHandle(forWritingAtPath: temporary)
        else { throw WaymarkError(.cannotCreateOutput, "cannot create \(path)") }
        self.handle = handle
        self.path = path
        temporaryPath = temporary
    }

    func write(_ record: some Encodable) throws(WaymarkError) {
        let line = try RecordCoding.line(record)
        do {
            try handle.write(contentsOf: line)
            if path != nil { try handle.synchronize() }
        } catch {
            throw WaymarkError(.writeFailed, "cannot write \(path ?? "standard output"): \(error.localizedDescription)")
        }
    }

    /// Moves the finished file into place.
    func finish() throws(WaymarkError) {
        guard let path, let temporaryPath else { return }
        try? handle.close()
        finished = true
        guard rename(temporaryPath, path) == 0 else {
            throw WaymarkError(.writeFailed, "cannot move the results into \(path)")
        }
    }

    /// A run that failed before writing anything worth keeping leaves no partial file behind;
    /// one that wrote records keeps them beside the path, for the person to look at.
    deinit {
        guard !finished, let temporaryPath else { return }
        try? handle.close()
        if (try? FileManager.default.attributesOfItem(atPath: temporaryPath)[.size] as? Int) == 0 {
            try? FileManager.default.removeItem(atPath: temporaryPath)
        }
    }
}
