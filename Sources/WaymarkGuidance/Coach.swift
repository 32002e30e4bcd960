/// What coaching shows after a frame.
public struct CoachingUpdate: Sendable, Equatable {
    /// The message on screen, nil when nothing is shown.
    public var message: CoachingMessage?
    /// The message differs from the previous frame's.
    public var changed: Bool
    /// The goal was reached on this frame (the "done" signal).
    public var goalReachedNow: Bool
    public var isGoalReached: Bool
    /// Seconds the goal's surface has been looked for (surface goals, until found).
    public var timeWithoutSurface: Double?
    /// Seconds since relocalization began, while it lasts.
    public var timeRelocalizing: Double?
}

/// The coaching state machine: per frame, the conditions the signals show, in priority order,
/// become at most one message. A condition must hold `onset` seconds to show and be gone
/// `clearAfter` seconds to clear; the message on screen changes at most once per
/// `minimumDisplay` seconds, so it can be read and never flickers between two states.
public struct Coach: Sendable {
    public let options: CoachingOptions
    private var shown: CoachingMessage?
    private var lastChange = -Double.infinity
    /// When each present condition began (code + object, as shown).
    private var presentSince: [Condition: Double] = [:]
    private var shownLastPresent = -Double.infinity
    private var searchStarted: Double?
    private var relocalizingSince: Double?
    private var goalReached = false

    private struct Condition: Hashable {
        var code: CoachingCode
        var object: String?
    }

    /// Highest first.
    static let priority: [CoachingCode] = [
        .lowLight, .excessiveMotion, .insufficientFeatures, .relocalizationOfferReset, .relocalizingReturn,
        .initializingScan, .initializingSideways, .surfaceNotFound, .surfaceSearchSlow, .surfaceSearch, .imageTooSmall, .imageTooOblique,
        .imageBlurred, .imageSearch, .offscreenObjectBehind, .offscreenObjectLeft, .offscreenObjectRight,
        .offscreenObjectUp, .offscreenObjectDown, .placeObject,
    ]
    private static let rank = Dictionary(uniqueKeysWithValues: priority.enumerated().map { ($1, $0) })

    public init(options: CoachingOptions = CoachingOptions()) {
        self.options = options
    }

    /// A new world (reset): the goal is looked for again.
    public mutating func reset() {
        goalReached = false
        searchStarted = nil
        relocalizingSince = nil
    }

    public mutating func update(_ signals: GuidanceSignals) -> CoachingUpdate {
        let now = signals.timestamp
        let reachedNow = updateGoal(signals)
        let conditions = self.conditions(signals)
        presentSince = presentSince.filter { conditions.contains($0.key) }
        for condition in conditions where presentSince[condition] == nil { presentSince[condition] = now }

        let previous = shown
        if let current = shown, conditions.contains(Condition(code: current.code, object: current.object)) {
            shownLastPresent = now
        }
        if now - lastChange >= options.minimumDisplay {
            let ready = conditions.first { now - presentSince[$0]! >= options.onset }
            if let current = shown {
                let gone = now - shownLastPresent >= options.clearAfter
                let outranked = ready.map { Self.rank[$0.code]! < Self.rank[current.code]! } ?? false
                // A gone message waits for a newer trouble's onset rather than clear first and
                // then change again: one change, not two.
                let newerPending = ready == nil && conditions.contains { $0 != Condition(code: current.code, object: current.object) }
                if outranked || (gone && !newerPending) { show(ready, at: now) }
            } else if ready != nil {
                show(ready, at: now)
            }
        }
        return CoachingUpdate(
            message: shown, changed: shown != previous, goalReachedNow: reachedNow, isGoalReached: goalReached,
            timeWithoutSurface: isSurfaceGoal ? searchStarted.map { now - $0 } : nil,
            timeRelocalizing: relocalizingSince.map { now - $0 })
    }

    private mutating func show(_ condition: Condition?, at time: Double) {
        shown = condition.map { CoachingMessage(code: $0.code, object: $0.object, language: options.language) }
        lastChange = time
        shownLastPresent = time
    }

    /// Latches the goal once reached (until `reset()`); true on the frame it is reached.
    private mutating func updateGoal(_ s: GuidanceSignals) -> Bool {
        if case .limited(.relocalizing) = s.tracking {
            if relocalizingSince == nil { relocalizingSince = s.timestamp }
        } else {
            relocalizingSince = nil
        }
        guard !goalReached else { return false }
        let reached = switch options.goal {
        case .tracking: s.tracking.map { $0 == .normal } ?? true
        case .horizontalSurface: s.horizontalSurfaces > 0
        case .verticalSurface: s.verticalSurfaces > 0
        case .anySurface: s.horizontalSurfaces + s.verticalSurfaces > 0
        case .image: !s.images.isEmpty
        }
        if reached {
            goalReached = true
            searchStarted = nil
        } else if searchStarted == nil {
            searchStarted = s.timestamp
        }
        return reached
    }

    private var isSurfaceGoal: Bool { [.horizontalSurface, .verticalSurface, .anySurface].contains(options.goal) }

    /// The conditions present on this frame, highest priority first.
    private func conditions(_ s: GuidanceSignals) -> [Condition] {
        let o = options
        var codes: [(CoachingCode, String?)] = []
        let now = s.timestamp
        if s.ambientIntensity < o.darkBelow { codes.append((.lowLight, nil)) }
        let fastPose = (s.cameraSpeed ?? 0) > o.maximumSpeed || (s.turnRate ?? 0) > o.maximumTurnRate
        let fastImage = s.cameraSpeed == nil && (s.imageMotion ?? 0) > o.maximumImageMotion
        let smeared = s.directionality > o.maximumDirectionality
        if s.tracking == .limited(.excessiveMotion) || fastPose || fastImage || smeared {
            codes.append((.excessiveMotion, nil))
        }
        if s.tracking == .limited(.insufficientFeatures) || s.featureCount < o.minimumFeatures
            || s.featureSpread < o.minimumSpread
        {
            codes.append((.insufficientFeatures, nil))
        }
        if let since = relocalizingSince {
            codes.append((now - since >= o.offerResetAfter ? .relocalizationOfferReset : .relocalizingReturn, nil))
        }
        if s.tracking == .limited(.initializing) {
            codes.append((s.tracksFromImagesAlone ? .initializingSideways : .initializingScan, nil))
        }
        if isSurfaceGoal, let since = searchStarted, s.tracking != .limited(.relocalizing) {
            let waited = now - since
            codes.append((waited >= o.surfaceNotFoundAfter ? .surfaceNotFound
                          : waited >= o.surfaceSearchSlowAfter ? .surfaceSearchSlow : .surfaceSearch, nil))
        }
        if o.goal == .image {
            for image in s.images {
                if image.areaFraction < o.smallImageBelow {
                    codes.append((.imageTooSmall, image.name))
                } else if let angle = image.obliquity, angle > o.obliqueAbove {
                    codes.append((.imageTooOblique, image.name))
                } else if let sharpness = image.sharpness, sharpness < o.blurredImageBelow {
                    codes.append((.imageBlurred, image.name))
                }
            }
            if let since = searchStarted, now - since >= o.imageSearchAfter { codes.append((.imageSearch, nil)) }
        }
        if let (name, direction) = s.offscreenObject {
            let code: CoachingCode = switch direction {
            case .left: .offscreenObjectLeft
            case .right: .offscreenObjectRight
            case .up: .offscreenObjectUp
            case .down: .offscreenObjectDown
            case .behind: .offscreenObjectBehind
            }
            codes.append((code, name))
        }
        if goalReached, let object = s.objectToPlace, s.tracking == nil || s.tracking == .normal {
            codes.append((.placeObject, object))
        }
        return codes.map { Condition(code: $0.0, object: $0.1) }.sorted { Self.rank[$0.code]! < Self.rank[$1.code]! }
    }
}
