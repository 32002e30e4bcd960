import Waymark

enum ReferencesCheckCommand: Command {
    static let name = "references check"
    static let help = """
        Usage: waymark references check MANIFEST|FOLDER

        Scores how well each reference image can be recognised, 0–100, and says why in plain
        words. Prints one JSON line per image: {"name", "path", "width", "height", "score",
        "problems": [codes], "reasons": [sentences]}. Problem codes: too_few_details,
        low_contrast, repetitive_pattern, details_bunched, too_small. Images scoring below 50
        still load, with a warning.

        Options:
          --help   this text
        """
    static let valueOptions: Set<String> = []
    static let flagOptions: Set<String> = ["--help"]

    static func run(_ arguments: Arguments) throws(WaymarkError) -> ExitCode {
        guard arguments.positionals.count == 1 else {
            throw WaymarkError(.usage, "references check needs exactly one MANIFEST or FOLDER; see --help")
        }
        let library = try ReferenceLibrary(contentsOf: arguments.positionals[0])
        let sink = try RecordSink(path: nil)
        for entry in library.entries {
            let reference = try ReferenceImage(entry: entry)
            let quality = ReferenceQuality(of: reference)
            try sink.write(
                .object([
                    ("name", .string(entry.name)), ("path", .string(entry.path)), ("width", .int(reference.width)),
                    ("height", .int(reference.height)), ("score", .int(quality.score)),
                    ("problems", .array(quality.problems.map { .string($0.rawValue) })),
                    ("reasons", .array(quality.problems.map { .string($0.explanation) })),
                ]))
            if quality.isLow {
                Console.warning("'\(entry.name)' scores \(quality.score)/100 and may be hard to find.")
            }
        }
        return .ok
    }
}
