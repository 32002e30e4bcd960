import Foundation
import Waymark

/// Draws detected planes over the colour image that belongs to a depth image: each plane's
/// pixels tinted with its colour and its outline drawn.
struct PlaneOverlay {
    let directory: String
    let colors: [Color]

    static let palette: [Color] = [
        Color(red: 230, green: 25, blue: 75), Color(red: 60, green: 180, blue: 75), Color(red: 0, green: 130, blue: 200),
        Color(red: 245, green: 130, blue: 48), Color(red: 145, green: 30, blue: 180), Color(red: 70, green: 240, blue: 240),
        Color(red: 240, green: 50, blue: 230), Color(red: 210, green: 245, blue: 60),
    ]

    init(directory: String, colors: [Color]) {
        self.directory = directory
        self.colors = colors.isEmpty ? Self.palette : colors
    }

    func draw(_ detection: PlaneDetection, depth: DepthImage, intrinsics: Intrinsics, depthPath: String, stem: String)
        throws(WaymarkError)
    {
        var pixels = try background(for: depthPath, depth: depth)
        for (i, label) in detection.labels.enumerated() where label != 0 {
            let color = colors[(Int(label) - 1) % colors.count]
            pixels[3 * i] = UInt8((Int(pixels[3 * i]) + Int(color.blue)) / 2)
            pixels[3 * i + 1] = UInt8((Int(pixels[3 * i + 1]) + Int(color.green)) / 2)
            pixels[3 * i + 2] = UInt8((Int(pixels[3 * i + 2]) + Int(color.red)) / 2)
        }
        let image = Image(width: depth.width, height: depth.height, channels: 3, pixels: pixels)
        for (index, plane) in detection.planes.enumerated() {
            let outline = plane.boundaryPoints.filter { $0.z > 0 }.map(intrinsics.project)
            image.drawPolygon(outline, color: colors[index % colors.count])
        }
        try image.write(to: "\(directory)/\(stem).png")
    }

    /// The colour image beside the depth image, else the depth as gray (near is bright).
    private func background(for depthPath: String, depth: DepthImage) throws(WaymarkError) -> [UInt8] {
        if let colorPath = Self.colorImage(besides: depthPath) {
            let color = try Image(contentsOf: colorPath, gray: false)
            guard color.width == depth.width, color.height == depth.height else {
                throw WaymarkError(
                    .badData,
                    "\(colorPath) is \(color.width)×\(color.height) but its depth image is \(depth.width)×\(depth.height)")
            }
            return color.pixels
        }
        let far = depth.metres.max() ?? 1
        return depth.metres.flatMap { m -> [UInt8] in
            let level = m > 0 ? UInt8(55 + 200 * (1 - min(1, m / max(far, 1e-6)))) : 0
            return [level, level, level]
        }
    }

    /// `x_depth_mm.png` → `x_rgb.png` / `x_color.png`; `…/depth/t.png` → `…/rgb/t.png`; and
    /// `.jpg` for each.
    static func colorImage(besides depthPath: String) -> String? {
        let url = URL(fileURLWithPath: depthPath)
        let folder = url.deletingLastPathComponent()
        let stem = url.deletingPathExtension().lastPathComponent
        var candidates: [URL] = []
        if let range = stem.range(of: "depth", options: .backwards) {
            let prefix = String(stem[..<range.lowerBound])
            for word in ["rgb", "color", "colour"] {
                candidates.append(folder.appendingPathComponent(prefix + word))
                candidates.append(folder.appendingPathComponent(stem.replacingCharacters(in: range, with: word)))
            }
        }
        if folder.lastPathComponent == "depth" {
            for word in ["rgb", "color"] {
                candidates.append(folder.deletingLastPathComponent().appendingPathComponent(word).appendingPathComponent(stem))
            }
        }
        for candidate in candidates {
            for ext in ["png", "jpg"] {
                let path = candidate.appendingPathExtension(ext).path
                if path != url.path, FileManager.default.fileExists(atPath: path) { return path }
            }
        }
        return nil
    }
}
