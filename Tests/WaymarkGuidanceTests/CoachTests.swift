import Testing
import WaymarkCore
import WaymarkGuidance

/// The coaching state machine on exact synthetic signal streams at 30 frames per second.
@Suite struct CoachTests {
    static let fps = 30.0

    /// A calm, well-lit, detailed frame with normal tracking.
    static func calm(_ t: Double) -> GuidanceSignals {
        GuidanceSignals(timestamp: t, tracking: .normal, featureCount: 800, featureSpread: 0.9, ambientIntensity: 1000,
                        sharpness: 300, cameraSpeed: 0.3, turnRate: 10, horizontalSurfaces: 1)
    }

    /// Runs `seconds` of frames; `signals` shapes each from the calm one.
    static func run(_ coach: inout Coach, seconds: Double, _ signals: (Double, inout GuidanceSignals) -> Void)
        -> [(time: Double, update: CoachingUpdate)]
    {
        (0..<Int(seconds * fps)).map { k in
            let t = Double(k) / fps
            var s = calm(t)
            signals(t, &s)
            return (t, coach.update(s))
        }
    }

    static func changes(_ run: [(time: Double, update: CoachingUpdate)]) -> [(time: Double, code: CoachingCode?)] {
        run.filter(\.update.changed).map { ($0.time, $0.update.message?.code) }
    }

    @Test func darknessShowsItsMessageWithinASecondAndClearsWithinTwo() throws {
        var coach = Coach(options: CoachingOptions(goal: .tracking, language: .english))
        let frames = Self.run(&coach, seconds: 10) { t, s in if t >= 3, t < 5 { s.ambientIntensity = 30 } }
        let changes = Self.changes(frames)
        #expect(changes.map(\.code) == [.lowLight, nil])
        let shown = try #require(changes.first).time
        #expect(shown >= 3 && shown <= 4, "shown at \(shown) s")
        let cleared = try #require(changes.last).time
        #expect(cleared >= 5 && cleared <= 7, "cleared at \(cleared) s")
        #expect(frames.first { $0.time >= 4 }?.update.message?.text == "It's too dark here. Try turning on more lights.")
    }

    /// A camera tracked from its images alone is asked for a sideways move while its map
    /// starts (it needs parallax); one with depth to look around.
    @Test func initializingFromImagesAloneAsksForASidewaysMove() {
        for (alone, expected) in [(true, CoachingCode.initializingSideways), (false, .initializingScan)] {
            var coach = Coach(options: CoachingOptions(goal: .tracking, language: .simplifiedChinese))
            let frames = Self.run(&coach, seconds: 3) { t, s in
                s.tracksFromImagesAlone = alone
                if t < 2 { s.tracking = .limited(.initializing) }
            }
            #expect(Self.changes(frames).map(\.code) == [expected, nil], "images alone: \(alone)")
            #expect(frames.first { $0.time >= 1 }?.update.message?.text
                == CoachingCatalogue.text(expected, object: nil, language: .simplifiedChinese))
        }
    }

    /// A fast turn loses a monocular map and blurs the view beyond the phase correlation: no
    /// pose, no speed, no view motion. The smear's direction still says it is motion, and
    /// slowing down outranks going back.
    @Test func aSmearedViewIsCoachedAsMotionWhileTheMapIsLost() throws {
        var coach = Coach(options: CoachingOptions(goal: .tracking, language: .english))
        let frames = Self.run(&coach, seconds: 8) { t, s in
            (s.cameraSpeed, s.turnRate) = (nil, nil)
            guard t >= 3, t < 4.5 else { return }
            s.tracking = .limited(.relocalizing)
            s.sharpness = 40
            s.directionality = 0.8
        }
        let changes = Self.changes(frames)
        #expect(changes.map(\.code) == [.excessiveMotion, nil])
        let shown = try #require(changes.first).time
        #expect(shown >= 3 && shown <= 4, "shown at \(shown) s")
        #expect(frames.first { $0.time >= 4 }?.update.message?.text == "Try moving your phone slower.")
    }

    @Test func aSingleOddFrameShowsNothing() {
        var coach = Coach(options: CoachingOptions(goal: .tracking, language: .english))
        let frames = Self.run(&coach, seconds: 5) { t, s in if abs(t - 2) < 0.01 { s.featureCount = 10 } }
        #expect(Self.changes(frames).isEmpty)
    }

    /// Trouble that comes and goes every 0.3 s: the message on screen changes at most once per
    /// 2 s, and is never a copy of the state before the last change (no back and forth).
    @Test func flickeringTroubleNeverFlickersTheMessage() {
        var coach = Coach(options: CoachingOptions(goal: .tracking, language: .english))
        let frames = Self.run(&coach, seconds: 12) { t, s in
            if Int(t / 0.3) % 2 == 1 { s.ambientIntensity = 25 }
            if Int(t / 0.45) % 2 == 1 { s.cameraSpeed = 3 }
        }
        let changes = Self.changes(frames)
        #expect(!changes.isEmpty)
        for (a, b) in zip(changes, changes.dropFirst()) {
            #expect(b.time - a.time >= 2 - 1e-9, "changes at \(a.time) and \(b.time)")
        }
    }

    /// Darkness gives way to a plain wall at once: the message changes once, straight from one
    /// to the other, as soon as the wall's onset has passed.
    @Test func aNewTroubleReplacesAFinishedOneInOneChange() {
        var coach = Coach(options: CoachingOptions(goal: .tracking, language: .english))
        let frames = Self.run(&coach, seconds: 8) { t, s in
            if t >= 1, t < 3 { s.ambientIntensity = 25 }
            if t >= 3, t < 6 { s.featureCount = 20 }
        }
        let changes = Self.changes(frames)
        #expect(changes.map(\.code) == [.lowLight, .insufficientFeatures, nil])
        #expect(abs(changes[1].time - 3.5) < 0.05, "the wall's message at \(changes[1].time) s")
    }

    @Test func theMoreUrgentTroubleWins() {
        var coach = Coach(options: CoachingOptions(goal: .tracking, language: .english))
        let frames = Self.run(&coach, seconds: 4) { t, s in
            if t >= 1 {
                s.ambientIntensity = 40
                s.featureCount = 20
                s.tracking = .limited(.insufficientFeatures)
            }
        }
        #expect(Self.changes(frames).map(\.code) == [.lowLight])
    }

    /// Each escalation shows `onset` (0.2 s) after its condition begins.
    @Test func surfaceSearchEscalatesAndTheGoalFiresOnce() {
        var coach = Coach(options: CoachingOptions(goal: .horizontalSurface, language: .english))
        let frames = Self.run(&coach, seconds: 30) { t, s in
            s.horizontalSurfaces = t >= 25 ? 1 : 0
            s.verticalSurfaces = 2
        }
        let changes = Self.changes(frames)
        #expect(changes.map(\.code) == [.surfaceSearch, .surfaceSearchSlow, .surfaceNotFound, nil])
        #expect(abs(changes[1].time - 10.2) < 0.05 && abs(changes[2].time - 20.2) < 0.05)
        let done = frames.filter(\.update.goalReachedNow)
        #expect(done.count == 1 && abs(done[0].time - 25) < 0.05)
        #expect(frames.first { $0.time >= 24 }!.update.timeWithoutSurface! > 23.9)
        #expect(frames.last!.update.isGoalReached && frames.last!.update.timeWithoutSurface == nil)
    }

    @Test func relocalizationAsksToGoBackThenOffersAReset() {
        var coach = Coach(options: CoachingOptions(goal: .tracking, language: .simplifiedChinese))
        let frames = Self.run(&coach, seconds: 20) { t, s in
            if t >= 2, t < 16 {
                s.tracking = .limited(.relocalizing)
                s.cameraSpeed = nil
                s.turnRate = nil
            }
        }
        let changes = Self.changes(frames)
        #expect(changes.map(\.code) == [.relocalizingReturn, .relocalizationOfferReset, nil])
        #expect(changes[0].time <= 3 && abs(changes[1].time - 12.2) < 0.05 && changes[2].time <= 18)
        #expect(frames.first { $0.time >= 5 }!.update.message?.language == .simplifiedChinese)
        #expect(abs(frames.first { $0.time >= 10 }!.update.timeRelocalizing! - 8) < 0.05)
    }

    @Test func placementAndOffscreenHintsNameTheObject() {
        var coach = Coach(options: CoachingOptions(goal: .anySurface, language: .traditionalChinese))
        let frames = Self.run(&coach, seconds: 8) { t, s in
            if t < 4 { s.objectToPlace = "檯燈" } else { s.offscreenObject = ("檯燈", .left) }
        }
        let changes = Self.changes(frames)
        #expect(changes.map(\.code) == [.placeObject, .offscreenObjectLeft])
        #expect(frames.last!.update.message?.text == "檯燈在你的左邊。向左轉即可看到。")
    }

    @Test func imageGoalCoachesTowardsASharperCloserView() {
        var coach = Coach(options: CoachingOptions(goal: .image, language: .english))
        let frames = Self.run(&coach, seconds: 9) { t, s in
            if t >= 4 { s.images = [ImageInView(name: "poster", areaFraction: t < 6.5 ? 0.005 : 0.2, obliquity: 20, sharpness: 0.9)] }
        }
        let changes = Self.changes(frames)
        #expect(changes.map(\.code) == [.imageSearch, .imageTooSmall, nil])
        #expect(frames.filter(\.update.goalReachedNow).map(\.time).first.map { abs($0 - 4) < 0.05 } == true)
        #expect(frames.first { $0.time >= 5 }!.update.message?.text == "Move closer to the poster.")
    }

    @Test func offscreenDirections() {
        let k = Intrinsics(fx: 500, fy: 500, cx: 320, cy: 240)
        func direction(_ x: Double, _ y: Double, _ z: Double) -> OffscreenDirection? {
            OffscreenDirection(cameraPoint: SIMD3(x, y, z), intrinsics: k, width: 640, height: 480)
        }
        #expect(direction(0, 0, 2) == nil)
        #expect(direction(0.6, 0.4, 2) == nil)  // u = 470, v = 340: inside
        #expect(direction(-2, 0, 2) == .left)
        #expect(direction(2, 0.1, 2) == .right)
        #expect(direction(0.1, -3, 2) == .up)  // y down: negative is above
        #expect(direction(0, 3, 2) == .down)
        #expect(direction(0.1, 0, -2) == .behind)
        #expect(direction(-3, 0, -0.5) == .left)
    }
}
