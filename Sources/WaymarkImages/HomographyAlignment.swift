import Foundation
import WaymarkCore
import WaymarkVision

/// Refines a reference → frame homography to sub-pixel accuracy: the frame is warped into a
/// template's pixels with the current estimate, the template's corners are followed into the
/// warped frame with optical flow, and the residual homography is folded back in. Because it
/// always compares against the reference, it does not drift and does not jitter on a static scene.
struct HomographyAlignment {
    struct Options {
        var iterations = 2
        /// Stop iterating once no corner of the reference moves more than this, frame pixels.
        var convergence = 0.05
        var residualThreshold = 1.5
        var minPoints = 12
        var minInlierFraction = 0.4
        /// Template points the first of several iterations follows (a sample of those in view):
        /// it mostly decides whether the candidate lines up at all and corrects what the
        /// features got roughly, so it also works on the next coarser template (a quarter of
        /// the pixels to warp, and twice the reach in frame pixels); the iterations after it
        /// (or a single one) follow every point of the template chosen for the reference's size.
        var firstIterationPoints = 100
        var flow: OpticalFlowOptions = {
            var o = OpticalFlowOptions()
            o.window = 15
            o.levels = 2
            return o
        }()
    }

    struct Result {
        var homography: Homography
        var inliers: Int
        /// Share of the template's points inside the frame that line up with it.
        var inlierFraction: Double
    }

    let options: Options
    private let warped = Image(width: 1, height: 1, channels: 1)
    private let compensated = Image(width: 1, height: 1, channels: 1)

    init(options: Options = Options()) { self.options = options }

    func refine(_ homography: Homography, of reference: ReferenceImage, in frame: Image) -> Result? {
        let chosen = chooseTemplate(reference, homography)
        var current = homography
        var last: Result?
        for iteration in 0..<options.iterations {
            let first = iteration == 0 && options.iterations > 1
            let used = first ? min(chosen + 1, reference.templates.count - 1) : chosen
            let template = reference.templates[used]
            // frame pixel = current · toReference · template pixel
            let templateToFrame = current * template.toReference
            guard let frameToTemplate = templateToFrame.inverse else { return last }
            // Only points that the frame shows can line up; a reference seen in part (zoomed
            // in, or at the frame's edge) is judged on the part in view.
            let inView = template.points.filter { point in
                guard let p = templateToFrame.apply(point) else { return false }
                return p.x >= Self.margin && p.y >= Self.margin && p.x <= Double(frame.width) - Self.margin
                    && p.y <= Double(frame.height) - Self.margin
            }
            let visible = first ? Self.sample(inView, count: options.firstIterationPoints) : inView
            guard visible.count >= options.minPoints else { return last }
            frame.warp(by: frameToTemplate, width: template.image.width, height: template.image.height, into: warped)
            warped.matchBrightness(mean: template.brightness.mean, standardDeviation: template.brightness.standardDeviation,
                                   into: compensated)
            let flow = trackPoints(visible, from: template.image, to: compensated, options: options.flow)
            var source: [Point2] = []
            var destination: [Point2] = []
            for i in visible.indices where flow.tracked[i] {
                source.append(visible[i])
                destination.append(flow.points[i])
            }
            var o = HomographyEstimationOptions()
            o.method = .ransac
            o.threshold = options.residualThreshold
            o.maxIterations = Self.iterationsFindingInlierShare(options.minInlierFraction, confidence: o.confidence)
            guard source.count >= options.minPoints,
                let residual = estimateHomography(from: source, to: destination, options: o)
            else { return last }
            let fraction = Double(residual.inlierCount) / Double(visible.count)
            guard residual.inlierCount >= options.minPoints, fraction >= options.minInlierFraction else { return last }
            let refined = (templateToFrame * residual.homography * template.fromReference).normalized
            let change = Self.largestCornerMove(current, refined, reference)
            current = refined
            last = Result(homography: current, inliers: residual.inlierCount, inlierFraction: fraction)
            if change < options.convergence && visible.count == inView.count && used == chosen { break }
        }
        return last
    }

    /// At most `count` of `points`, every k-th: the points are ordered by corner strength, so
    /// the sample keeps weak corners as well as strong ones, from all over the template.
    private static func sample(_ points: [Point2], count: Int) -> [Point2] {
        guard points.count > count else { return points }
        let stride = Double(points.count) / Double(count)
        return (0..<count).map { points[Int(Double($0) * stride)] }
    }

    /// RANSAC iterations that draw one all-inlier sample of four with `confidence` when a share
    /// `inliers` of the points agree. A residual with a smaller share is refused anyway, so
    /// iterating longer (a false candidate would take all 2000) only costs time.
    static func iterationsFindingInlierShare(_ inliers: Double, confidence: Double) -> Int {
        Int((log(1 - confidence) / log(1 - pow(inliers, 4))).rounded(.up))
    }

    /// Frame pixels kept clear of the border, where the flow window would leave the image.
    private static let margin = 8.0

    private static func largestCornerMove(_ a: Homography, _ b: Homography, _ reference: ReferenceImage) -> Double {
        reference.corners.map { c in
            guard let p = a.apply(c), let q = b.apply(c) else { return .infinity }
            return p.distance(to: q)
        }.max()!
    }

    /// The index of the template whose size is closest to the reference's size in the frame, so
    /// that neither side of the comparison is much blurrier than the other.
    private func chooseTemplate(_ reference: ReferenceImage, _ homography: Homography) -> Int {
        let projected = reference.corners.compactMap(homography.apply)
        let side = projected.count == 4 ? Quadrilateral(projected).meanSide : Double(reference.width)
        let ratio = { (t: AlignmentTemplate) in abs(log(Double(max(t.image.width, t.image.height)) / max(side, 1))) }
        return reference.templates.indices.min { ratio(reference.templates[$0]) < ratio(reference.templates[$1]) }!
    }
}
