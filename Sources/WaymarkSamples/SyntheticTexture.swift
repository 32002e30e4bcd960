import Waymark

/// A random texture of blobs, blurred and stretched to a poster's contrast: many distinct
/// details everywhere, different for every seed.
public func syntheticTexture(width: Int, height: Int, seed: UInt64) -> Image {
    var generator = SeededGenerator(seed: seed)
    let noise = (0..<(width * height)).map { _ in UInt8.random(in: 1...255, using: &generator) }
    let blurred = Image(width: width, height: height, channels: 1, pixels: noise).blurred(sigma: 2)
    let stretched = Image(width: width, height: height, channels: 1)
    blurred.matchBrightness(mean: 128, standardDeviation: 55, into: stretched)
    return stretched
}
