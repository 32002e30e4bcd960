/// The rows of a plain-text table (TUM lists and trajectories, KITTI poses, intrinsics.txt).
public enum TextRows {
    /// Non-comment lines split into words (at spaces, tabs and commas); `#` starts a comment line.
    public static func read(_ path: String) throws(WaymarkError) -> [[Substring]] {
        String(decoding: try readFileBytes(path), as: UTF8.self).split(whereSeparator: \.isNewline).compactMap { line in
            let words = line.split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "," })
            return words.isEmpty || words[0].hasPrefix("#") ? nil : words
        }
    }
}
