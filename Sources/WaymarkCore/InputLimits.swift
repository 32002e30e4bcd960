/// Bounds on what one input may make the engine allocate, checked before anything is decoded:
/// a file's header can declare sizes (an image of 60000² pixels, a cloud of four billion
/// points) that its few bytes on disk do not hint at.
public struct InputLimits: Sendable, Equatable {
    /// Pixels in one image, depth map or video frame. The default, 100 megapixels, is twice a
    /// 48-megapixel phone photograph; decoded in colour that is 300 MB.
    public var maxPixels: Int
    /// Points in one point cloud. The default, 50 million, is 600 MB of coordinates.
    public var maxPoints: Int

    public init(maxPixels: Int = 100_000_000, maxPoints: Int = 50_000_000) {
        self.maxPixels = maxPixels
        self.maxPoints = maxPoints
    }

    public static let standard = InputLimits()

    /// Refuses a picture of `width`×`height` (from its header) that is empty or over `maxPixels`.
    public func checkPixels(width: Int, height: Int, of name: String) throws(WaymarkError) {
        guard width > 0, height > 0 else {
            throw WaymarkError(.badData, "\(name) declares a size of \(width)×\(height) pixels")
        }
        let (pixels, overflow) = width.multipliedReportingOverflow(by: height)
        guard !overflow, pixels <= maxPixels else {
            throw WaymarkError(.badData, "\(name) is \(width)×\(height) pixels, over the limit of "
                               + "\(Self.megapixels(maxPixels)) megapixels for one image")
        }
    }

    /// Refuses a point cloud whose header declares more than `maxPoints` points.
    public func checkPoints(_ count: Int, of name: String) throws(WaymarkError) {
        guard count <= maxPoints else {
            throw WaymarkError(.badData, "\(name) declares \(count) points, over the limit of \(maxPoints) for one cloud")
        }
    }

    private static func megapixels(_ pixels: Int) -> String {
        pixels % 1_000_000 == 0 ? "\(pixels / 1_000_000)" : "\(Double(pixels) / 1e6)"
    }
}
