/// A coaching message's stable machine code: what apps and tests key on. The text a person
/// reads comes from `CoachingCatalogue` in their language.
public enum CoachingCode: String, Sendable, CaseIterable {
    case initializingScan = "initializing_scan"
    /// Tracking from images alone needs parallax to start: a sideways move, not a turn.
    case initializingSideways = "initializing_sideways"
    case surfaceSearch = "surface_search"
    case surfaceSearchSlow = "surface_search_slow"
    case surfaceNotFound = "surface_not_found"
    case insufficientFeatures = "insufficient_features"
    case lowLight = "low_light"
    case excessiveMotion = "excessive_motion"
    case relocalizingReturn = "relocalizing_return"
    case relocalizationOfferReset = "relocalization_offer_reset"
    case placeObject = "place_object"
    case offscreenObjectLeft = "offscreen_object_left"
    case offscreenObjectRight = "offscreen_object_right"
    case offscreenObjectUp = "offscreen_object_up"
    case offscreenObjectDown = "offscreen_object_down"
    case offscreenObjectBehind = "offscreen_object_behind"
    case imageSearch = "image_search"
    case imageTooSmall = "image_too_small"
    case imageTooOblique = "image_too_oblique"
    case imageBlurred = "image_blurred"

    /// Whether the text names an object ({object}).
    public var namesObject: Bool {
        switch self {
        case .placeObject, .offscreenObjectLeft, .offscreenObjectRight, .offscreenObjectUp, .offscreenObjectDown,
            .offscreenObjectBehind, .imageTooSmall, .imageTooOblique, .imageBlurred:
            true
        default: false
        }
    }
}

public enum CoachingLanguage: String, Sendable, CaseIterable {
    case english = "en"
    case simplifiedChinese = "zh-Hans"
    case traditionalChinese = "zh-Hant"
}

/// A message on screen: its code, the object it names (if any) and its text in one language.
public struct CoachingMessage: Equatable, Sendable {
    public var code: CoachingCode
    public var object: String?
    public var language: CoachingLanguage
    public var text: String

    public init(code: CoachingCode, object: String? = nil, language: CoachingLanguage) {
        self.code = code
        self.object = object
        self.language = language
        text = CoachingCatalogue.text(code, object: object, language: language)
    }
}
