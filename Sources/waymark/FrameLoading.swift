import Waymark

/// A frame's images: gray (blank when the sequence has no colour), colour when `keepingColor`
/// asks for it (decoded once, the gray derived from it), and depth, checked to be one size.
func loadFrame(_ frame: RGBDSequence.Frame, scale: Double, keepingColor: Bool = false) throws(WaymarkError)
    -> (gray: Image, color: Image?, depth: DepthImage)
{
    let depth = try DepthImage(contentsOf: frame.depthPath, scale: scale)
    let color: Image?
    let gray: Image
    if let path = frame.colorPath, keepingColor {
        let decoded = try Image(contentsOf: path, gray: false)
        (color, gray) = (decoded, decoded.gray())
    } else if let path = frame.colorPath {
        (color, gray) = (nil, try Image(contentsOf: path, gray: true))
    } else {
        (color, gray) = (nil, Image(width: depth.width, height: depth.height, channels: 1))
    }
    guard gray.width == depth.width, gray.height == depth.height else {
        throw WaymarkError(.badData, "\(frame.colorPath ?? "") is \(gray.width)×\(gray.height) but its depth is \(depth.width)×\(depth.height)")
    }
    return (gray, color, depth)
}
