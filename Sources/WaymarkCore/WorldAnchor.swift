/// Something fixed in the world that the session keeps where it was: a surface, a reference
/// image, or a position a person placed something at.
public struct WorldAnchor: Equatable, Sendable {
    public enum Kind: String, Sendable, CaseIterable {
        case plane, image, named
    }

    public var id: Int
    public var kind: Kind
    /// The surface's classification, the reference image's name, or the name a person gave.
    public var name: String
    /// Anchor-to-world: the anchor's own axes. A plane's x and z lie in the surface, y is its
    /// normal; an image's origin is its centre, x along its rows, y down its columns, z into it.
    public var transform: RigidTransform
    /// Its size, metres: a plane's along x and z, an image's along x and y; zero for a point.
    public var extent: SIMD2<Double>

    public init(id: Int, kind: Kind, name: String, transform: RigidTransform, extent: SIMD2<Double> = .zero) {
        self.id = id
        self.kind = kind
        self.name = name
        self.transform = transform
        self.extent = extent
    }
}
