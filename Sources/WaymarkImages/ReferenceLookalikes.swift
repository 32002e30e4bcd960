import WaymarkVision

/// References that show the same picture. Each makes the other's matches ambiguous (a frame's
/// feature that fits both passes no ratio test), so neither is found reliably: a library
/// should hold a picture once.
public enum ReferenceLookalikes {
    public struct Pair: Equatable, Sendable {
        public var reference: Int
        public var lookalike: Int
        /// Share of the reference's details that match the lookalike's.
        public var share: Double
    }

    /// Above this share two references count as the same picture. Measured: the same picture
    /// in two files 1.0, two photographs of one wall (Oxford graf img1 and img2) 0.42–0.46,
    /// unrelated Oxford and EVD images at most 0.03.
    public static let sameShare = 0.25

    /// Libraries up to this size compare every pair; larger ones compare each reference with
    /// the few that bag-of-words retrieval ranks closest.
    static let exhaustiveLimit = 25
    static let candidatesPerReference = 3

    /// Every reference that looks like another, with the other it most resembles.
    public static func find(in references: [ReferenceImage]) -> [Pair] {
        guard references.count > 1 else { return [] }
        // Copies of one file are found by their identical features first: retrieval weighs a
        // word by how few references hold it, so among many copies every word weighs nothing
        // and retrieval proposes none of them.
        var firstWithFeatures: [[UInt8]: Int] = [:]
        var copies: [Int: Int] = [:]
        for (r, reference) in references.enumerated() where reference.baseFeatures.count > 0 {
            let descriptors = reference.baseFeatures.descriptors
            if let first = firstWithFeatures[descriptors] {
                copies[r] = first
                if copies[first] == nil { copies[first] = r }
            } else {
                firstWithFeatures[descriptors] = r
            }
        }
        let retrieval = references.count > exhaustiveLimit ? ReferenceRetrieval(references: references) : nil
        var pairs: [Pair] = []
        for (r, reference) in references.enumerated() where reference.baseFeatures.count > 0 {
            if let copy = copies[r] {
                pairs.append(Pair(reference: r, lookalike: copy, share: 1))
                continue
            }
            let candidates = retrieval.map {
                $0.rank(reference.baseFeatures, limit: candidatesPerReference + 1).filter { $0 != r }
            } ?? references.indices.filter { $0 != r }
            var best: Pair?
            for c in candidates where references[c].baseFeatures.count > 0 {
                let index = DescriptorIndex(sets: [references[c].baseFeatures], search: .exact)
                let matches = index.match(reference.baseFeatures, ratio: 0.8, maxDistance: 64).count
                let share = Double(matches) / Double(reference.baseFeatures.count)
                if share > sameShare, share > best?.share ?? 0 { best = Pair(reference: r, lookalike: c, share: share) }
            }
            if let best { pairs.append(best) }
        }
        return pairs
    }
}
