import Waymark
import WaymarkRecords

/// Runs `body` for each input and prints the record it makes. An input that fails gets the
/// record `failed` makes of its error and the run goes on; the exit code is that of the first
/// failure. Only a failure to write the records stops the run.
func writeRecordPerInput<Record: Encodable>(
    _ inputs: [String], body: (String) throws(WaymarkError) -> Record, failed: (String, WaymarkError) -> Record
) throws(WaymarkError) -> ExitCode {
    let sink = try RecordSink(path: nil)
    var worst = ExitCode.ok
    for input in inputs {
        do throws(WaymarkError) {
            try sink.write(try body(input))
        } catch {
            if error.kind == .writeFailed { throw error }
            Console.error(error.message)
            if worst == .ok { worst = ExitCode(error.kind) }
            try sink.write(failed(input, error))
        }
    }
    return worst
}
