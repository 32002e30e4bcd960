import WaymarkCore
import WaymarkVision

/// A reference image prepared for searching: its features and its alignment templates.
public final class ReferenceImage {
    public let entry: ReferenceEntry
    /// Size of the image file in pixels; homographies map these pixels into frames.
    public let width: Int
    public let height: Int
    /// Features in reference pixels.
    public let features: FeatureSet
    let featureLocations: [Point2]
    /// Alignment templates from fine to coarse.
    let templates: [AlignmentTemplate]

    public var name: String { entry.name }
    public var corners: [Point2] { imageCorners(width: width, height: height) }

    public struct Options: Equatable, Sendable {
        /// Features are found on a copy whose longer side is at most this many pixels.
        public var featureSide = 1024
        public var features = FeatureOptions(maxFeatures: 1500)
        /// Longer side of the finest alignment template; each coarser one halves it.
        public var templateSide = 640
        public var templateLevels = 3
        public var templatePoints = 200

        public init() {}
    }

    public convenience init(entry: ReferenceEntry, options: Options = Options()) throws(WaymarkError) {
        let image = try Image(contentsOf: entry.path, gray: true)
        try self.init(entry: entry, image: image, options: options)
    }

    public init(entry: ReferenceEntry, image: Image, options: Options = Options()) throws(WaymarkError) {
        guard image.width >= 16, image.height >= 16 else {
            throw WaymarkError(
                .badData, "reference image '\(entry.name)' is \(image.width)×\(image.height) pixels; at least 16×16 is needed")
        }
        self.entry = entry
        let gray = image.gray()
        width = gray.width
        height = gray.height
        let scale = min(1, Double(options.featureSide) / Double(max(width, height)))
        let featureImage = scale < 1 ? gray.resized(width: Self.scaled(width, scale), height: Self.scaled(height, scale)) : gray
        let found = FeatureSet(detectingIn: featureImage, options: options.features)
        if scale < 1 {
            let sx = Double(width) / Double(featureImage.width)
            let sy = Double(height) / Double(featureImage.height)
            let keypoints = found.keypoints.map { k in
                var k = k
                k.location = Point2(k.location.x * sx, k.location.y * sy)
                k.size *= sx
                return k
            }
            features = FeatureSet(keypoints: keypoints, descriptors: found.descriptors)
        } else {
            features = found
        }
        featureLocations = features.keypoints.map(\.location)
        var templates: [AlignmentTemplate] = []
        var side = options.templateSide
        for _ in 0..<options.templateLevels {
            let s = min(1, Double(side) / Double(max(width, height)))
            let w = Self.scaled(width, s)
            let h = Self.scaled(height, s)
            if let last = templates.last, last.image.width == w { break }
            guard w >= 24, h >= 24 else { break }
            let level = s < 1 ? gray.resized(width: w, height: h) : gray
            templates.append(AlignmentTemplate(image: level, referenceWidth: width, referenceHeight: height,
                                               maxPoints: options.templatePoints))
            side /= 2
        }
        self.templates = templates
    }

    private static func scaled(_ n: Int, _ s: Double) -> Int { max(1, Int((Double(n) * s).rounded())) }
}

/// A downscaled copy of a reference image with strong corners, for sub-pixel alignment.
struct AlignmentTemplate {
    let image: Image
    let points: [Point2]
    let brightness: Image.Statistics
    /// Maps template pixels to reference pixels.
    let toReference: Homography
    let fromReference: Homography

    init(image: Image, referenceWidth: Int, referenceHeight: Int, maxPoints: Int) {
        self.image = image
        brightness = image.statistics()
        points = detectCorners(in: image, maxCount: maxPoints, quality: 0.01,
                               minDistance: max(4, Double(min(image.width, image.height)) / 40))
        let sx = Double(referenceWidth) / Double(image.width)
        let sy = Double(referenceHeight) / Double(image.height)
        toReference = .scaling(sx, sy)
        fromReference = .scaling(1 / sx, 1 / sy)
    }
}
