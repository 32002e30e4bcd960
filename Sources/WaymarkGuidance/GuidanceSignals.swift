import WaymarkCore

/// What the coaching goal is: the session is "done" once it is reached.
public enum CoachingGoal: String, Sendable, CaseIterable {
    /// The camera's pose is tracked normally.
    case tracking
    case horizontalSurface = "horizontal_surface"
    case verticalSurface = "vertical_surface"
    case anySurface = "any_surface"
    /// A reference image is found.
    case image
}

/// Which way to turn towards something outside the view.
public enum OffscreenDirection: String, Sendable {
    case left, right, up, down, behind

    /// The direction of a point in camera coordinates (x right, y down, z forward), or nil when
    /// it projects inside the `width`×`height` view.
    public init?(cameraPoint p: SIMD3<Double>, intrinsics: Intrinsics, width: Int, height: Int) {
        guard p.z > 0 else {
            // Behind the camera: turn the short way when it is well to a side.
            let sideways = abs(p.x) > 2 * abs(p.z)
            self = sideways ? (p.x < 0 ? .left : .right) : .behind
            return
        }
        let pixel = intrinsics.project(p)
        let (u, v) = (pixel.x, pixel.y)
        if u >= 0, u <= Double(width), v >= 0, v <= Double(height) { return nil }
        // Outside: the axis it is furthest out along, in view-sized units.
        let outU = u < 0 ? -u / Double(width) : max(0, u - Double(width)) / Double(width)
        let outV = v < 0 ? -v / Double(height) : max(0, v - Double(height)) / Double(height)
        if outU >= outV { self = u < 0 ? .left : .right } else { self = v < 0 ? .up : .down }
    }
}

/// A reference image in view, as guidance sees it.
public struct ImageInView: Sendable, Equatable {
    public var name: String
    /// The image's outline area over the frame's.
    public var areaFraction: Double
    /// Angle between the image's normal and the line of sight, degrees; nil without a pose.
    public var obliquity: Double?
    /// Sharpness inside the image's outline relative to the reference's own (1 = as sharp).
    public var sharpness: Double?

    public init(name: String, areaFraction: Double, obliquity: Double?, sharpness: Double?) {
        self.name = name
        self.areaFraction = areaFraction
        self.obliquity = obliquity
        self.sharpness = sharpness
    }
}

/// The signals measured on one frame that coaching decides from.
public struct GuidanceSignals: Sendable {
    /// Seconds, stream time.
    public var timestamp: Double
    /// The camera's tracking state; nil when the input has no camera tracking (a video).
    public var tracking: TrackingState?
    /// Distinct detail: how many corner features the frame has, and the fraction of a 4×4 grid
    /// over the frame that holds at least a few of them.
    public var featureCount: Int
    public var featureSpread: Double
    /// How bright the view is: this frame's light estimate's ambient intensity, unsmoothed
    /// (ARKit's scale, 1000 for a view exposed for middle gray; `LightEstimate`).
    public var ambientIntensity: Double
    /// Variance of the Laplacian of the half-size gray frame: small when blurred.
    public var sharpness: Double
    /// Apparent motion of the whole view since the previous frame, pixels per second.
    public var imageMotion: Double?
    /// How much of the view's detail runs across one direction, 0–1
    /// (`FrameMeasurement.directionality`): high when the view is smeared by motion.
    public var directionality = 0.0
    /// Camera speed (m/s) and turn rate (°/s) from its poses, when known (no speed in a world
    /// of unknown scale).
    public var cameraSpeed: Double?
    public var turnRate: Double?
    /// Surfaces in the world so far.
    public var horizontalSurfaces: Int
    public var verticalSurfaces: Int
    /// Reference images found in this frame.
    public var images: [ImageInView]
    /// The object to guide the person towards when it is outside the view, and which way.
    public var offscreenObject: (name: String, direction: OffscreenDirection)?
    /// An object waiting to be placed on a surface (place_object), if any.
    public var objectToPlace: String?
    /// The camera is tracked from its images alone: its map starts from a sideways move.
    public var tracksFromImagesAlone = false

    public init(timestamp: Double, tracking: TrackingState?, featureCount: Int, featureSpread: Double, ambientIntensity: Double,
                sharpness: Double, imageMotion: Double? = nil, cameraSpeed: Double? = nil, turnRate: Double? = nil,
                horizontalSurfaces: Int = 0, verticalSurfaces: Int = 0, images: [ImageInView] = [],
                offscreenObject: (name: String, direction: OffscreenDirection)? = nil, objectToPlace: String? = nil)
    {
        self.timestamp = timestamp
        self.tracking = tracking
        self.featureCount = featureCount
        self.featureSpread = featureSpread
        self.ambientIntensity = ambientIntensity
        self.sharpness = sharpness
        self.imageMotion = imageMotion
        self.cameraSpeed = cameraSpeed
        self.turnRate = turnRate
        self.horizontalSurfaces = horizontalSurfaces
        self.verticalSurfaces = verticalSurfaces
        self.images = images
        self.offscreenObject = offscreenObject
        self.objectToPlace = objectToPlace
    }
}
