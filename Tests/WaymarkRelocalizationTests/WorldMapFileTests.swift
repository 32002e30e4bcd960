import Foundation
import TestData
import Testing
import TestSupport
import WaymarkCore
import WaymarkRelocalization
import WaymarkVision

@Suite struct WorldMapFileTests {
    static func smallMap() -> WorldMap {
        var generator = SeededGenerator(seed: 7)
        let keypoints = (0..<40).map { i in
            Keypoint(location: Point2(Double(i) * 7.5 + 0.25, Double(i % 9) * 11 + 0.5), size: 31, angle: Double(i) * 9,
                     response: 0.001 * Double(i), octave: i % 4)
        }
        let descriptors = (0..<(40 * FeatureSet.descriptorBytes)).map { _ in UInt8.random(in: 0...255, using: &generator) }
        let points = (0..<40).map { (i: Int) -> SIMD3<Double> in
            let x = Double(i) * 0.1
            let y = Double(i % 3) - 0.5
            return SIMD3(x, y, 2 + Double(i) / 7)
        }
        let pose = RigidTransform(rotation: [0, -1, 0, 1, 0, 0, 0, 0, 1], translation: [0.5, 1.25, -3])
        let keyframe = Keyframe(id: 4, timestamp: 12.5, cameraToWorld: pose,
                                intrinsics: Intrinsics(fx: 525, fy: 526, cx: 320, cy: 240), width: 640, height: 480,
                                features: FeatureSet(keypoints: keypoints, descriptors: descriptors), points: points,
                                depths: points.indices.map { $0 % 3 == 0 ? 0 : 1.5 + Float($0) / 64 })
        let anchors = [
            WorldAnchor(id: 1, kind: .plane, name: "floor", transform: pose, extent: SIMD2(2.5, 1.75)),
            WorldAnchor(id: 9, kind: .named, name: "lamp ✦", transform: pose.inverse),
        ]
        return WorldMap(keyframes: [keyframe], anchors: anchors)
    }

    @Test func roundTripKeepsEveryKeyframeAndAnchorExactly() throws {
        let scratch = try Scratch()
        let map = Self.smallMap()
        try map.write(to: scratch.path("m.waymap"))
        let loaded = try WorldMap(contentsOf: scratch.path("m.waymap"))
        #expect(loaded.anchors == map.anchors)
        let (a, b) = (map.keyframes[0], try #require(loaded.keyframes.first))
        #expect(loaded.keyframes.count == 1)
        #expect(b.id == a.id && b.timestamp == a.timestamp && b.cameraToWorld == a.cameraToWorld)
        #expect(b.intrinsics == a.intrinsics && b.width == a.width && b.height == a.height)
        #expect(b.points == a.points)
        #expect(b.depths == a.depths)
        #expect(b.features.descriptors == a.features.descriptors)
        // Keypoints are stored as 32-bit floats: exact for these values.
        #expect(b.features.keypoints == a.features.keypoints)
    }

    /// The map's unit travels with it: a monocular map whose scale nothing fixed loads as such,
    /// a metric one as metric; a file from before monocular maps (no unit section) is metric;
    /// a unit that is neither is refused.
    @Test func theUnitRoundTripsAndOlderFilesAreMetric() throws {
        let scratch = try Scratch()
        var own = Self.smallMap()
        own.isMetric = false
        try own.write(to: scratch.path("own.waymap"))
        #expect(try !WorldMap(contentsOf: scratch.path("own.waymap")).isMetric)
        try Self.smallMap().write(to: scratch.path("metric.waymap"))
        #expect(try WorldMap(contentsOf: scratch.path("metric.waymap")).isMetric)
        let file = try SectionedFile(contentsOf: scratch.path("own.waymap"), kind: WorldMap.fileKind, version: WorldMap.fileVersion)
        let older = file.sections.filter { $0.tag != "UNIT" }
        #expect(older.count == file.sections.count - 1)
        try SectionedFile(kind: WorldMap.fileKind, version: WorldMap.fileVersion, sections: older).write(to: scratch.path("old.waymap"))
        #expect(try WorldMap(contentsOf: scratch.path("old.waymap")).isMetric)
        try SectionedFile(kind: WorldMap.fileKind, version: WorldMap.fileVersion, sections: older + [(tag: "UNIT", bytes: [2])])
            .write(to: scratch.path("bad.waymap"))
        #expect { try WorldMap(contentsOf: scratch.path("bad.waymap")) } throws: { error in
            (error as? WaymarkError).map { $0.kind == .badData && $0.message.contains("unit") } ?? false
        }
    }

    /// A checksum-valid file can still hold what no session saves: it is refused on loading,
    /// so nothing is ever placed with it.
    @Test func anchorsNoSessionCouldSaveAreRefused() throws {
        let scratch = try Scratch()
        let map = Self.smallMap()
        let nan = RigidTransform(rotation: [.nan, 0, 0, 0, 1, 0, 0, 0, 1], translation: [0, 0, 0])
        let scaled = RigidTransform(rotation: [2, 0, 0, 0, 2, 0, 0, 0, 2], translation: [0, 0, 0])
        let cases: [([WorldAnchor], String)] = [
            ([WorldAnchor(id: 3, kind: .named, name: "a", transform: nan)], "anchor 3 has a transform that is not a rotation"),
            ([WorldAnchor(id: 3, kind: .named, name: "a", transform: scaled)], "anchor 3 has a transform that is not a rotation"),
            (map.anchors + [WorldAnchor(id: 9, kind: .image, name: "b", transform: .identity)], "anchor 9 appears twice"),
            ([WorldAnchor(id: 3, kind: .plane, name: "a", transform: .identity, extent: SIMD2(.infinity, 1))], "anchor 3 has extent"),
        ]
        for (k, (anchors, message)) in cases.enumerated() {
            let path = scratch.path("m\(k).waymap")
            try WorldMap(keyframes: map.keyframes, anchors: anchors).write(to: path)
            #expect { try WorldMap(contentsOf: path) } throws: {
                ($0 as? WaymarkError)?.kind == .badData && "\($0)".contains(message)
            }
        }
    }

    /// Files saved before the depth section existed load, with no depths; a depth section that
    /// does not fit its keyframes is refused.
    @Test func theDepthSectionIsOptionalButMustFit() throws {
        let scratch = try Scratch()
        let path = scratch.path("m.waymap")
        try Self.smallMap().write(to: path)
        let file = try SectionedFile(contentsOf: path, kind: WorldMap.fileKind, version: WorldMap.fileVersion)
        let older = SectionedFile(kind: file.kind, version: file.version, sections: file.sections.filter { $0.tag != "KDEP" })
        try older.write(to: scratch.path("older.waymap"))
        let loaded = try WorldMap(contentsOf: scratch.path("older.waymap"))
        #expect(loaded.keyframes[0].points == Self.smallMap().keyframes[0].points)
        #expect(loaded.keyframes[0].depths.allSatisfy { $0 == 0 })
        var short = ByteWriter()
        short.append(UInt32(39))
        for _ in 0..<39 { short.append(Float(1)) }
        let misfit = SectionedFile(kind: file.kind, version: file.version,
                                   sections: file.sections.filter { $0.tag != "KDEP" } + [("KDEP", short.bytes)])
        try misfit.write(to: scratch.path("misfit.waymap"))
        #expect { try WorldMap(contentsOf: scratch.path("misfit.waymap")) } throws: {
            ($0 as? WaymarkError)?.kind == .badData && "\($0)".contains("keyframe 4 has 40 points but 39 depths")
        }
    }

    @Test func brokenFilesAreErrorsThatSayWhatIsWrong() throws {
        let scratch = try Scratch()
        let path = scratch.path("m.waymap")
        try Self.smallMap().write(to: path)
        let good = try readFileBytes(path)
        func message(_ bytes: [UInt8]) -> String {
            _ = FileManager.default.createFile(atPath: scratch.path("bad.waymap"), contents: Data(bytes))
            do throws(WaymarkError) {
                _ = try WorldMap(contentsOf: scratch.path("bad.waymap"))
                return "loaded"
            } catch { return error.message }
        }
        #expect(message(Array(good.prefix(good.count / 2))).contains("truncated"))
        var flipped = good
        flipped[good.count / 2] ^= 0x40
        #expect(message(flipped).contains("corrupt"))
        var newer = good
        newer[12] = 2
        #expect(message(newer).contains("version 2"))
        #expect(message(Array("{\"images\": []}".utf8)).contains("not a Waymark WMAP file"))
        let other = SectionedFile(kind: "WMAP", version: WorldMap.fileVersion, sections: [("KEYF", [5, 0, 0, 0])])
        #expect(message(other.encoded()).contains("lacks"))
        let lying = SectionedFile(kind: "WMAP", version: WorldMap.fileVersion, sections: [("KEYF", [5, 0, 0, 0]), ("ANCH", [0, 0, 0, 0])])
        #expect(message(lying.encoded()).contains("malformed"))
    }
}
