import Foundation
import WaymarkCore
import WaymarkVision

/// A reference image prepared for searching: its features and its alignment templates.
public final class ReferenceImage {
    public let entry: ReferenceEntry
    /// Size of the image file in pixels; homographies map these pixels into frames.
    public let width: Int
    public let height: Int
    /// Features in reference pixels, at every scale searched.
    public let features: FeatureSet
    /// The features found at the image's own scale (what a person would call its details).
    public let baseFeatures: FeatureSet
    let featureLocations: [Point2]
    /// Features of a small copy and of its oblique views (`Options.obliqueViews`), at scales
    /// coarser than any level of `features` reaches: for frames where the reference is tiny,
    /// and slanted too. Searched only when `features` find nothing.
    public let coarseFeatures: FeatureSet
    let coarseFeatureLocations: [Point2]
    /// Alignment templates from fine to coarse.
    let templates: [AlignmentTemplate]

    public var name: String { entry.name }
    public var corners: [Point2] { imageCorners(width: width, height: height) }

    public struct Options: Equatable, Sendable {
        /// Features are found on a copy whose longer side is at most this many pixels.
        public var featureSide = 1024
        /// Ranked by FAST score, like the frames' (`ImageDetectorOptions.frameFeatures`).
        public var features = Options.fastRanked(1500)
        /// Scales of the enlarged copies whose finest four pyramid levels (1.2⁴ ≈ 2: exactly
        /// the scales the others lack) add detail features.
        public var detailScales: [Double] = [2]
        /// Scale of the copy whose pyramid levels from `coarseFirstOctave` on, and those of its
        /// oblique views, make the coarse set.
        public var coarseScale = 0.3
        public var coarseFirstOctave = 1
        /// Simulated oblique views, described too, so that strongly slanted posters still match:
        /// a tilt of 2 is a view 60° off-axis, 2.8 one 69° off-axis (ASIFT's sampling, tilts
        /// √2 apart, longitudes closer as the tilt grows). Paid once per reference.
        public var obliqueViews = [
            ObliqueViews(tilt: 2, angles: [0, 45, 90, 135]),
            ObliqueViews(tilt: 2.8, angles: [0, 30, 60, 90, 120, 150]),
        ]
        /// Features per simulated view.
        public var obliqueFeatures = Options.fastRanked(500)
        /// Longer side of the finest alignment template; each coarser one halves it.
        public var templateSide = 1024
        public var templateLevels = 4
        public var templatePoints = 300

        public init() {}

        /// Corners as close to the edge as a descriptor can be computed without reading past it
        /// (ORB's 31-pixel patch turned by 45°: 22 pixels; the frames' default keeps 31): the
        /// coarse pyramid levels of a small reference are little more than that border, and a
        /// small reference seen far away is matched at those levels.
        private static func fastRanked(_ maxFeatures: Int) -> FeatureOptions {
            var o = FeatureOptions(maxFeatures: maxFeatures)
            o.ranking = .fast
            o.edgeThreshold = 22
            return o
        }
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
        let base = Self.features(of: gray, scale: scale, options: options.features, octaves: 0..<Int.max)
        // A frame that zooms in shows the reference's details larger than any level of the
        // frame's pyramid reaches, so details are also described from enlarged copies: only
        // their finest levels, which the first set does not cover.
        baseFeatures = FeatureSet(keypoints: base.keypoints, descriptors: base.descriptors)
        var keypoints = base.keypoints
        var descriptors = base.descriptors
        for factor in options.detailScales {
            let detail = Self.features(of: gray, scale: factor * scale, options: options.features, octaves: 0..<4)
            keypoints += detail.keypoints
            descriptors += detail.descriptors
        }
        let oblique = Self.obliqueFeatures(of: gray, scale: scale, options: options, octaves: 0..<Int.max)
        keypoints += oblique.keypoints
        descriptors += oblique.descriptors
        features = FeatureSet(keypoints: keypoints, descriptors: descriptors)
        featureLocations = keypoints.map(\.location)
        let coarseOctaves = options.coarseFirstOctave..<Int.max
        var coarse = Self.features(of: gray, scale: options.coarseScale * scale, options: options.features,
                                   octaves: coarseOctaves)
        let coarseOblique = Self.obliqueFeatures(of: gray, scale: options.coarseScale * scale, options: options,
                                                 octaves: coarseOctaves)
        coarse.keypoints += coarseOblique.keypoints
        coarse.descriptors += coarseOblique.descriptors
        coarseFeatures = FeatureSet(keypoints: coarse.keypoints, descriptors: coarse.descriptors)
        coarseFeatureLocations = coarse.keypoints.map(\.location)
        // Sides templateSide, /2, /4…, each capped at the image's own: a small reference skips
        // the sides it is smaller than, so it still gets the coarser ones.
        var templates: [AlignmentTemplate] = []
        var side = options.templateSide
        for _ in 0..<options.templateLevels {
            let s = min(1, Double(side) / Double(max(width, height)))
            let w = Self.scaled(width, s)
            let h = Self.scaled(height, s)
            side /= 2
            if let last = templates.last, last.image.width == w { continue }
            guard w >= 24, h >= 24 else { break }
            let level = s < 1 ? gray.resized(width: w, height: h) : gray
            templates.append(AlignmentTemplate(image: level, referenceWidth: width, referenceHeight: height,
                                               maxPoints: options.templatePoints))
        }
        self.templates = templates
    }

    /// Features of `gray` resized by `scale`, in the original's pixels: those found on the
    /// pyramid levels `octaves`.
    private static func features(of gray: Image, scale: Double, options: FeatureOptions, octaves: Range<Int>)
        -> (keypoints: [Keypoint], descriptors: [UInt8])
    {
        let w = scaled(gray.width, scale)
        let h = scaled(gray.height, scale)
        let image = w == gray.width && h == gray.height ? gray : gray.resized(width: w, height: h)
        let found = FeatureSet(detectingIn: image, options: options)
        let sx = Double(gray.width) / Double(w)
        let sy = Double(gray.height) / Double(h)
        return collect(found) { keypoint in
            guard octaves.contains(keypoint.octave) else { return nil }
            var k = keypoint
            k.location = Point2(k.location.x * sx, k.location.y * sy)
            k.size *= sx
            return k
        }
    }

    /// The features `transform` keeps (mapped into reference pixels), with their descriptors.
    private static func collect(_ found: FeatureSet, _ transform: (Keypoint) -> Keypoint?)
        -> (keypoints: [Keypoint], descriptors: [UInt8])
    {
        var keypoints: [Keypoint] = []
        var descriptors: [UInt8] = []
        let bytes = found.descriptors
        for (i, keypoint) in found.keypoints.enumerated() {
            guard let kept = transform(keypoint) else { continue }
            keypoints.append(kept)
            descriptors += bytes[(i * FeatureSet.descriptorBytes)..<((i + 1) * FeatureSet.descriptorBytes)]
        }
        return (keypoints, descriptors)
    }

    /// Features of every view in `options.obliqueViews` of `gray` resized by `scale`, found on
    /// the pyramid levels `octaves`, in the original's pixels.
    private static func obliqueFeatures(of gray: Image, scale: Double, options: Options, octaves: Range<Int>)
        -> (keypoints: [Keypoint], descriptors: [UInt8])
    {
        var keypoints: [Keypoint] = []
        var descriptors: [UInt8] = []
        for views in options.obliqueViews {
            for angle in views.angles {
                let view = obliqueFeatures(of: gray, scale: scale, tilt: views.tilt, angle: angle,
                                           options: options.obliqueFeatures, octaves: octaves)
                keypoints += view.keypoints
                descriptors += view.descriptors
            }
        }
        return (keypoints, descriptors)
    }

    /// Features of the reference as seen obliquely: rotated by `angle`, squeezed by `tilt`
    /// along x, in reference pixels. Features near the reference's edge, whose descriptors would
    /// see the blank around the warped view, are left out.
    private static func obliqueFeatures(of gray: Image, scale: Double, tilt: Double, angle: Double, options: FeatureOptions,
                                        octaves: Range<Int>)
        -> (keypoints: [Keypoint], descriptors: [UInt8])
    {
        let radians = angle * Double.pi / 180
        let c = cos(radians)
        let s = sin(radians)
        let linear = Homography([scale / tilt * c, -scale / tilt * s, 0, scale * s, scale * c, 0, 0, 0, 1])
        let corners = imageCorners(width: gray.width, height: gray.height).map { linear.apply($0)! }
        let minX = corners.map(\.x).min()!
        let minY = corners.map(\.y).min()!
        let toView = Homography.translation(-minX, -minY) * linear
        let width = Int((corners.map(\.x).max()! - minX).rounded(.up))
        let height = Int((corners.map(\.y).max()! - minY).rounded(.up))
        guard width >= 32, height >= 32, let back = toView.inverse else { return ([], []) }
        let view = gray.warped(by: toView, width: width, height: height)
        let found = FeatureSet(detectingIn: view, options: options)
        let margin = 24 / scale
        return collect(found) { keypoint in
            guard octaves.contains(keypoint.octave), let p = back.apply(keypoint.location), p.x >= margin, p.y >= margin,
                p.x <= Double(gray.width) - margin, p.y <= Double(gray.height) - margin
            else { return nil }
            var k = keypoint
            k.location = p
            k.size /= scale
            return k
        }
    }

    private static func scaled(_ n: Int, _ s: Double) -> Int { max(1, Int((Double(n) * s).rounded())) }
}

/// Views of a reference squeezed by `tilt` (a view arccos(1/tilt) off-axis) across each of
/// `angles` (degrees, in the reference's plane).
public struct ObliqueViews: Equatable, Sendable {
    public var tilt: Double
    public var angles: [Double]

    public init(tilt: Double, angles: [Double]) {
        precondition(tilt >= 1, "a tilt is at least 1 (a frontal view)")
        self.tilt = tilt
        self.angles = angles
    }
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
