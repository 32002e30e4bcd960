import Waymark

/// JSON for planes, as docs/OUTPUT.md describes them.
enum PlaneRecords {
    /// Planes of one input, numbered 1, 2, … in order.
    static func planes(_ planes: [DetectedPlane]) -> JSONValue {
        .array(planes.enumerated().map { index, plane in geometry(plane, id: index + 1) })
    }

    static func geometry(_ plane: DetectedPlane, id: Int, extra: [(String, JSONValue)] = []) -> JSONValue {
        .object(
            [
                ("id", .int(id)),
                ("normal", .numbers(array(plane.plane.normal))),
                ("offset", .number(plane.plane.offset)),
                ("inliers", .int(plane.inlierCount)),
                ("alignment", .string(plane.alignment.rawValue)),
                ("classification", .string(plane.classification.rawValue)),
                ("center", .numbers(array(plane.center))),
                ("extent", .numbers([plane.extent.x, plane.extent.y])),
                ("polygon", .array(plane.boundaryPoints.map { .numbers(array($0)) })),
            ] + extra)
    }

    static func event(_ event: PlaneEvent, map: PlaneMap) -> JSONValue {
        switch event {
        case .added(let id), .updated(let id):
            let name = if case .added = event { "added" } else { "updated" }
            let anchor = map.anchor(id: id)
            return .object([("event", .string(name)), ("id", .int(id)),
                            ("plane", anchor.map { geometry($0.surface, id: id) } ?? .null)])
        case .merged(let absorbed, let into):
            return .object([("event", .string("merged")), ("id", .int(absorbed)), ("into", .int(into))])
        case .removed(let id):
            return .object([("event", .string("removed")), ("id", .int(id))])
        }
    }

    private static func array(_ v: SIMD3<Double>) -> [Double] { [v.x, v.y, v.z] }
}
