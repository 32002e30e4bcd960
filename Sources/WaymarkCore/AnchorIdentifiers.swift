/// Identifiers for the anchors of one world: each taken once, counting up. One value hands
/// them out to every kind of anchor (planes, images, named, a loaded map's), so no two clash.
public struct AnchorIdentifiers: Sendable, Equatable {
    public private(set) var next: Int

    /// Counting up from the first identifier above `taken` (a loaded map's largest, or 0).
    public init(after taken: Int = 0) { next = taken + 1 }

    public mutating func take() -> Int {
        defer { next += 1 }
        return next
    }
}
