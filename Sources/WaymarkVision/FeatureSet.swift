import CSupport
import Foundation
import WaymarkCore

public struct Keypoint: Equatable, Sendable {
    public var location: Point2
    /// Diameter of the described neighbourhood, pixels.
    public var size: Double
    public var angle: Double
    public var response: Double
    public var octave: Int

    public init(location: Point2, size: Double, angle: Double, response: Double, octave: Int) {
        self.location = location
        self.size = size
        self.angle = angle
        self.response = response
        self.octave = octave
    }

    /// How much coarser its pyramid level is than the image (ORB's 1.2 per octave): the
    /// standard deviation of its location, pixels, as pose refinement weighs it.
    public var octaveScale: Double { pow(1.2, Double(octave)) }
}

/// How a pyramid level chooses the corners it keeps.
public enum FeatureRanking: Equatable, Sendable {
    /// By Harris response, OpenCV's default: it grows with the fourth power of local contrast,
    /// so a busy background takes nearly every feature from a faint picture in front of it.
    case harris
    /// By FAST score, which grows with contrast itself: a faint picture keeps a share.
    case fast
}

public struct FeatureOptions: Equatable, Sendable {
    public var maxFeatures = 1000
    public var scaleFactor = 1.2
    public var levels = 8
    public var fastThreshold = 20
    /// Used instead when fewer than half of `maxFeatures` are found (dark, low-contrast frames).
    public var minFastThreshold = 7
    /// Corners closer than this to the edge of their pyramid level are dropped, pixels.
    public var edgeThreshold = 31
    /// How many of the `levels` are enlarged copies of the image (each `scaleFactor` finer
    /// than the next): there a small, distant picture gets features that its own pixels are
    /// too few for.
    public var enlargedLevels = 0
    /// Which corners a pyramid level keeps when it finds more than its share.
    public var ranking = FeatureRanking.harris
    /// Share (0...1) of each level's features chosen cell by cell over the image (every cell's
    /// strongest corner, then every cell's second…), so that a faint region keeps corners
    /// against a busy one; the rest by strength. A cell with fewer corners than its share is
    /// searched again down to `minFastThreshold`. 0: by strength alone, as OpenCV's ORB.
    /// Needs `.fast` ranking.
    public var spread = 0.0
    /// Build the pyramid with OpenCV's resize, find corners with its FAST and describe them with
    /// its ORB (without `spread`, run cv::ORB itself) even where Waymark's own equivalents give
    /// the same keypoints and bytes faster (`FeatureSet.hasExactDescriber`): for checking that
    /// they agree.
    package var opencvOnly = false

    public init() {}

    public init(maxFeatures: Int) { self.maxFeatures = maxFeatures }
}

/// Keypoints and their 256-bit binary descriptors (oriented FAST, rotated BRIEF).
public final class FeatureSet {
    let handle: OpaquePointer
    public let count: Int

    public static let descriptorBytes = 32

    init(owning handle: OpaquePointer) {
        self.handle = handle
        var n = 0
        checkInvariant { cs_features_get_count(handle, &n, $0) }
        count = n
    }

    deinit { cs_features_destroy(handle) }

    /// Detects features in a gray image. Finding none is not an error.
    public convenience init(detectingIn image: Image, options: FeatureOptions = FeatureOptions()) {
        precondition(image.channels == 1, "features are detected on gray images")
        precondition((0...1).contains(options.spread) && (options.spread == 0 || options.ranking == .fast),
                     "a spread of features is a share in 0...1, chosen by FAST score")
        var o = cs_feature_options(
            max_features: Int32(options.maxFeatures), scale_factor: Float(options.scaleFactor),
            levels: Int32(options.levels), fast_threshold: Int32(options.fastThreshold),
            min_fast_threshold: Int32(options.minFastThreshold), edge_threshold: Int32(options.edgeThreshold),
            first_level: Int32(options.enlargedLevels),
            ranking: Int32(options.ranking == .fast ? CS_RANKING_FAST.rawValue : CS_RANKING_HARRIS.rawValue),
            spread: Float(options.spread), opencv_only: options.opencvOnly ? 1 : 0)
        var out: OpaquePointer?
        checkInvariant { cs_features_detect(image.handle, &o, &out, $0) }
        self.init(owning: out!)
    }

    /// Whether spread features are described by Waymark's own ORB describer, which is read off
    /// this OpenCV's ORB at first use and used only when it gives the same bytes.
    package static var hasExactDescriber: Bool {
        var available: Int32 = 0
        checkInvariant { cs_features_exact_describer_available(&available, $0) }
        return available == 1
    }

    /// Builds a set from keypoints and `keypoints.count * 32` descriptor bytes.
    public convenience init(keypoints: [Keypoint], descriptors: [UInt8]) {
        precondition(descriptors.count == keypoints.count * FeatureSet.descriptorBytes, "descriptor bytes do not match")
        let raw = keypoints.map {
            cs_keypoint(
                x: Float($0.location.x), y: Float($0.location.y), size: Float($0.size), angle: Float($0.angle),
                response: Float($0.response), octave: Int32($0.octave))
        }
        var out: OpaquePointer?
        checkInvariant { cs_features_create(raw, descriptors, raw.count, &out, $0) }
        self.init(owning: out!)
    }

    public var keypoints: [Keypoint] {
        let raw = [cs_keypoint](uninitializedCapacity: count) { buffer, n in
            checkInvariant { cs_features_copy_keypoints(handle, buffer.baseAddress, buffer.count, $0) }
            n = buffer.count
        }
        return raw.map {
            Keypoint(
                location: Point2(Double($0.x), Double($0.y)), size: Double($0.size), angle: Double($0.angle),
                response: Double($0.response), octave: Int($0.octave))
        }
    }

    /// The features at `indices`, in that order.
    public func subset(_ indices: [Int]) -> FeatureSet {
        let all = keypoints
        let bytes = descriptors
        let n = FeatureSet.descriptorBytes
        return FeatureSet(keypoints: indices.map { all[$0] }, descriptors: indices.flatMap { bytes[($0 * n)..<(($0 + 1) * n)] })
    }

    public var descriptors: [UInt8] {
        [UInt8](uninitializedCapacity: count * FeatureSet.descriptorBytes) { buffer, n in
            checkInvariant { cs_features_copy_descriptors(handle, buffer.baseAddress, buffer.count, $0) }
            n = buffer.count
        }
    }
}
