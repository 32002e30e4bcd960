import Testing
import TestSupport
import WaymarkCore
import WaymarkImages
import WaymarkVision

@Suite struct TrackerTests {
    @Test func followsThroughVideoAccuratelyAndHoldsStill() throws {
        guard let box = Fixtures.dataset("opencv_samples/box.png"), let graf = Fixtures.dataset("opencv_samples/graf1.png"),
            let wall = Fixtures.dataset("opencv_samples/aloeL.jpg")
        else { return }
        let video = try SyntheticVideo.sample(box: box, graffiti: graf, wall: wall, frameCount: 100)
        let references = try video.placements.map {
            try ReferenceImage(entry: ReferenceEntry(name: $0.name, path: "-"), image: $0.image)
        }
        let tracker = ImageTracker(references: references)
        var states: [ImageDetection.State: Int] = [:]
        var worst = 0.0
        var stillCorners: [String: [Point2]] = [:]
        var stillMotion = 0.0
        for index in 0..<video.frameCount {
            let truth = video.truth(at: index)
            for d in tracker.process(video.render(index)) {
                states[d.state, default: 0] += 1
                let r = references[d.reference]
                worst = max(worst, Fixtures.meanCornerError(d.homography, truth[d.name]!, width: r.width, height: r.height))
                if video.stillFrames.contains(index) {
                    if let previous = stillCorners[d.name] {
                        stillMotion = max(stillMotion, zip(previous, d.corners).map { $0.distance(to: $1) }.max()!)
                    }
                    stillCorners[d.name] = d.corners
                }
            }
        }
        // Found once each, then followed in every later frame.
        #expect(states[.detected] == 2)
        #expect(states[.tracked] == 2 * (video.frameCount - 1))
        #expect(states[.lost, default: 0] == 0)
        #expect(worst < 1.5, "worst mean corner error \(worst) px")
        // While the camera holds still, no corner moves by more than a hundredth of a pixel.
        #expect(stillMotion < 0.01, "corners moved \(stillMotion) px on a still scene")
    }

    @Test func reportsLostOnceWhenTheImageLeaves() throws {
        let poster = Fixtures.texture(width: 300, height: 200, seed: 21)
        let reference = try ReferenceImage(entry: ReferenceEntry(name: "poster", path: "-"), image: poster)
        let tracker = ImageTracker(references: [reference])
        var states: [ImageDetection.State] = []
        for index in 0..<6 {
            let frame = Fixtures.texture(width: 640, height: 480, seed: 300)
            if index < 3 { frame.composite(poster, by: .translation(100 + Double(index) * 4, 120)) }
            states += tracker.process(frame).map(\.state)
        }
        #expect(states == [.detected, .tracked, .tracked, .lost])
    }
}
