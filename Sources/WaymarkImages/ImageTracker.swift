import WaymarkCore
import WaymarkVision

public struct ImageTrackerOptions: Equatable, Sendable {
    /// While some references are followed, the others are searched for every this many frames.
    public var searchInterval = 5
    public var detector = ImageDetectorOptions()

    public init() {}
}

/// Follows reference images through a video: searches until one is found, then follows it
/// cheaply from frame to frame by alignment, and searches for the rest now and then.
public final class ImageTracker {
    public let detector: ImageDetector
    public let options: ImageTrackerOptions

    private struct Followed {
        var homography: Homography
        var previous: Homography?
    }

    private var followed: [Int: Followed] = [:]
    private var framesSinceSearch = Int.max

    public init(references: [ReferenceImage], options: ImageTrackerOptions = ImageTrackerOptions()) {
        self.options = options
        detector = ImageDetector(references: references, options: options.detector)
    }

    /// The references in this frame: detected, tracked, or (once) lost.
    public func process(_ frame: Image, intrinsics: Intrinsics? = nil) -> [ImageDetection] {
        let gray = frame.gray()
        var results: [ImageDetection] = []
        for (r, state) in followed.sorted(by: { $0.key < $1.key }) {
            if let found = detector.follow(r, predicted: prediction(state), in: gray, intrinsics: intrinsics) {
                results.append(found)
                followed[r] = Followed(homography: found.homography, previous: state.homography)
            } else {
                followed[r] = nil
                let reference = detector.references[r]
                results.append(
                    ImageDetection(
                        name: reference.name, reference: r, state: .lost, homography: state.homography,
                        corners: reference.corners.compactMap(state.homography.apply), inliers: 0, confidence: 0,
                        pose: nil))
            }
        }
        let searchDue = followed.isEmpty || framesSinceSearch + 1 >= options.searchInterval
        if searchDue && followed.count < detector.references.count {
            framesSinceSearch = 0
            for found in detector.detect(in: gray, intrinsics: intrinsics, skipping: Set(followed.keys)) {
                results.append(found)
                followed[found.reference] = Followed(homography: found.homography, previous: nil)
            }
        } else {
            framesSinceSearch += 1
        }
        return results
    }

    /// Forget everything followed (for a cut in the video).
    public func reset() {
        followed = [:]
        framesSinceSearch = Int.max
    }

    /// Constant-velocity prediction: the last frame-to-frame motion applied once more.
    private func prediction(_ state: Followed) -> Homography {
        guard let previous = state.previous, let back = previous.inverse else { return state.homography }
        return (state.homography * back * state.homography).normalized
    }
}
