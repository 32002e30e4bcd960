import Waymark

/// Runs `body` for each input and prints its record, `{key: input, ...fields}`. An input that
/// fails gets `{key: input, "error": message}` and the run goes on; the exit code is that of
/// the first failure. Only a failure to write the records stops the run.
func writeRecordPerInput(
    _ inputs: [String], key: String, body: (String) throws(WaymarkError) -> [(String, JSONValue)]
) throws(WaymarkError) -> ExitCode {
    let sink = try RecordSink(path: nil)
    var worst = ExitCode.ok
    for input in inputs {
        do throws(WaymarkError) {
            let fields = try body(input)
            try sink.write(.object([(key, .string(input))] + fields))
        } catch {
            if error.kind == .writeFailed { throw error }
            Console.error(error.message)
            if worst == .ok { worst = ExitCode(error.kind) }
            try sink.write(.object([(key, .string(input)), ("error", .string(error.message))]))
        }
    }
    return worst
}
