import Waymark

extension ImageDetection {
    /// The record of one detection in the CLI's JSON Lines.
    func record(includeState: Bool) -> JSONValue {
        var pairs: [(String, JSONValue)] = [("name", .string(name))]
        if includeState { pairs.append(("state", .string(state.rawValue))) }
        pairs.append(("corners", .array(corners.map { .numbers([$0.x, $0.y]) })))
        pairs.append(("homography", .numbers(homography.elements)))
        pairs.append(("inliers", .int(inliers)))
        pairs.append(("confidence", .number((confidence * 1000).rounded() / 1000)))
        if let pose { pairs.append(("pose", .numbers(pose.matrix))) }
        return .object(pairs)
    }
}
