import WaymarkCore
import WaymarkVision

/// How well a reference image can be recognised, 0–100, with reasons a person understands
/// (the HIG asks for high contrast, distinct detail, and flat, rectangular images).
public struct ReferenceQuality: Equatable, Sendable {
    public enum Problem: String, Sendable, CaseIterable {
        case tooFewDetails = "too_few_details"
        case lowContrast = "low_contrast"
        case repetitivePattern = "repetitive_pattern"
        case detailsBunched = "details_bunched"
        case tooSmall = "too_small"
        case lostWhenSmall = "lost_when_small"
        case lostWhenOblique = "lost_when_oblique"

        public var explanation: String {
            switch self {
            case .tooFewDetails: "It has too few distinct details; large plain areas are hard to recognise."
            case .lowContrast: "Its contrast is low; dark and light parts should differ clearly."
            case .repetitivePattern: "It repeats the same pattern, so one part is easily mistaken for another."
            case .detailsBunched: "Its details are bunched in one area; the rest gives little to hold on to."
            case .tooSmall: "It is too small; use an image at least 300 pixels on its shorter side."
            case .lostWhenSmall:
                "It is lost when it is small in the frame (seen from across a room): its details are too fine or too faint; bold, high-contrast shapes carry further."
            case .lostWhenOblique: "It is lost when seen at a steep angle; distinct details spread over the whole image hold up better."
            }
        }
    }

    /// With a trial: the share of the trial's views found, in percent (what to expect of real
    /// frames). Without: a quick estimate from the measurements below.
    public var score: Int
    public var problems: [Problem]
    /// The detector tried on rendered views of the reference, when asked for.
    public var trial: DetectionTrial?
    /// The quick estimate from the measurements below: the score without a trial.
    public var estimate: Int
    /// The measurements behind the score.
    public var featureCount: Int
    public var contrast: Double
    public var repetition: Double
    public var coverage: Double

    /// Below this score an image still loads, with a warning.
    public static let warningThreshold = 50

    public var isLow: Bool { score < Self.warningThreshold }

    /// `tryDetecting` renders the reference into 16 synthetic frames and runs the detector on
    /// them (about a second a reference): the score is then the share found, which tracks the
    /// detection rate on real scenes; without it the score is a quick estimate (used when
    /// references load, to warn).
    public init(of reference: ReferenceImage, tryDetecting: Bool = false) {
        let features = reference.baseFeatures
        let locations = features.keypoints.map(\.location)
        let template = reference.templates[0]
        contrast = template.brightness.standardDeviation
        featureCount = features.count
        // A feature whose nearest other feature in the same image looks almost the same is repeated.
        let selfMatches = DescriptorIndex(sets: [features], search: .exact).match(features, ratio: 1, maxDistance: 256)
        let distinct = selfMatches.filter { $0.distance == 0 && $0.secondDistance > 40 }.count
        repetition = features.count > 0 ? 1 - Double(distinct) / Double(features.count) : 0
        coverage = Self.coverage(of: locations, width: reference.width, height: reference.height)

        var problems: [Problem] = []
        var score = 100.0
        if featureCount < 300 {
            problems.append(.tooFewDetails)
            score -= 40 * (1 - Double(featureCount) / 300)
        }
        if contrast < 35 {
            problems.append(.lowContrast)
            score -= 30 * (1 - contrast / 35)
        }
        if repetition > 0.3 {
            problems.append(.repetitivePattern)
            score -= 40 * min(1, (repetition - 0.3) / 0.4)
        }
        if coverage < 0.6 {
            problems.append(.detailsBunched)
            score -= 30 * (1 - coverage / 0.6)
        }
        if min(reference.width, reference.height) < 300 {
            problems.append(.tooSmall)
            score -= 25 * (1 - Double(min(reference.width, reference.height)) / 300)
        }
        estimate = max(0, min(100, Int(score.rounded())))
        if tryDetecting {
            let trial = DetectionTrial(of: reference)
            if trial.foundShare(where: { $0.coverage < 0.1 }) < 0.25 { problems.append(.lostWhenSmall) }
            if trial.foundShare(where: { $0.viewAngle > 50 }) < 0.35 { problems.append(.lostWhenOblique) }
            score = 100 * trial.foundShare
            self.trial = trial
        }
        self.problems = problems
        self.score = max(0, min(100, Int(score.rounded())))
    }

    /// Share of the cells of a 4×4 grid that hold at least a fair share of the features.
    private static func coverage(of points: [Point2], width: Int, height: Int) -> Double {
        guard !points.isEmpty else { return 0 }
        var cells = [Int](repeating: 0, count: 16)
        for p in points {
            let cx = min(3, max(0, Int(p.x / Double(width) * 4)))
            let cy = min(3, max(0, Int(p.y / Double(height) * 4)))
            cells[cy * 4 + cx] += 1
        }
        let fair = max(1, points.count / 64)
        return Double(cells.filter { $0 >= fair }.count) / 16
    }
}
