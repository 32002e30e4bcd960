import Foundation
import TestData
import Testing
import WaymarkBags
import WaymarkCore

/// The messages of the TUM excerpt's bag, decoded from CDR, against the TUM files they were
/// written from: every number as written (the generator and Swift both read the decimal text
/// to the nearest double), every image's size and layout.
@Suite(.enabled(if: BagFixtures.available)) struct ROSMessagesTests {
    static func rows(_ list: String) throws -> [[Double]] {
        let text = try String(contentsOfFile: SharedDatasets.path("\(BagFixtures.tum)/\(list)")!, encoding: .utf8)
        return text.split(separator: "\n").filter { !$0.hasPrefix("#") && !$0.isEmpty }.map { line in
            line.split(separator: " ").dropFirst().map { Double($0)! }
        }
    }

    @Test(arguments: ["mcap", "sqlite3"])
    func decodedMessagesHoldWhatWasWritten(kind: String) throws {
        let bag = try ROSBag(path: try #require(BagFixtures.bags[kind]))
        var images = 0, depths = 0, compressed = 0, infos = 0, imus: [SIMD3<Double>] = [], poses: [[Double]] = []
        var transforms: [[Double]] = [], stamps: Set<Int64> = []
        while let message = try bag.next() {
            switch message.topic {
            case "/camera/color/image_raw":
                let image = try ROSImage(message)
                #expect(image.width == 640 && image.height == 480 && image.encoding == "rgb8" && image.step == 1920)
                #expect(image.data.count == 640 * 480 * 3 && !image.isBigEndian && image.stamp == message.logTime)
                stamps.insert(image.stamp)
                images += 1
            case "/camera/depth/image_raw":
                let depth = try ROSImage(message)
                #expect(depth.encoding == "16UC1" && depth.step == 1280 && depth.data.count == 640 * 480 * 2)
                depths += 1
            case "/camera/color/image_raw/compressed":
                let image = try ROSCompressedImage(message)
                #expect(image.format == "png" && image.data.starts(with: [0x89, 0x50, 0x4E, 0x47]) && image.frame == "camera")
                compressed += 1
            case "/camera/color/camera_info":
                let info = try ROSCameraInfo(message)
                #expect(info.k == [517.3, 0, 318.6, 0, 516.5, 255.3, 0, 0, 1] && info.width == 640 && info.height == 480)
                #expect(info.distortionModel == "plumb_bob" && info.distortion == [0, 0, 0, 0, 0])
                infos += 1
            case "/imu":
                imus.append(try ROSImu(message).linearAcceleration)
            case "/camera/pose":
                let pose = try ROSTransform(poseStamped: message)
                #expect(pose.parent == "world" && pose.stamp == message.logTime)
                poses.append([pose.translation.x, pose.translation.y, pose.translation.z,
                              pose.rotation.x, pose.rotation.y, pose.rotation.z, pose.rotation.w])
            case "/tf":
                let all = try ROSTransform.transforms(in: message)
                #expect(all.count == 1 && all[0].parent == "world" && all[0].child == "camera")
                transforms += all.map { [$0.translation.x, $0.translation.y, $0.translation.z,
                                         $0.rotation.x, $0.rotation.y, $0.rotation.z, $0.rotation.w] }
            case "/tf_static":
                let half = try ROSTransform.transforms(in: message)
                #expect(half.count == 1 && half[0].parent == "camera" && half[0].child == "imu" && half[0].rotation == SIMD4(0, 0, 1, 0))
            default:
                Issue.record("unexpected topic \(message.topic)")
            }
        }
        #expect(images == 37 && depths == 37 && compressed == 37 && infos == 37 && stamps.count == 37)
        let accelerometer = try Self.rows("accelerometer.txt")
        #expect(imus.count == accelerometer.count)
        #expect(Set(imus.map { [$0.x, $0.y, $0.z] }) == Set(accelerometer))
        let groundTruth = try Self.rows("groundtruth.txt")
        #expect(poses == groundTruth && transforms == groundTruth)
    }

    @Test func aMessageShorterThanItsFieldsIsBadData() throws {
        let bag = try ROSBag(path: try #require(BagFixtures.bags["mcap"]))
        var message = try #require(try { () throws -> BagMessage? in
            while let m = try bag.next() { if m.topic == "/camera/color/camera_info" { return m } }
            return nil
        }())
        message.data.removeLast(message.data.count - 80)  // cut inside D, before K
        let error = #expect(throws: WaymarkError.self) { try ROSCameraInfo(message) }
        #expect(error?.kind == .badData && error?.message.contains("shorter than its fields") == true)
        message.data[1] = 7
        #expect(throws: WaymarkError.self) { try ROSCameraInfo(message) }
    }
}
