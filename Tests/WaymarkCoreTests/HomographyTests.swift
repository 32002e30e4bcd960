import Testing
import WaymarkCore

@Suite struct HomographyTests {
    let h = Homography([1.2, 0.1, 30, -0.05, 0.9, 12, 0.0004, -0.0002, 1])

    @Test func inverseUndoesTheMap() throws {
        let inverse = try #require(h.inverse)
        for p in [Point2(0, 0), Point2(640, 0), Point2(320, 480), Point2(13.5, 77.25)] {
            let mapped = try #require(h.apply(p))
            let back = try #require(inverse.apply(mapped))
            #expect(back.distance(to: p) < 1e-9)
        }
    }

    @Test func compositionAppliesRightFirst() throws {
        let t = Homography.translation(5, -3)
        let p = Point2(10, 20)
        let composed = try #require((t * h).apply(p))
        let mapped = try #require(h.apply(p))
        let stepwise = try #require(t.apply(mapped))
        #expect(composed.distance(to: stepwise) < 1e-9)
    }

    @Test func integerCentredConversionShiftsByHalfAPixel() throws {
        // A pure translation is the same in both conventions; a scaling about the origin is not.
        let scaling = Homography.scaling(2, 2)
        let converted = Homography.fromIntegerCentred(scaling)
        // In the integer-centred convention the pixel centre (0,0) maps to (0,0); here that centre is (0.5,0.5).
        let mapped = try #require(converted.apply(Point2(0.5, 0.5)))
        #expect(mapped.distance(to: Point2(0.5, 0.5)) < 1e-12)
    }

    @Test func singularMatrixHasNoInverse() {
        #expect(Homography([1, 2, 3, 2, 4, 6, 0, 0, 1]).inverse == nil)
    }

    @Test func mapsToInfinityGivesNil() {
        let horizon = Homography([1, 0, 0, 0, 1, 0, 1, 0, 0])
        #expect(horizon.apply(Point2(0, 5)) == nil)
    }
}

@Suite struct IntrinsicsTests {
    @Test func parsesFourNumbers() throws {
        let k = try Intrinsics(parsing: "525, 525.5,319.5,239.5")
        #expect(k == Intrinsics(fx: 525, fy: 525.5, cx: 319.5, cy: 239.5))
    }

    @Test(arguments: ["", "1,2,3", "a,b,c,d", "0,500,320,240", "-1,500,320,240", "1,2,3,4,5", "500,500,nan,240"])
    func rejectsMalformedText(_ text: String) {
        #expect(throws: WaymarkError.self) { try Intrinsics(parsing: text) }
    }
}

@Suite struct SeededGeneratorTests {
    @Test func sameSeedSameSequence() {
        var a = SeededGenerator(seed: 42)
        var b = SeededGenerator(seed: 42)
        var c = SeededGenerator(seed: 43)
        let first = (0..<8).map { _ in a.next() }
        #expect(first == (0..<8).map { _ in b.next() })
        #expect(first != (0..<8).map { _ in c.next() })
    }

    @Test func gaussianHasUnitVariance() {
        var g = SeededGenerator(seed: 7)
        let samples = (0..<20000).map { _ in g.nextGaussian() }
        let mean = samples.reduce(0, +) / Double(samples.count)
        let variance = samples.map { ($0 - mean) * ($0 - mean) }.reduce(0, +) / Double(samples.count)
        #expect(abs(mean) < 0.03)
        #expect(abs(variance - 1) < 0.05)
    }
}
