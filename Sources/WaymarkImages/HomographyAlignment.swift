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
        var residualThreshold = 1.5
        var minPoints = 12
        var minInlierFraction = 0.4
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
        var inlierFraction: Double
        /// Median photometric error of the followed points.
        var medianError: Double
    }

    let options: Options
    private let warped = Image(width: 1, height: 1, channels: 1)
    private let compensated = Image(width: 1, height: 1, channels: 1)

    init(options: Options = Options()) { self.options = options }

    func refine(_ homography: Homography, of reference: ReferenceImage, in frame: Image) -> Result? {
        let template = chooseTemplate(reference, homography)
        guard template.points.count >= options.minPoints else { return nil }
        var current = homography
        var last: Result?
        for _ in 0..<options.iterations {
            // frame pixel = current · toReference · template pixel
            let templateToFrame = current * template.toReference
            guard let frameToTemplate = templateToFrame.inverse else { return last }
            frame.warp(by: frameToTemplate, width: template.image.width, height: template.image.height, into: warped)
            warped.matchBrightness(mean: template.brightness.mean, standardDeviation: template.brightness.standardDeviation,
                                   into: compensated)
            let flow = trackPoints(template.points, from: template.image, to: compensated, options: options.flow)
            var source: [Point2] = []
            var destination: [Point2] = []
            var errors: [Double] = []
            for i in template.points.indices where flow.tracked[i] {
                source.append(template.points[i])
                destination.append(flow.points[i])
                errors.append(flow.errors[i])
            }
            guard source.count >= options.minPoints else { return last }
            var o = HomographyEstimationOptions()
            o.method = .ransac
            o.threshold = options.residualThreshold
            guard let residual = estimateHomography(from: source, to: destination, options: o) else { return last }
            let fraction = Double(residual.inlierCount) / Double(template.points.count)
            guard residual.inlierCount >= options.minPoints, fraction >= options.minInlierFraction else { return last }
            current = (templateToFrame * residual.homography * template.fromReference).normalized
            errors.sort()
            last = Result(homography: current, inliers: residual.inlierCount, inlierFraction: fraction,
                          medianError: errors[errors.count / 2])
        }
        return last
    }

    /// The template whose size is closest to the reference's size in the frame, so that
    /// neither side of the comparison is much blurrier than the other.
    private func chooseTemplate(_ reference: ReferenceImage, _ homography: Homography) -> AlignmentTemplate {
        let projected = reference.corners.compactMap(homography.apply)
        let side = projected.count == 4 ? Quadrilateral(projected).meanSide : Double(reference.width)
        let ratio = { (t: AlignmentTemplate) in abs(log(Double(max(t.image.width, t.image.height)) / max(side, 1))) }
        return reference.templates.min { ratio($0) < ratio($1) }!
    }
}
