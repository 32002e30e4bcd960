import Foundation
import WaymarkCore

/// Every coaching text, in plain words (the HIG's own where it gives them), in English,
/// Simplified Chinese and Traditional Chinese. `{object}` is replaced by the object's name.
public enum CoachingCatalogue {
    /// The template, with `{object}` still in it.
    public static func template(_ code: CoachingCode, language: CoachingLanguage) -> String {
        switch language {
        case .english: english(code)
        case .simplifiedChinese: simplifiedChinese(code)
        case .traditionalChinese: traditionalChinese(code)
        }
    }

    /// The text a person reads. Without a name, `{object}` becomes a generic word ("object").
    public static func text(_ code: CoachingCode, object: String?, language: CoachingLanguage) -> String {
        let name = object ?? (language == .english ? "object" : language == .simplifiedChinese ? "物体" : "物體")
        return template(code, language: language).replacingOccurrences(of: "{object}", with: name)
    }

    private static func english(_ code: CoachingCode) -> String {
        switch code {
        case .initializingScan: "Move your phone slowly to look around."
        case .initializingSideways: "Move your phone slowly to one side."
        case .surfaceSearch: "Move your phone slowly to find a surface."
        case .surfaceSearchSlow:
            "Try moving around, turning on more lights, and making sure your phone is pointed at a sufficiently textured surface."
        case .surfaceNotFound: "Unable to find a surface. Try moving to the side or repositioning your phone."
        case .insufficientFeatures: "Try turning on more lights and moving around."
        case .lowLight: "It's too dark here. Try turning on more lights."
        case .excessiveMotion: "Try moving your phone slower."
        case .relocalizingReturn: "Go back to where you were, and point your phone at what you saw there."
        case .relocalizationOfferReset: "Still can't find where you were. Keep looking, or tap Reset to start over."
        case .placeObject: "Tap a location to place the {object}."
        case .offscreenObjectLeft: "The {object} is to your left. Turn left to see it."
        case .offscreenObjectRight: "The {object} is to your right. Turn right to see it."
        case .offscreenObjectUp: "The {object} is above you. Tilt your phone up to see it."
        case .offscreenObjectDown: "The {object} is below you. Tilt your phone down to see it."
        case .offscreenObjectBehind: "The {object} is behind you. Turn around to see it."
        case .imageSearch: "Point your phone at the picture."
        case .imageTooSmall: "Move closer to the {object}."
        case .imageTooOblique: "Face the {object} more directly."
        case .imageBlurred: "Hold your phone still so the {object} looks sharp."
        }
    }

    private static func simplifiedChinese(_ code: CoachingCode) -> String {
        switch code {
        case .initializingScan: "请缓慢移动手机，环顾四周。"
        case .initializingSideways: "请将手机缓慢地向一侧移动。"
        case .surfaceSearch: "请缓慢移动手机，寻找一个表面。"
        case .surfaceSearchSlow: "请尝试四处走动、打开更多灯光，并确保手机对准纹理足够丰富的表面。"
        case .surfaceNotFound: "无法找到表面。请尝试移到一侧或重新调整手机的位置。"
        case .insufficientFeatures: "请尝试打开更多灯光并四处走动。"
        case .lowLight: "这里太暗了。请尝试打开更多灯光。"
        case .excessiveMotion: "请尝试放慢移动手机的速度。"
        case .relocalizingReturn: "请回到之前所在的地方，并将手机对准当时看到的景物。"
        case .relocalizationOfferReset: "仍未找到之前的地方。请继续寻找，或轻点“重置”重新开始。"
        case .placeObject: "轻点一个位置来放置{object}。"
        case .offscreenObjectLeft: "{object}在你的左边。向左转即可看到。"
        case .offscreenObjectRight: "{object}在你的右边。向右转即可看到。"
        case .offscreenObjectUp: "{object}在你的上方。将手机向上倾斜即可看到。"
        case .offscreenObjectDown: "{object}在你的下方。将手机向下倾斜即可看到。"
        case .offscreenObjectBehind: "{object}在你的身后。转过身即可看到。"
        case .imageSearch: "请将手机对准图片。"
        case .imageTooSmall: "请靠近{object}。"
        case .imageTooOblique: "请更正面地对着{object}。"
        case .imageBlurred: "请拿稳手机，让{object}看起来清晰。"
        }
    }

    private static func traditionalChinese(_ code: CoachingCode) -> String {
        switch code {
        case .initializingScan: "請緩慢移動手機，環顧四周。"
        case .initializingSideways: "請將手機緩慢地向一側移動。"
        case .surfaceSearch: "請緩慢移動手機，尋找一個表面。"
        case .surfaceSearchSlow: "請嘗試四處走動、打開更多燈光，並確保手機對準紋理足夠豐富的表面。"
        case .surfaceNotFound: "無法找到表面。請嘗試移到一側或重新調整手機的位置。"
        case .insufficientFeatures: "請嘗試打開更多燈光並四處走動。"
        case .lowLight: "這裡太暗了。請嘗試打開更多燈光。"
        case .excessiveMotion: "請嘗試放慢移動手機的速度。"
        case .relocalizingReturn: "請回到之前所在的地方，並將手機對準當時看到的景物。"
        case .relocalizationOfferReset: "仍未找到之前的地方。請繼續尋找，或點一下「重置」重新開始。"
        case .placeObject: "點一下一個位置來放置{object}。"
        case .offscreenObjectLeft: "{object}在你的左邊。向左轉即可看到。"
        case .offscreenObjectRight: "{object}在你的右邊。向右轉即可看到。"
        case .offscreenObjectUp: "{object}在你的上方。將手機向上傾斜即可看到。"
        case .offscreenObjectDown: "{object}在你的下方。將手機向下傾斜即可看到。"
        case .offscreenObjectBehind: "{object}在你的身後。轉過身即可看到。"
        case .imageSearch: "請將手機對準圖片。"
        case .imageTooSmall: "請靠近{object}。"
        case .imageTooOblique: "請更正面地對著{object}。"
        case .imageBlurred: "請拿穩手機，讓{object}看起來清晰。"
        }
    }

    /// A short plain-words label for the camera's state, as an app's status line shows it.
    public static func stateLabel(_ state: TrackingState, language: CoachingLanguage) -> String {
        let labels: (normal: String, limited: String, unavailable: String) = switch language {
        case .english: ("Ready", "Limited", "Not available")
        case .simplifiedChinese: ("就绪", "受限", "不可用")
        case .traditionalChinese: ("就緒", "受限", "無法使用")
        }
        switch state {
        case .normal: return labels.normal
        case .limited: return labels.limited
        case .notAvailable: return labels.unavailable
        }
    }
}
