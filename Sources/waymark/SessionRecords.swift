import Waymark

/// JSON for what a Session gives per frame, as docs/OUTPUT.md describes it.
enum SessionRecords {
    /// The coaching fields every frame record carries.
    static func coaching(_ update: CoachingUpdate) -> [(String, JSONValue)] {
        [
            ("coaching", update.message.map { message in
                .object([("code", .string(message.code.rawValue)), ("text", .string(message.text)),
                         ("language", .string(message.language.rawValue))])
            } ?? .null),
            ("goalReached", .bool(update.isGoalReached)),
        ]
    }

    /// A tracked frame's fields: pose, tracking, events, planes and anchors.
    static func tracking(_ result: FrameResult, planes map: PlaneMap) -> [(String, JSONValue)] {
        guard let update = result.tracking else { return [] }
        var fields: [(String, JSONValue)] = [
            ("pose", update.cameraToWorld.map { .numbers($0.matrix) } ?? .null),
            ("tracking", .object([("state", .string(update.state.name)),
                                  ("reason", update.state.reason.map { .string($0.rawValue) } ?? .null)])),
            ("mapping", .string(update.mapping.rawValue)),
            ("events", .array(update.events.map(record))),
        ]
        if let attempt = update.relocalization {
            fields.append(("relocalization", .object([("reason", .string(attempt.reason.rawValue)), ("inliers", .int(attempt.inliers))])))
        }
        fields.append(("planes", .array(result.planes.enumerated().map { k, plane in
            PlaneRecords.geometry(plane, id: k + 1, extra: [("anchor", result.planeAnchorIDs[k].map(JSONValue.int) ?? .null)])
        })))
        fields.append(("planeEvents", .array(result.planeEvents.map { PlaneRecords.event($0, map: map) })))
        fields.append(("anchorEvents", .array(result.anchorEvents.map(record))))
        return fields
    }

    static func record(_ event: AnchorEvent) -> JSONValue {
        switch event {
        case .added(let added): anchor(added, event: "added")
        case .restored(let restored): anchor(restored, event: "restored")
        case .hidden(let id): .object([("event", .string("hidden")), ("id", .int(id))])
        case .removed(let id): .object([("event", .string("removed")), ("id", .int(id))])
        }
    }

    static func anchor(_ anchor: WorldAnchor, event: String) -> JSONValue {
        .object([("event", .string(event)), ("id", .int(anchor.id)), ("kind", .string(anchor.kind.rawValue)),
                 ("name", .string(anchor.name)), ("transform", .numbers(anchor.transform.matrix)),
                 ("extent", .numbers([anchor.extent.x, anchor.extent.y]))])
    }

    static func record(_ event: TrackingEvent) -> JSONValue {
        switch event {
        case .interrupted(let cause): .object([("event", .string("interrupted")), ("cause", .string(cause.rawValue))])
        case .relocalized(let keyframe, let inliers):
            .object([("event", .string("relocalized")), ("keyframe", .int(keyframe)), ("inliers", .int(inliers))])
        case .relocalizedOnAnchor(let id): .object([("event", .string("relocalized")), ("anchor", .int(id))])
        case .relocalizationCancelled: .object([("event", .string("relocalization_cancelled"))])
        case .reset: .object([("event", .string("reset"))])
        case .keyframeAdded(let id): .object([("event", .string("keyframe_added")), ("keyframe", .int(id))])
        }
    }
}

extension Session {
    /// Writes the world map with every anchor to `path`, if there is one: at an interruption's
    /// start (so a run killed during one resumes from the file) and at the end.
    func saveMap(to path: String?) throws(WaymarkError) {
        guard let path, let map = worldMap else { return }
        try map.write(to: path)
    }
}
