import Waymark

/// Loads the references named by --references and --group, prepared for searching, and
/// warns about images that will be hard to recognise.
func loadActiveReferences(_ arguments: Arguments, quiet: Bool) throws(WaymarkError) -> [ReferenceImage] {
    let library = try ReferenceLibrary(contentsOf: try arguments.required("--references"))
    let entries = try library.activeEntries(groups: Set(arguments.values("--group")))
    var references: [ReferenceImage] = []
    for entry in entries {
        let reference = try ReferenceImage(entry: entry)
        let quality = ReferenceQuality(of: reference)
        if quality.isLow && !quiet {
            let reasons = quality.problems.map(\.explanation).joined(separator: " ")
            Console.warning("reference image '\(entry.name)' scores \(quality.score)/100 and may be hard to find. \(reasons)")
        }
        references.append(reference)
    }
    return references
}
