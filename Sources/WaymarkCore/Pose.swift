/// A rigid transform: X' = R X + t. Rotation row-major, translation in metres.
public struct RigidTransform: Equatable, Sendable {
    public var rotation: [Double]
    public var translation: [Double]

    public init(rotation: [Double], translation: [Double]) {
        precondition(rotation.count == 9 && translation.count == 3, "rotation is 3×3 and translation 3")
        self.rotation = rotation
        self.translation = translation
    }

    /// Row-major 4×4 matrix.
    public var matrix: [Double] {
        let r = rotation
        let t = translation
        return [r[0], r[1], r[2], t[0], r[3], r[4], r[5], t[1], r[6], r[7], r[8], t[2], 0, 0, 0, 1]
    }
}
