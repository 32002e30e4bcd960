import Waymark

/// Loads the references named by --references and --group, prepared for searching, and
/// warns about images that will be hard to recognise. With --auto-select the whole
/// (grouped) library is loaded and retrieval picks the references to search per frame.
func loadReferences(_ arguments: Arguments, quiet: Bool) throws(WaymarkError) -> (
    references: [ReferenceImage], options: ImageDetectorOptions
) {
    let library = try ReferenceLibrary(contentsOf: try arguments.required("--references"))
    let (entries, selection) = try library.searchedEntries(groups: Set(arguments.values("--group")),
                                                           autoSelect: arguments.flag("--auto-select"))
    let announce = !quiet && Console.isTerminal && entries.count > 25
    var references: [ReferenceImage] = []
    for (i, entry) in entries.enumerated() {
        if announce { Console.write("\rpreparing reference images: \(i + 1)/\(entries.count)\u{1B}[K") }
        let reference = try ReferenceImage(entry: entry)
        let quality = ReferenceQuality(of: reference)
        if quality.isLow && !quiet {
            let reasons = quality.problems.map(\.explanation).joined(separator: " ")
            Console.warning("reference image '\(entry.name)' scores \(quality.score)/100 and may be hard to find. \(reasons)")
        }
        references.append(reference)
    }
    if announce { Console.write("\r\u{1B}[K") }
    var options = ImageDetectorOptions()
    options.selection = selection
    return (references, options)
}
