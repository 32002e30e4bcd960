import Foundation
import Waymark

/// --annotate: each frame as a person would see it in an app: the surfaces found (outlined),
/// the reference images (outlined and named), the surface-detection indicator at the centre
/// (a hollow square while searching, a solid one lying on the surface once found), the
/// camera's state and the coaching message, both in the chosen language.
final class SessionAnnotation {
    private let writer: VideoWriter
    private let text: TextRenderer
    private let intrinsics: Intrinsics?
    private let textHeight: Int
    private let language: CoachingLanguage

    /// Debian's Noto CJK (fonts-noto-cjk; `make setup` installs it): faces 2 and 3 are the
    /// Simplified and Traditional Chinese ones, both with Latin letters.
    static let fontPath = "/usr/share/fonts/opentype/noto/NotoSansCJK-Regular.ttc"

    init(path: String, width: Int, height: Int, framesPerSecond: Double, language: CoachingLanguage,
         intrinsics: Intrinsics?) throws(WaymarkError)
    {
        do {
            text = try TextRenderer(fontPath: Self.fontPath, face: language == .traditionalChinese ? 3 : 2)
        } catch {
            throw WaymarkError(error.kind == .missingInput ? .missingInput : error.kind,
                               "--annotate needs the Noto CJK font (Debian's fonts-noto-cjk; make setup installs it): \(error.message)")
        }
        writer = try VideoWriter(path: path, width: width, height: height, framesPerSecond: framesPerSecond)
        self.intrinsics = intrinsics
        self.language = language
        textHeight = max(14, width / 28)
    }

    func write(_ result: FrameResult, on image: Image, planes map: PlaneMap) throws(WaymarkError) {
        for (k, plane) in result.planes.enumerated() {
            let outline = plane.boundaryPoints.compactMap(project)
            image.drawPolygon(outline, color: PlaneOverlay.palette[k % PlaneOverlay.palette.count], thickness: 2)
        }
        Self.drawDetections(result.detections, on: image)
        drawIndicator(result.cameraToWorld, map: map, on: image)
        if let state = result.tracking?.state { drawStatus(state, on: image) }
        drawLight(result.light, on: image)
        if let message = result.coaching.message { drawBanner(message, on: image) }
        try writer.write(image)
    }

    func finish() throws(WaymarkError) { try writer.finish() }

    static func drawDetections(_ detections: [ImageDetection], on frame: Image) {
        for detection in detections where detection.state != .lost {
            let color = detection.state == .detected
                ? Color(red: 255, green: 200, blue: 0) : Color(red: 40, green: 220, blue: 90)
            frame.drawPolygon(detection.corners, color: color, thickness: 3)
            let top = detection.corners.min { $0.y < $1.y }!
            frame.drawText(detection.name, at: Point2(top.x, max(18, top.y - 8)), color: color)
        }
    }

    private func project(_ p: SIMD3<Double>) -> Point2? {
        guard let intrinsics, p.z > 0.05 else { return nil }
        return intrinsics.project(p)
    }

    /// Where the centre of the view meets an established surface: a 20 cm square lying on it;
    /// elsewhere a hollow square fixed at the centre, for "still looking".
    private func drawIndicator(_ pose: RigidTransform?, map: PlaneMap, on image: Image) {
        let (w, h) = (Double(image.width), Double(image.height))
        if let pose, let k = intrinsics,
            let hit = map.raycast(Ray(pixel: SIMD2(k.cx, k.cy), intrinsics: k, cameraToWorld: pose)),
            hit.anchorID != nil, !hit.isEstimated
        {
            let n = hit.normal
            var u = abs(n.y) < 0.9 ? SIMD3<Double>(0, 1, 0) : SIMD3<Double>(1, 0, 0)
            u -= (u * n).sum() * n
            u /= (u * u).sum().squareRoot()
            let v = SIMD3(n.y * u.z - n.z * u.y, n.z * u.x - n.x * u.z, n.x * u.y - n.y * u.x)
            let corners = [(-1.0, -1.0), (1, -1), (1, 1), (-1, 1)].compactMap { a, b in
                project(pose.applyInverse(hit.point + 0.1 * (a * u + b * v)))
            }
            if corners.count == 4 {
                image.drawPolygon(corners, color: Color(red: 255, green: 214, blue: 10), thickness: 4)
                return
            }
        }
        let s = min(w, h) / 12
        image.drawPolygon([Point2(w / 2 - s, h / 2 - s), Point2(w / 2 + s, h / 2 - s), Point2(w / 2 + s, h / 2 + s),
                           Point2(w / 2 - s, h / 2 + s)], color: Color(red: 255, green: 255, blue: 255), thickness: 1)
    }

    /// The camera's state at the top left, as an app's status line: a coloured square (green
    /// ready, amber limited, grey not available) and its label in the chosen language.
    private func drawStatus(_ state: TrackingState, on image: Image) {
        let colour = switch state {
        case .normal: Color(red: 58, green: 190, blue: 93)
        case .limited: Color(red: 240, green: 170, blue: 30)
        case .notAvailable: Color(red: 150, green: 150, blue: 150)
        }
        let height = textHeight * 3 / 4
        let label = CoachingCatalogue.stateLabel(state, language: language)
        let width = text.size(of: label, height: height).width
        image.fillRectangle(x: 4, y: 4, width: width + height + 14, height: height + 8, color: Color(red: 0, green: 0, blue: 0),
                            opacity: 0.5)
        image.fillRectangle(x: 8, y: 8, width: height, height: height, color: colour, opacity: 1)
        text.draw(label, on: image, at: (height + 14, 6), height: height, color: Color(red: 255, green: 255, blue: 255))
    }

    /// The light estimate at the top right: a swatch of the light's colour (gray without colour),
    /// its ambient intensity and its colour temperature.
    private func drawLight(_ light: LightEstimate, on image: Image) {
        let height = textHeight * 3 / 4
        let label = "\(Int(light.ambientIntensity.rounded()))" + (light.colorTemperature.map { " · \(Int($0.rounded())) K" } ?? "")
        let width = text.size(of: label, height: height).width
        let left = image.width - width - height - 18
        image.fillRectangle(x: left, y: 4, width: width + height + 14, height: height + 8, color: Color(red: 0, green: 0, blue: 0),
                            opacity: 0.5)
        // The light's colour at a mid-gray's level, its channels back in sRGB's coding.
        let swatch = (light.colorCorrection ?? SIMD3(1, 1, 1)) / max(light.colorCorrection?.max() ?? 1, 1e-9) * 0.5
        func code(_ linear: Double) -> UInt8 { UInt8((255 * SRGB.coded(linear)).rounded()) }
        image.fillRectangle(x: left + 4, y: 8, width: height, height: height,
                            color: Color(red: code(swatch.x), green: code(swatch.y), blue: code(swatch.z)), opacity: 1)
        text.draw(label, on: image, at: (left + height + 10, 6), height: height, color: Color(red: 255, green: 255, blue: 255))
    }

    /// The message in a dark band across the bottom, wrapped to the frame's width.
    private func drawBanner(_ message: CoachingMessage, on image: Image) {
        let margin = textHeight / 2
        let lines = wrap(message.text, width: image.width - 2 * margin, words: message.language == .english)
        let lineHeight = textHeight * 5 / 4
        let bandHeight = lines.count * lineHeight + margin
        let top = image.height - bandHeight
        image.fillRectangle(x: 0, y: top, width: image.width, height: bandHeight, color: Color(red: 0, green: 0, blue: 0),
                            opacity: 0.6)
        for (k, line) in lines.enumerated() {
            let width = text.size(of: line, height: textHeight).width
            text.draw(line, on: image, at: ((image.width - width) / 2, top + margin / 2 + k * lineHeight), height: textHeight,
                      color: Color(red: 255, green: 255, blue: 255))
        }
    }

    /// Lines no wider than `width`: broken between words, or (Chinese) between characters.
    private func wrap(_ message: String, width: Int, words: Bool) -> [String] {
        let pieces = words ? message.split(separator: " ").map(String.init) : message.map(String.init)
        var lines: [String] = []
        var line = ""
        for piece in pieces {
            let candidate = line.isEmpty ? piece : line + (words ? " " : "") + piece
            if !line.isEmpty, text.size(of: candidate, height: textHeight).width > width {
                lines.append(line)
                line = piece
            } else {
                line = candidate
            }
        }
        if !line.isEmpty { lines.append(line) }
        return lines
    }
}
