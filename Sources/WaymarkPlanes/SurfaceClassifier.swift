/// Names surfaces from their alignment, their height above the lowest large upward-facing
/// plane (the floor), and their size.
///
/// - floor: the lowest upward-facing horizontal plane of at least 1.5 m²;
/// - table: an upward-facing horizontal plane of 0.03–4 m² that is 0.3–1.3 m above the floor,
///   or any such plane when no floor is in view;
/// - wall: a vertical plane of at least 1 m²;
/// - ceiling: a downward-facing horizontal plane of at least 1 m² that is 1.8 m or more above
///   the floor, or when no floor is in view;
/// - other: everything else.
public enum SurfaceClassifier {
    public static let floorArea = 1.5
    public static let tableAreas = 0.03...4.0
    public static let tableHeights = 0.3...1.3
    public static let wallArea = 1.0
    public static let ceilingArea = 1.0
    public static let ceilingHeight = 1.8

    /// Sets `classification` on each plane; `down` is gravity in the planes' coordinates.
    public static func classify(_ planes: inout [DetectedPlane], down: SIMD3<Double>) {
        let up = -down / (down * down).sum().squareRoot()
        func height(_ plane: DetectedPlane) -> Double { (plane.center * up).sum() }
        let floor = planes.filter { $0.alignment == .horizontalUp && $0.area >= floorArea }.map(height).min()
        for index in planes.indices {
            let plane = planes[index]
            let above = floor.map { height(plane) - $0 }
            planes[index].classification =
                switch plane.alignment {
                case .horizontalUp where plane.area >= floorArea && above.map({ abs($0) < 0.1 }) == true: .floor
                case .horizontalUp where tableAreas.contains(plane.area) && (above.map(tableHeights.contains) ?? true):
                    .table
                case .vertical where plane.area >= wallArea: .wall
                case .horizontalDown where plane.area >= ceilingArea && (above.map { $0 >= ceilingHeight } ?? true):
                    .ceiling
                default: .other
                }
        }
    }
}
