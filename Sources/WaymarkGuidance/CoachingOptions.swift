/// How coaching decides; the defaults follow the HIG (a message stays up long enough to be
/// read, and nothing flickers) and are tuned on the synthetic walk-through's troubles.
public struct CoachingOptions: Sendable {
    public var goal: CoachingGoal = .anySurface
    public var language: CoachingLanguage = .english
    /// Seconds a message stays up at least; the message on screen never changes more often.
    public var minimumDisplay = 2.0
    /// Seconds a condition must hold before its message shows (one odd frame shows nothing).
    public var onset = 0.2
    /// Seconds a condition must be gone before its message clears.
    public var clearAfter = 0.5
    /// Ambient intensity below which the view is too dark: a tenth of a view exposed for middle
    /// gray, over three stops under. The walk-through's views measure 750–1700 in the light and
    /// 15–57 in its darkness (Benchmarks/RESULTS.md).
    public var darkBelow = 100.0
    /// Fewer features than this, or spread over less of the view, is too little detail.
    public var minimumFeatures = 150
    public var minimumSpread = 0.25
    /// Faster than this (m/s, °/s) is too fast, as is image motion above this many view widths a
    /// second when no pose is known.
    public var maximumSpeed = 1.5
    public var maximumTurnRate = 100.0
    public var maximumImageMotion = 1.5
    /// A view whose detail runs across one direction more than this (0–1) is smeared by
    /// motion: too fast for the camera's exposure, whatever the poses say.
    public var maximumDirectionality = 0.6
    /// Seconds without the goal's surface before suggesting more (the HIG's "takes too long"),
    /// and before saying it cannot be found.
    public var surfaceSearchSlowAfter = 10.0
    public var surfaceNotFoundAfter = 20.0
    /// Seconds relocalizing before a reset is offered.
    public var offerResetAfter = 10.0
    /// Seconds without a reference image (goal: image) before asking to point at one.
    public var imageSearchAfter = 2.0
    /// A reference image covering less of the view than this is too small; one seen more than
    /// this many degrees off its normal is too oblique; one this much less sharp than its
    /// reference is blurred.
    public var smallImageBelow = 0.02
    public var obliqueAbove = 60.0
    public var blurredImageBelow = 0.35

    public init() {}

    public init(goal: CoachingGoal, language: CoachingLanguage) {
        self.goal = goal
        self.language = language
    }
}
