import Foundation
import Waymark

/// Renders reference images into a background along a scripted, deterministic camera path,
/// so every frame's true homography is known exactly.
public struct SyntheticVideo {
    public struct Placement {
        public var name: String
        public var image: Image
        /// Reference pixels → background pixels.
        public var homography: Homography
    }

    /// Larger than the frame, so that the swaying camera never sees past its edge.
    public var background: Image
    public var placements: [Placement]
    public var frameWidth = 640
    public var frameHeight = 480
    public var frameCount: Int
    public var framesPerSecond = 30.0
    /// Frames in which the camera holds still (for jitter checks).
    public var stillFrames: Range<Int>

    public init(background: Image, placements: [Placement], frameCount: Int, stillFrames: Range<Int>) {
        self.background = background
        self.placements = placements
        self.frameCount = frameCount
        self.stillFrames = stillFrames
    }

    /// The camera's motion at frame `index`: background pixels → frame pixels. It looks at
    /// the background's centre and sways in rotation, scale, translation and perspective,
    /// and holds still in `stillFrames`.
    public func cameraMotion(at index: Int) -> Homography {
        let t = Double(pathTime(at: index))
        let angle = 0.12 * sin(t / 17)
        let scale = 1 + 0.12 * sin(t / 23)
        let cx = Double(frameWidth) / 2
        let cy = Double(frameHeight) / 2
        let centring = Homography.translation(
            -Double(background.width - frameWidth) / 2, -Double(background.height - frameHeight) / 2)
        let rotation = Homography([
            scale * cos(angle), -scale * sin(angle), 0, scale * sin(angle), scale * cos(angle), 0, 0, 0, 1,
        ])
        let perspective = Homography([1, 0, 0, 0, 1, 0, 0.00012 * sin(t / 29), 0.0001 * cos(t / 31), 1])
        let shift = Homography.translation(25 * sin(t / 13), 15 * cos(t / 19))
        return shift * Homography.translation(cx, cy) * perspective * rotation * Homography.translation(-cx, -cy) * centring
    }

    /// Reference pixels → frame pixels for every placement at frame `index`.
    public func truth(at index: Int) -> [String: Homography] {
        let motion = cameraMotion(at: index)
        return Dictionary(uniqueKeysWithValues: placements.map { ($0.name, (motion * $0.homography).normalized) })
    }

    /// Time along the path: it stops advancing during `stillFrames`.
    private func pathTime(at index: Int) -> Int {
        if index < stillFrames.lowerBound { return index }
        if index < stillFrames.upperBound { return stillFrames.lowerBound }
        return index - stillFrames.count
    }

    public func render(_ index: Int) -> Image {
        let motion = cameraMotion(at: index)
        let frame = background.warped(by: motion, width: frameWidth, height: frameHeight)
        for placement in placements {
            frame.composite(placement.image, by: motion * placement.homography)
        }
        return frame
    }

    /// The standard sample: OpenCV's box and graffiti images on a textured wall, 640×480.
    public static func sample(box: String, graffiti: String, wall: String, frameCount: Int = 150) throws(WaymarkError)
        -> SyntheticVideo
    {
        let boxImage = try Image(contentsOf: box, gray: false)
        let grafImage = try Image(contentsOf: graffiti, gray: false)
        // 640×480 frames cut from an 800×600 wall: 80 and 60 pixels of margin on each side.
        let background = try Image(contentsOf: wall, gray: false).resized(width: 800, height: 600)
        let boxPlacement = Homography.translation(140, 210) * Homography.scaling(0.7, 0.7)
        let grafPlacement = Homography([0.3, 0.02, 440, -0.03, 0.3, 180, 0.00004, 0, 1])
        return SyntheticVideo(
            background: background,
            placements: [
                Placement(name: "box", image: boxImage, homography: boxPlacement),
                Placement(name: "graf1", image: grafImage, homography: grafPlacement),
            ], frameCount: frameCount, stillFrames: 60..<90)
    }
}
