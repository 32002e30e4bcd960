import Waymark
import WaymarkRecords

enum ReferencesCheckCommand: Command {
    static let name = "references check"
    static let help = """
        Usage: waymark references check MANIFEST|FOLDER

        Scores how well each reference image can be recognised, 0–100, and says why in plain
        words. The score is the share of 16 trial views the detector finds: the image rendered
        as a poster into synthetic 640×480 frames covering 4–30 % of the frame, 0–70° off-axis,
        dimmed, blurred and noisy (about a second an image on one core); on scenes nobody tuned on it tracks
        the share of real views found. Prints one JSON line per image: {"name", "path",
        "width", "height", "score", "problems": [codes], "reasons": [sentences], "lookalike"?}.
        Problem codes: lost_when_small, lost_when_oblique (what the trial failed at),
        too_few_details, low_contrast, repetitive_pattern, details_bunched, too_small (what the
        image's statistics suggest), and same_picture_as_another (two references showing one
        picture make each other hard to find; "lookalike" names the other). Images scoring
        below 50 still load, with a warning (at load time from the quick estimate only).

        Options:
          --help   this text
        """
    static let valueOptions: Set<String> = []
    static let flagOptions: Set<String> = ["--help"]
    static let samePicture = "same_picture_as_another"

    static func run(_ arguments: Arguments) throws(WaymarkError) -> ExitCode {
        guard arguments.positionals.count == 1 else {
            throw WaymarkError(.usage, "references check needs exactly one MANIFEST or FOLDER; see --help")
        }
        let library = try ReferenceLibrary(contentsOf: arguments.positionals[0])
        let sink = try RecordSink(path: nil)
        var references: [ReferenceImage] = []
        for entry in library.entries { references.append(try ReferenceImage(entry: entry)) }
        var lookalikes: [Int: Int] = [:]
        for pair in ReferenceLookalikes.find(in: references) { lookalikes[pair.reference] = pair.lookalike }
        for (r, reference) in references.enumerated() {
            let entry = reference.entry
            let quality = ReferenceQuality(of: reference, tryDetecting: true)
            var codes = quality.problems.map(\.rawValue)
            var reasons = quality.problems.map(\.explanation)
            var lookalike: String?
            if let other = lookalikes[r] {
                let name = references[other].name
                lookalike = name
                codes.append(Self.samePicture)
                reasons.append("It shows the same picture as '\(name)'; with both in one library neither is found reliably.")
                Console.warning("'\(entry.name)' shows the same picture as '\(name)'; keep one of them.")
            }
            try sink.write(ReferenceCheckRecord(name: entry.name, path: entry.path, width: reference.width,
                                                height: reference.height, score: quality.score, problems: codes,
                                                reasons: reasons, lookalike: lookalike))
            if quality.isLow {
                Console.warning("'\(entry.name)' scores \(quality.score)/100 and may be hard to find.")
            }
        }
        return .ok
    }
}
