import WaymarkCore
import WaymarkVision

public struct ImageTrackerOptions: Equatable, Sendable {
    /// While some references are followed, the others are searched for every this many frames.
    public var searchInterval = 5
    /// Corner motion below this many pixels is taken for noise on a still scene: the previous
    /// position is reported again, so images in a still shot do not jitter.
    public var stillnessTolerance = 0.25
    public var detector = ImageDetectorOptions()

    public init() {}
}

/// Follows reference images through a video: searches until one is found, then follows it
/// cheaply from frame to frame by alignment, and searches for the rest now and then.
public final class ImageTracker {
    public let detector: ImageDetector
    public let options: ImageTrackerOptions

    private struct Followed {
        /// What was reported in the last frame.
        var last: ImageDetection
        /// The homography of the frame before, for the motion prediction.
        var previous: Homography?
        var homography: Homography { last.homography }
    }

    private var followed: [Int: Followed] = [:]
    private var framesSinceSearch = Int.max

    public init(references: [ReferenceImage], options: ImageTrackerOptions = ImageTrackerOptions()) {
        self.options = options
        detector = ImageDetector(references: references, options: options.detector)
    }

    /// The references in this frame: detected, tracked, or (once) lost. `features`: the
    /// frame's, if already detected with `detector.frameFeatureOptions`.
    public func process(_ frame: Image, features: FeatureSet? = nil, intrinsics: Intrinsics? = nil) -> [ImageDetection] {
        let gray = frame.gray()
        var results: [ImageDetection] = []
        for (r, state) in followed.sorted(by: { $0.key < $1.key }) {
            if let found = detector.follow(r, predicted: prediction(state), in: gray, intrinsics: intrinsics) {
                let reported = holdingStill(found, state.last)
                results.append(reported)
                followed[r] = Followed(last: reported, previous: state.homography)
            } else {
                followed[r] = nil
                results.append(unmeasured(r, .lost, at: state.homography))
            }
        }
        let searchDue = followed.isEmpty || framesSinceSearch >= options.searchInterval - 1
        if searchDue && followed.count < detector.references.count {
            framesSinceSearch = 0
            for found in detector.detect(in: gray, features: features, intrinsics: intrinsics, skipping: Set(followed.keys)) {
                results.append(found)
                followed[found.reference] = Followed(last: found, previous: nil)
            }
        } else if framesSinceSearch < .max {
            framesSinceSearch += 1
        }
        return results
    }

    /// Follows reference `r` from `homography` (reference pixels → pixels of the next frame to
    /// come, near enough for alignment: a few pixels), without searching for it first: for a
    /// picture whose place is known already (marked by hand, or handed over by another tracker).
    public func startFollowing(_ r: Int, at homography: Homography) {
        precondition(detector.references.indices.contains(r), "no reference \(r)")
        followed[r] = Followed(last: unmeasured(r, .tracked, at: homography), previous: nil)
    }

    /// A report of reference `r` at `homography` that no frame has confirmed: no inliers, no
    /// confidence, no pose.
    private func unmeasured(_ r: Int, _ state: ImageDetection.State, at homography: Homography) -> ImageDetection {
        let reference = detector.references[r]
        return ImageDetection(
            name: reference.name, reference: r, state: state, homography: homography,
            corners: reference.corners.compactMap(homography.apply), inliers: 0, confidence: 0, pose: nil)
    }

    /// Forget everything followed (for a cut in the video).
    public func reset() {
        followed = [:]
        framesSinceSearch = Int.max
    }

    /// The new detection, or, when no corner moved beyond the stillness tolerance, the new one
    /// at the last reported position.
    private func holdingStill(_ found: ImageDetection, _ last: ImageDetection) -> ImageDetection {
        let moved = zip(found.corners, last.corners).map { $0.distance(to: $1) }.max() ?? .infinity
        guard moved < options.stillnessTolerance else { return found }
        var held = found
        held.homography = last.homography
        held.corners = last.corners
        held.pose = last.pose
        return held
    }

    /// Constant-velocity prediction: the last frame-to-frame motion applied once more.
    private func prediction(_ state: Followed) -> Homography {
        guard let previous = state.previous, let back = previous.inverse else { return state.homography }
        return (state.homography * back * state.homography).normalized
    }
}
