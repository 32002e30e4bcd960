import Foundation
import TestData
import Testing
import WaymarkBags
import WaymarkCore
import WaymarkInput
import WaymarkVision

/// The bag source's frames against the TUM folder's they were written from, in the encodings
/// the fixture's process-level test does not use (bgr8, mono8, 32FC1), and lens distortion.
@Suite(.enabled(if: BagFixtures.available)) struct ROSBagSourceTests {
    static func frames(_ source: any FrameSource) throws -> [InputFrame] {
        var frames: [InputFrame] = []
        while let frame = try source.next() { frames.append(frame) }
        return frames
    }

    static func folder() throws -> RGBDRecordingSource {
        var options = FrameSourceOptions()
        options.intrinsics = try Intrinsics(parsing: BagFixtures.intrinsics)
        return try RGBDRecordingSource(path: SharedDatasets.path(BagFixtures.tum)!, options: options)
    }

    /// bgr8 colour and 32FC1 depth (TUM's units over 5000, in float): the folder's pixels, its
    /// depth within float rounding, its times, poses and gravity.
    @Test func bgrColourAndFloatDepthGiveTheFoldersFrames() throws {
        let scratch = try Scratch()
        let bag = scratch.path("bag")
        try BagFixtures.write(bag, ["--color-encoding", "bgr8", "--depth-encoding", "32FC1"])
        var options = FrameSourceOptions()
        options.bagTopics = BagTopicChoice(color: "/camera/color/image_raw")
        let source = try ROSBagSource(path: bag, options: options)
        let intrinsics = try Intrinsics(parsing: BagFixtures.intrinsics)
        #expect(source.info.depthScale == 1 && source.info.intrinsics == intrinsics)
        let folder = try Self.folder()
        #expect(source.info.notes == folder.info.notes && source.info.imagesLeftOut == folder.info.imagesLeftOut)
        let fromBag = try Self.frames(source), fromFolder = try Self.frames(folder)
        #expect(fromBag.count == 32 && fromFolder.count == 32)
        for (a, b) in zip(fromBag, fromFolder) {
            #expect(a.timestamp == b.timestamp && a.gravity == b.gravity)
            #expect(a.recordedPose?.rotation == b.recordedPose?.rotation && a.recordedPose?.translation == b.recordedPose?.translation)
            #expect(a.color?.pixels == b.color?.pixels)
            let depthA = try #require(a.depth).metres, depthB = try #require(b.depth).metres
            let worst = zip(depthA, depthB).map { abs($0 - $1) }.max() ?? .infinity
            #expect(worst < 1e-6, "depth differs by \(worst) m at \(a.timestamp)")
        }
    }

    /// The frames of the excerpt written as a bag with the generator's `options`, colour from `topic`.
    static func bagFrames(_ options: [String], colour topic: String) throws -> [InputFrame] {
        let scratch = try Scratch()
        let bag = scratch.path("bag")
        try BagFixtures.write(bag, options)
        var sourceOptions = FrameSourceOptions()
        sourceOptions.bagTopics = BagTopicChoice(color: topic)
        sourceOptions.depthScale = 0.0002
        return try frames(ROSBagSource(path: bag, options: sourceOptions))
    }

    /// mono8: gray frames, as OpenCV makes the folder's colour gray.
    @Test func monoColourGivesTheFoldersGray() throws {
        let fromBag = try Self.bagFrames(["--color-encoding", "mono8"], colour: "/camera/color/image_raw")
        let fromFolder = try Self.frames(Self.folder())
        #expect(fromBag.count == fromFolder.count)
        #expect(zip(fromBag, fromFolder).allSatisfy { $0.color == nil && $0.gray?.pixels == $1.color?.gray().pixels })
    }

    /// CompressedImage frames in JPEG (quality 95): the folder's pictures, but for JPEG's loss
    /// (OpenCV's own round trip of the first frame differs by 3.18 levels on average).
    @Test func jpegFramesDecodeToTheFoldersPictures() throws {
        let fromBag = try Self.bagFrames(["--compressed-format", "jpeg"], colour: "/camera/color/image_raw/compressed")
        let fromFolder = try Self.frames(Self.folder())
        #expect(fromBag.count == fromFolder.count)
        for (a, b) in zip(fromBag, fromFolder) {
            let bagPixels = try #require(a.color).pixels, folderPixels = try #require(b.color).pixels
            let meanDifference = Double(zip(bagPixels, folderPixels).reduce(0) { $0 + abs(Int($1.0) - Int($1.1)) }) / Double(bagPixels.count)
            #expect(bagPixels.count == folderPixels.count && meanDifference < 4, "mean difference \(meanDifference) at \(a.timestamp)")
        }
    }

    /// A colour-only bag whose camera_info has plumb_bob distortion: its frames come without it,
    /// as Undistorter makes the same images; with depth, the distortion is left and noted.
    @Test func lensDistortionIsRemovedFromColourOnlyBagsAndNotedWithDepth() throws {
        let scratch = try Scratch()
        let distortion = [0.2624, -0.9531, -0.0054, 0.0026, 1.1633]  // TUM fr1's published coefficients
        let colourOnly = scratch.path("colour"), withDepth = scratch.path("depth")
        let coefficients = distortion.map { "\($0)" }.joined(separator: ",")
        try BagFixtures.write(colourOnly, ["--distortion", coefficients, "--depth-encoding", "none"])
        try BagFixtures.write(withDepth, ["--distortion", coefficients])
        var options = FrameSourceOptions()
        options.bagTopics = BagTopicChoice(color: "/camera/color/image_raw")
        let source = try ROSBagSource(path: colourOnly, options: options)
        #expect(!source.info.hasDepth && source.info.notes.isEmpty, "\(source.info.notes)")
        let calibration = CameraCalibration(intrinsics: try Intrinsics(parsing: BagFixtures.intrinsics), distortion: distortion,
                                            width: 640, height: 480)
        let undistorter = Undistorter(calibration)
        let first = try #require(try source.next())
        let name = String(format: "%.6f", first.timestamp)
        let png = try Image(contentsOf: SharedDatasets.path("\(BagFixtures.tum)/rgb/\(name).png")!, gray: false)
        let straightened = undistorter.undistort(png)
        #expect(first.color?.pixels == straightened.pixels && first.color?.pixels != png.pixels)
        options.depthScale = 0.0002
        let depthSource = try ROSBagSource(path: withDepth, options: options)
        #expect(depthSource.info.notes.contains { $0.contains("lens distortion") && $0.contains("not removed") }, "\(depthSource.info.notes)")
    }

    @Test func aTopicOfAnotherKindIsNamedWithWhatItHolds() throws {
        let bag = try #require(BagFixtures.bags["mcap"])
        var options = FrameSourceOptions()
        options.bagTopics = BagTopicChoice(color: "/camera/depth/image_raw")
        let error = #expect(throws: WaymarkError.self) { try ROSBagSource(path: bag, options: options) }
        #expect(error?.kind == .usage && error?.message.contains("holds sensor_msgs/msg/Image in 16UC1") == true, "\(String(describing: error))")
    }
}
