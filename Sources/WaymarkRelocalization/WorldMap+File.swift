import WaymarkCore
import WaymarkVision

/// `.waymap` files: a SectionedFile of kind "WMAP" with a keyframe section ("KEYF"), an anchor
/// section ("ANCH"), the points' measured depths ("KDEP", per keyframe in order: a count
/// and Float32 metres; a file without it has none) and the unit ("UNIT": one byte, 1 for
/// metres, 0 for a monocular map's own unit; a file without it, written before monocular
/// maps, is metric). The place-recognition index is not stored: it is rebuilt from the
/// keyframes, so it always matches them.
extension WorldMap {
    public static let fileKind = "WMAP"
    public static let fileVersion: UInt32 = 1

    /// Saves atomically: a crash mid-save leaves the previous file, never a broken one.
    public func write(to path: String) throws(WaymarkError) {
        try SectionedFile(kind: Self.fileKind, version: Self.fileVersion,
                          sections: [("KEYF", encodedKeyframes()), ("ANCH", encodedAnchors()), ("KDEP", encodedDepths()),
                                     ("UNIT", [isMetric ? 1 : 0])])
            .write(to: path)
    }

    /// Foreign, other-version, truncated, corrupt and malformed files are errors that say which.
    public init(contentsOf path: String) throws(WaymarkError) {
        let file = try SectionedFile(contentsOf: path, kind: Self.fileKind, version: Self.fileVersion)
        guard let keyframes = file.section("KEYF"), let anchors = file.section("ANCH") else {
            throw WaymarkError(.badData, "\(path) is malformed: it lacks its keyframe or anchor section")
        }
        let depths = try file.section("KDEP").map { bytes throws(WaymarkError) in try Self.decodeDepths(bytes, name: path) }
        let unit = file.section("UNIT") ?? [1]
        guard unit == [1] || unit == [0] else {
            throw WaymarkError(.badData, "\(path) is malformed: its unit section is neither metres nor the map's own")
        }
        self.init(keyframes: try Self.decodeKeyframes(keyframes, depths: depths, name: path),
                  anchors: try Self.decodeAnchors(anchors, name: path), isMetric: unit == [1])
    }

    private func encodedDepths() -> [UInt8] {
        var out = ByteWriter()
        for keyframe in keyframes {
            out.append(UInt32(keyframe.depths.count))
            for depth in keyframe.depths { out.append(depth) }
        }
        return out.bytes
    }

    /// Each keyframe's depths, in file order; `decodeKeyframes` checks they fit.
    private static func decodeDepths(_ bytes: [UInt8], name: String) throws(WaymarkError) -> [[Float]] {
        var reader = ByteReader(bytes, name: name)
        var all: [[Float]] = []
        while !reader.isAtEnd {
            let count = try reader.readCount(bytesEach: 4)
            var depths: [Float] = []
            depths.reserveCapacity(count)
            for _ in 0..<count { depths.append(try reader.read(Float.self)) }
            guard depths.allSatisfy({ $0.isFinite && $0 >= 0 }) else {
                throw WaymarkError(.badData, "\(name) is malformed: keyframe \(all.count + 1) has a negative or non-finite depth")
            }
            all.append(depths)
        }
        return all
    }

    private static let bytesPerFeature = 5 * 4 + 4 + FeatureSet.descriptorBytes + 3 * 8

    private func encodedKeyframes() -> [UInt8] {
        var out = ByteWriter()
        out.append(UInt32(keyframes.count))
        for keyframe in keyframes {
            out.append(Int64(keyframe.id))
            out.append(keyframe.timestamp)
            Self.append(keyframe.cameraToWorld, to: &out)
            let k = keyframe.intrinsics
            for value in [k.fx, k.fy, k.cx, k.cy] { out.append(value) }
            out.append(UInt32(keyframe.width))
            out.append(UInt32(keyframe.height))
            let keypoints = keyframe.features.keypoints
            let descriptors = keyframe.features.descriptors
            out.append(UInt32(keypoints.count))
            for (i, keypoint) in keypoints.enumerated() {
                for value in [keypoint.location.x, keypoint.location.y, keypoint.size, keypoint.angle, keypoint.response] {
                    out.append(Float(value))
                }
                out.append(Int32(keypoint.octave))
                out.append(Array(descriptors[(i * FeatureSet.descriptorBytes)..<((i + 1) * FeatureSet.descriptorBytes)]))
                let p = keyframe.points[i]
                for value in [p.x, p.y, p.z] { out.append(value) }
            }
        }
        return out.bytes
    }

    /// `depths`: the depth section's, one array per keyframe, or nil without one.
    private static func decodeKeyframes(_ bytes: [UInt8], depths: [[Float]]?, name: String) throws(WaymarkError)
        -> [Keyframe]
    {
        var reader = ByteReader(bytes, name: name)
        let count = try reader.readCount(bytesEach: 8 + 8 + 12 * 8 + 4 * 8 + 12)
        if let depths, depths.count != count {
            throw WaymarkError(.badData, "\(name) is malformed: it has \(count) keyframes but depths for \(depths.count)")
        }
        var keyframes: [Keyframe] = []
        var ids = Set<Int>()
        for _ in 0..<count {
            let id = Int(try reader.read(Int64.self))
            guard ids.insert(id).inserted else { throw WaymarkError(.badData, "\(name) is malformed: keyframe \(id) appears twice") }
            let timestamp = try reader.read(Double.self)
            let pose = try readTransform(&reader, of: "keyframe \(id)", in: name)
            let intrinsics = Intrinsics(fx: try reader.read(Double.self), fy: try reader.read(Double.self),
                                        cx: try reader.read(Double.self), cy: try reader.read(Double.self))
            let width = Int(try reader.read(UInt32.self))
            let height = Int(try reader.read(UInt32.self))
            let n = try reader.readCount(bytesEach: bytesPerFeature)
            var keypoints: [Keypoint] = []
            var descriptors: [UInt8] = []
            var points: [SIMD3<Double>] = []
            keypoints.reserveCapacity(n)
            for _ in 0..<n {
                let x = Double(try reader.read(Float.self))
                let y = Double(try reader.read(Float.self))
                keypoints.append(Keypoint(
                    location: Point2(x, y), size: Double(try reader.read(Float.self)),
                    angle: Double(try reader.read(Float.self)), response: Double(try reader.read(Float.self)),
                    octave: Int(try reader.read(Int32.self))))
                descriptors += try reader.read(bytes: FeatureSet.descriptorBytes)
                points.append(SIMD3(try reader.read(Double.self), try reader.read(Double.self), try reader.read(Double.self)))
            }
            guard points.allSatisfy({ $0.x.isFinite && $0.y.isFinite && $0.z.isFinite }), intrinsics.fx > 0, intrinsics.fy > 0
            else { throw WaymarkError(.badData, "\(name) is malformed: keyframe \(id) has non-finite points or intrinsics") }
            let measured = depths?[keyframes.count]
            if let measured, measured.count != n {
                throw WaymarkError(.badData, "\(name) is malformed: keyframe \(id) has \(n) points but \(measured.count) depths")
            }
            keyframes.append(Keyframe(
                id: id, timestamp: timestamp, cameraToWorld: pose, intrinsics: intrinsics, width: width, height: height,
                features: FeatureSet(keypoints: keypoints, descriptors: descriptors), points: points, depths: measured))
        }
        guard reader.isAtEnd else { throw WaymarkError(.badData, "\(name) is malformed: its keyframe section has trailing bytes") }
        return keyframes
    }

    private func encodedAnchors() -> [UInt8] {
        var out = ByteWriter()
        out.append(UInt32(anchors.count))
        for anchor in anchors {
            out.append(Int64(anchor.id))
            out.append(anchor.kind.rawValue)
            out.append(anchor.name)
            Self.append(anchor.transform, to: &out)
            out.append(anchor.extent.x)
            out.append(anchor.extent.y)
        }
        return out.bytes
    }

    private static func decodeAnchors(_ bytes: [UInt8], name: String) throws(WaymarkError) -> [WorldAnchor] {
        var reader = ByteReader(bytes, name: name)
        let count = try reader.readCount(bytesEach: 8 + 4 + 4 + 14 * 8)
        var anchors: [WorldAnchor] = []
        var ids = Set<Int>()
        for _ in 0..<count {
            let id = Int(try reader.read(Int64.self))
            let kindName = try reader.read(String.self)
            guard let kind = WorldAnchor.Kind(rawValue: kindName) else {
                throw WaymarkError(.badData, "\(name) is malformed: anchor \(id) is of unknown kind '\(kindName)'")
            }
            let anchorName = try reader.read(String.self)
            let transform = try readTransform(&reader, of: "anchor \(id)", in: name)
            let extent = SIMD2(try reader.read(Double.self), try reader.read(Double.self))
            guard extent.x.isFinite, extent.y.isFinite, extent.x >= 0, extent.y >= 0 else {
                throw WaymarkError(.badData, "\(name) is malformed: anchor \(id) has extent \(extent.x)×\(extent.y)")
            }
            guard ids.insert(id).inserted else { throw WaymarkError(.badData, "\(name) is malformed: anchor \(id) appears twice") }
            anchors.append(WorldAnchor(id: id, kind: kind, name: anchorName, transform: transform, extent: extent))
        }
        guard reader.isAtEnd else { throw WaymarkError(.badData, "\(name) is malformed: its anchor section has trailing bytes") }
        return anchors
    }

    private static func append(_ transform: RigidTransform, to out: inout ByteWriter) {
        for value in transform.rotation + transform.translation { out.append(value) }
    }

    /// A transform that is rigid (see RigidTransform.isRigid), else the file is malformed.
    private static func readTransform(_ reader: inout ByteReader, of what: String, in name: String) throws(WaymarkError)
        -> RigidTransform
    {
        var values: [Double] = []
        for _ in 0..<12 { values.append(try reader.read(Double.self)) }
        let transform = RigidTransform(rotation: Array(values[0..<9]), translation: Array(values[9..<12]))
        guard transform.isRigid() else {
            throw WaymarkError(.badData, "\(name) is malformed: \(what) has a transform that is not a rotation and a finite translation")
        }
        return transform
    }
}
