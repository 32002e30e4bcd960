import Foundation
import TestData
import Testing
import TestSupport
import WaymarkCore
import WaymarkPlanes

@Suite struct PointCloudFileTests {
    static let points: [SIMD3<Float>] = [SIMD3(0.5, -1.25, 2), SIMD3(-3, 0.125, 4.75), SIMD3(1e-3, 2, -0.5)]

    static func littleEndian<T: FixedWidthInteger>(_ value: T) -> [UInt8] { withUnsafeBytes(of: value.littleEndian, Array.init) }
    static func bytes(_ value: Float, bigEndian: Bool = false) -> [UInt8] {
        let bits = bigEndian ? value.bitPattern.bigEndian : value.bitPattern.littleEndian
        return withUnsafeBytes(of: bits, Array.init)
    }

    func write(_ bytes: [UInt8], _ name: String, in scratch: Scratch) throws -> String {
        let path = scratch.path(name)
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        return path
    }

    @Test func asciiPLYWithExtraPropertiesReadsXYZ() throws {
        let scratch = try Scratch()
        let text = """
            ply
            format ascii 1.0
            comment made by a test
            element vertex 3
            property float x
            property float y
            property uchar red
            property float z
            element face 1
            property list uchar int vertex_indices
            end_header
            0.5 -1.25 200 2
            -3 0.125 10 4.75
            0.001 2 0 -0.5
            3 0 1 2

            """
        let cloud = try PointCloud(contentsOf: try write(Array(text.utf8), "a.ply", in: scratch))
        #expect(cloud.points == Self.points)
        #expect(!cloud.isOrganized)
    }

    @Test(arguments: [false, true])
    func binaryPLYAfterAFaceElementReadsXYZ(bigEndian: Bool) throws {
        let scratch = try Scratch()
        var bytes = Array("""
            ply
            format \(bigEndian ? "binary_big_endian" : "binary_little_endian") 1.0
            element face 2
            property list uchar int vertex_indices
            element vertex 3
            property float x
            property float y
            property float z
            property double quality
            end_header

            """.utf8)
        for count in [UInt8(3), 2] {
            bytes.append(count)
            for index in 0..<Int32(count) {
                bytes += withUnsafeBytes(of: bigEndian ? index.bigEndian : index.littleEndian, Array.init)
            }
        }
        for p in Self.points {
            for v in [p.x, p.y, p.z] { bytes += Self.bytes(v, bigEndian: bigEndian) }
            bytes += [UInt8](repeating: 0, count: 8)
        }
        let cloud = try PointCloud(contentsOf: try write(bytes, "b.ply", in: scratch))
        #expect(cloud.points == Self.points)
    }

    @Test func asciiAndBinaryPCDReadXYZAndKeepTheGrid() throws {
        let scratch = try Scratch()
        let header = { (data: String) in
            """
            # .PCD v0.7
            VERSION 0.7
            FIELDS rgb x y z
            SIZE 4 4 4 4
            TYPE U F F F
            COUNT 1 1 1 1
            WIDTH 3
            HEIGHT 1
            VIEWPOINT 0 0 0 1 0 0 0
            POINTS 3
            DATA \(data)

            """
        }
        let ascii = header("ascii") + Self.points.map { "7 \($0.x) \($0.y) \($0.z)\n" }.joined()
        #expect(try PointCloud(contentsOf: try write(Array(ascii.utf8), "a.pcd", in: scratch)).points == Self.points)
        var binary = Array(header("binary").utf8)
        for p in Self.points { binary += Self.littleEndian(UInt32(7)) + Self.bytes(p.x) + Self.bytes(p.y) + Self.bytes(p.z) }
        #expect(try PointCloud(contentsOf: try write(binary, "b.pcd", in: scratch)).points == Self.points)
    }

    @Test func nanPointsAreKeptInTheGridAndDroppedFromValidPoints() throws {
        let scratch = try Scratch()
        let text = "VERSION 0.7\nFIELDS x y z\nSIZE 4 4 4\nTYPE F F F\nWIDTH 2\nHEIGHT 2\nPOINTS 4\nDATA ascii\n"
            + "1 2 3\nnan nan nan\n4 5 6\n7 8 9\n"
        let cloud = try PointCloud(contentsOf: try write(Array(text.utf8), "g.pcd", in: scratch))
        #expect(cloud.isOrganized && cloud.width == 2 && cloud.height == 2)
        #expect(cloud.validPoints.count == 3)
        #expect(cloud.organizedPoints?.validCount == 3)
    }

    @Test func truncatedAndMalformedFilesAreBadDataWithAReason() throws {
        let scratch = try Scratch()
        var binary = Array("ply\nformat binary_little_endian 1.0\nelement vertex 3\nproperty float x\nproperty float y\nproperty float z\nend_header\n".utf8)
        for p in Self.points.prefix(2) { binary += Self.bytes(p.x) + Self.bytes(p.y) + Self.bytes(p.z) }
        let cases: [(String, [UInt8], String)] = [
            ("short.ply", binary, "ends after 2 of 3 vertices"),
            ("nohead.ply", Array("ply\nformat ascii 1.0\nelement vertex 1\n".utf8), "no end_header"),
            ("noxyz.pcd", Array("FIELDS a b\nSIZE 4 4\nTYPE F F\nWIDTH 1\nHEIGHT 1\nPOINTS 1\nDATA ascii\n1 2\n".utf8), "no x, y and z"),
            ("short.pcd", Array("FIELDS x y z\nSIZE 4 4 4\nTYPE F F F\nWIDTH 2\nHEIGHT 1\nPOINTS 2\nDATA binary\n".utf8) + [1, 2, 3],
             "ends after 0 of 2 points"),
            ("lzf.pcd", Array("FIELDS x y z\nSIZE 4 4 4\nTYPE F F F\nWIDTH 2\nHEIGHT 1\nPOINTS 2\nDATA binary_compressed\n".utf8)
                + Self.littleEndian(UInt32(4)) + Self.littleEndian(UInt32(24)) + [0xFF, 0xFF, 0xFF, 0xFF], "corrupt"),
        ]
        for (name, bytes, reason) in cases {
            let path = try write(bytes, name, in: scratch)
            #expect {
                _ = try PointCloud(contentsOf: path)
            } throws: { error in
                guard let error = error as? WaymarkError else { return false }
                return error.kind == .badData && error.message.contains(reason)
            }
        }
        #expect(throws: WaymarkError.self) { _ = try PointCloud(contentsOf: scratch.path("absent.ply")) }
    }

    /// Headers that declare more points than the limit, or than the file can hold, are refused
    /// before anything is allocated for them; so are counts whose product overflows.
    @Test func declaredCountsAreCheckedBeforeAllocating() throws {
        let scratch = try Scratch()
        let xyz = "property float x\nproperty float y\nproperty float z\n"
        let cases: [(String, String, String)] = [
            ("huge.ply", "ply\nformat ascii 1.0\nelement vertex 4000000000\n\(xyz)end_header\n0 0 0\n1 1 1\n2 2 2\n", "over the limit"),
            ("short.ply", "ply\nformat ascii 1.0\nelement vertex 1000\n\(xyz)end_header\n0 0 0\n", "ends after 1 of 1000 vertices"),
            ("short-binary.ply", "ply\nformat binary_little_endian 1.0\nelement vertex 1000\n\(xyz)end_header\n0123456789ab", "ends after 1 of 1000 vertices"),
            ("huge.pcd", "FIELDS x y z\nSIZE 4 4 4\nTYPE F F F\nWIDTH 100000\nHEIGHT 100000\nDATA ascii\n0 0 0\n", "over the limit"),
            ("overflow.pcd", "FIELDS x y z\nSIZE 4 4 4\nTYPE F F F\nWIDTH 4000000000000\nHEIGHT 4000000000000\nDATA ascii\n", "too large"),
            ("wide-field.pcd", "FIELDS x y z\nSIZE 4 4 4\nTYPE F F F\nCOUNT 1 1 9000000000000000000\nWIDTH 1\nDATA ascii\n0 0 0\n", "COUNT"),
            ("short.pcd", "FIELDS x y z\nSIZE 4 4 4\nTYPE F F F\nWIDTH 5000\nDATA binary\n0123", "ends after 0 of 5000 points"),
        ]
        for (name, text, message) in cases {
            let path = try write(Array(text.utf8), name, in: scratch)
            #expect { try PointCloud(contentsOf: path) } throws: {
                ($0 as? WaymarkError)?.kind == .badData && "\($0)".contains(message)
            }
        }
        let small = try write(Array("ply\nformat ascii 1.0\nelement vertex 3\n\(xyz)end_header\n0 0 0\n1 1 1\n2 2 2\n".utf8), "s.ply", in: scratch)
        #expect { try PointCloud(contentsOf: small, limits: InputLimits(maxPoints: 2)) } throws: { "\($0)".contains("over the limit of 2") }
        #expect(try PointCloud(contentsOf: small, limits: InputLimits(maxPoints: 3)).points.count == 3)
    }

    /// Found by the PLY fuzzer (Tests/Fuzz/Regressions/ply): elements without properties
    /// before the vertices, declaring 10¹⁵ rows of no bytes, were counted through one by one.
    /// They hold nothing, so the vertices after them read at once.
    @Test func elementsWithoutPropertiesAreNoRows() throws {
        let scratch = try Scratch()
        var bytes = Array("""
            ply
            format binary_little_endian 1.0
            element nothing 1000000000000000
            element vertex 3
            property float x
            property float y
            property float z
            end_header

            """.utf8)
        for p in Self.points { bytes += [p.x, p.y, p.z].flatMap { Self.bytes($0) } }
        #expect(try PointCloud(contentsOf: try write(bytes, "empty-element.ply", in: scratch)).points == Self.points)
    }

    /// Found by the PLY fuzzer: a list whose length is negative (or larger than the rest of the
    /// file) moved the reading position outside the file. It is a malformed file.
    @Test(arguments: [Int32(-1_000_000), 1_000_000])
    func listLengthsThatLeaveTheFileAreBadData(length: Int32) throws {
        let scratch = try Scratch()
        var bytes = Array("""
            ply
            format binary_little_endian 1.0
            element face 1
            property list int int vertex_indices
            element vertex 3
            property float x
            property float y
            property float z
            end_header

            """.utf8)
        bytes += Self.littleEndian(length) + Self.littleEndian(Int32(0))
        for p in Self.points { bytes += [p.x, p.y, p.z].flatMap { Self.bytes($0) } }
        let path = try write(bytes, "list.ply", in: scratch)
        #expect { try PointCloud(contentsOf: path) } throws: {
            ($0 as? WaymarkError)?.kind == .badData && "\($0)".contains("a list in 'face' has a length that does not fit the file")
        }
    }

    /// A point a million kilometres out (or a coordinate stored as a huge integer) is no
    /// measurement: it is left out, and the plane of the rest is found as without it.
    @Test func farPointsAreInvalidAndDoNotDisturbThePlane() throws {
        var points = (0..<4000).map { k in SIMD3<Float>(Float(k % 64) * 0.02, Float(k / 64) * 0.02, 2) }
        points[7] = SIMD3(1e9, 0, 2)
        points[8] = SIMD3(0, 4_294_967_296, 2)
        let cloud = PointCloud(points: points)
        #expect(cloud.farPointCount == 2 && cloud.validPoints.count == 3998)
        let found = try PlaneDetector(options: PlaneDetectionOptions()).detect(in: cloud).planes
        #expect(found.count == 1)
        #expect(abs(abs(found[0].plane.normal.z) - 1) < 1e-6 && abs(abs(found[0].plane.offset) - 2) < 1e-4)
    }
}
