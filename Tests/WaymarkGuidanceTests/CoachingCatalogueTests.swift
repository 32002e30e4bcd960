import Testing
import WaymarkCore
import WaymarkGuidance

@Suite struct CoachingCatalogueTests {
    static let englishJargon = ["arkit", "plane", "feature", "tracking", "anchor", "relocaliz", "slam", "ransac", "homograph"]
    /// Plane, feature, tracking, anchor, relocalization and positioning, in both scripts.
    static let chineseJargon = ["平面", "特征", "特徵", "跟踪", "跟蹤", "追踪", "追蹤", "锚", "錨", "重定位", "定位", "SLAM", "RANSAC", "ARKit"]

    @Test func noMessageUsesDeveloperWords() {
        for code in CoachingCode.allCases {
            for language in CoachingLanguage.allCases {
                for object in [nil, "poster"] as [String?] {
                    let text = CoachingCatalogue.text(code, object: object, language: language)
                    let words = language == .english ? Self.englishJargon : Self.chineseJargon
                    for word in words {
                        #expect(!text.lowercased().contains(word.lowercased()), "\(code.rawValue) [\(language.rawValue)]: \(text)")
                    }
                    #expect(!text.contains("{") && !text.contains("}"), "\(code.rawValue): unreplaced placeholder in \(text)")
                }
            }
        }
    }

    @Test func stateLabelsAreDistinctAndPlain() {
        let states: [TrackingState] = [.normal, .limited(.relocalizing), .notAvailable]
        for language in CoachingLanguage.allCases {
            let labels = states.map { CoachingCatalogue.stateLabel($0, language: language) }
            #expect(Set(labels).count == 3)
            let words = language == .english ? Self.englishJargon : Self.chineseJargon
            #expect(labels.allSatisfy { label in !words.contains { label.lowercased().contains($0.lowercased()) } }, "\(labels)")
        }
    }

    @Test func everyTextNamesItsObjectExactlyWhenItShould() {
        for code in CoachingCode.allCases {
            for language in CoachingLanguage.allCases {
                let template = CoachingCatalogue.template(code, language: language)
                #expect(template.contains("{object}") == code.namesObject, "\(code.rawValue) [\(language.rawValue)]")
                if code.namesObject {
                    #expect(CoachingCatalogue.text(code, object: "Klimt", language: language).contains("Klimt"))
                }
            }
        }
    }

    /// Characters whose simplified and traditional forms differ (pairs in the same order).
    static let simplifiedOnly = Set("请这灯将对时机转边让开过动寻试调确纹丰续轻点现处还无当缓环视样图侧")
    static let traditionalOnly = Set("請這燈將對時機轉邊讓開過動尋試調確紋豐續輕點現處還無當緩環視樣圖側裡")

    @Test func eachChineseTextIsInItsOwnScript() {
        for code in CoachingCode.allCases {
            let hans = CoachingCatalogue.template(code, language: .simplifiedChinese)
            let hant = CoachingCatalogue.template(code, language: .traditionalChinese)
            #expect(hans.allSatisfy { !Self.traditionalOnly.contains($0) }, "\(code.rawValue): \(hans)")
            #expect(hant.allSatisfy { !Self.simplifiedOnly.contains($0) }, "\(code.rawValue): \(hant)")
            #expect(hans != hant, "\(code.rawValue) reads the same in both scripts")
            #expect(hans.unicodeScalars.contains { $0.value >= 0x4E00 && $0.value <= 0x9FFF }, "\(code.rawValue) is not Chinese")
        }
    }

    @Test func textsAreDistinctWithinALanguage() {
        for language in CoachingLanguage.allCases {
            let texts = CoachingCode.allCases.map { CoachingCatalogue.template($0, language: language) }
            #expect(Set(texts).count == texts.count, "\(language.rawValue) repeats a text")
        }
    }

    /// The HIG's own words, where it gives them.
    @Test func theGuidelinesWordingIsKept() {
        #expect(CoachingCatalogue.text(.insufficientFeatures, object: nil, language: .english)
            == "Try turning on more lights and moving around.")
        #expect(CoachingCatalogue.text(.excessiveMotion, object: nil, language: .english) == "Try moving your phone slower.")
        #expect(CoachingCatalogue.text(.placeObject, object: "lamp", language: .english) == "Tap a location to place the lamp.")
        #expect(CoachingCatalogue.text(.surfaceNotFound, object: nil, language: .english)
            == "Unable to find a surface. Try moving to the side or repositioning your phone.")
    }
}
