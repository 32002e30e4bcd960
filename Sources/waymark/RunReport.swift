import Foundation
import Waymark

/// --report: one self-contained HTML page per run, for people who would rather look than read:
/// a timeline of the tracking state, the coaching messages, the reference images seen and the
/// surfaces found, the messages in a table, and thumbnails of the frames (one every few
/// seconds and one whenever a message appears).
final class RunReport {
    private struct Row {
        var time: Double
        var tracking: String?
        var message: CoachingMessage?
        var images: [String]
        var surfaces: Int
    }

    private let path: String
    private let input: String
    private let coaching: CoachingOptions
    private var rows: [Row] = []
    private var interruptions: [Double] = []
    private var thumbnails: [(time: Double, caption: String, jpeg: Data)] = []
    private var lastThumbnail = -Double.infinity
    private var goalReachedAt: Double?

    static let thumbnailInterval = 2.0
    static let maximumThumbnails = 24

    init(path: String, input: String, coaching: CoachingOptions) {
        self.path = path
        self.input = input
        self.coaching = coaching
    }

    /// `image`: the frame as shown (annotated, when annotating).
    func add(_ result: FrameResult, image: Image, surfaces: Int) {
        let state = result.tracking.map { $0.state.reason.map { "limited: \($0.rawValue)" } ?? $0.state.name }
        rows.append(Row(time: result.timestamp, tracking: state, message: result.coaching.message,
                        images: result.detections.filter { $0.state != .lost }.map(\.name), surfaces: surfaces))
        if result.coaching.goalReachedNow { goalReachedAt = result.timestamp }
        let appeared = result.coaching.changed && result.coaching.message != nil
        guard appeared || result.timestamp - lastThumbnail >= Self.thumbnailInterval, let jpeg = Self.thumbnail(image) else {
            return
        }
        lastThumbnail = result.timestamp
        thumbnails.append((result.timestamp, result.coaching.message?.text ?? "", jpeg))
    }

    func addInterruption(at time: Double) { interruptions.append(time) }

    func write() throws(WaymarkError) { try writeAtomically(html(), to: path, what: "the report") }

    private static func thumbnail(_ image: Image) -> Data? {
        let width = 240
        let small = image.resized(width: width, height: max(1, image.height * width / image.width))
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("waymark-thumbnail-\(getpid()).jpg")
        defer { try? FileManager.default.removeItem(at: file) }
        do throws(WaymarkError) { try small.write(to: file.path) } catch { return nil }
        return try? Data(contentsOf: file)
    }

    // MARK: The page

    private func html() -> String {
        let start = rows.first?.time ?? 0
        let duration = max(1e-6, (rows.last?.time ?? 0) - start)
        let left = 150.0, right = 990.0
        let x = { (t: Double) in left + (t - start) / duration * (right - left) }
        let step = rows.count > 1 ? duration / Double(rows.count - 1) : 1
        let names = Array(Set(rows.flatMap(\.images))).sorted()
        var svg: [String] = []
        var y = 10.0
        func bands(_ label: String, _ value: (Row) -> String?, _ fill: (String) -> String) {
            svg.append("<text x=\"0\" y=\"\(y + 13)\" class=\"label\">\(escape(label))</text>")
            for run in runs(value) {
                let width = max(1, x(run.end + step) - x(run.start))
                svg.append("<rect class=\"band\" x=\"\(format(x(run.start)))\" y=\"\(y)\" width=\"\(format(width))\" height=\"18\" "
                           + "fill=\"\(fill(run.value))\"><title>\(escape(run.value)) · \(format(run.start - start))–\(format(run.end - start)) s</title></rect>")
            }
            y += 26
        }
        bands("Tracking", \.tracking) { $0 == "normal" ? "#3a9d5d" : $0.hasPrefix("limited") ? "#e0a526" : "#9a9a9a" }
        bands("Coaching", { $0.message?.text }) { Self.colour(of: $0) }
        for name in names { bands(name, { $0.images.contains(name) ? "seen" : nil }) { _ in "#2f6fb3" } }
        let most = max(1, rows.map(\.surfaces).max() ?? 1)
        let points = rows.map { "\(format(x($0.time))),\(format(y + 40 - 40 * Double($0.surfaces) / Double(most)))" }
        svg.append("<text x=\"0\" y=\"\(y + 24)\" class=\"label\">Surfaces (up to \(most))</text>")
        svg.append("<polyline class=\"surfaces\" fill=\"none\" stroke=\"#7b3fa0\" stroke-width=\"2\" points=\"\(points.joined(separator: " "))\"/>")
        y += 50
        for t in interruptions {
            svg.append("<line class=\"interruption\" x1=\"\(format(x(t)))\" x2=\"\(format(x(t)))\" y1=\"4\" y2=\"\(y)\" stroke=\"#c0392b\" stroke-dasharray=\"4 3\"><title>interrupted at \(format(t - start)) s</title></line>")
        }
        for tick in stride(from: 0.0, through: duration, by: duration > 60 ? 10 : 5) {
            svg.append("<text x=\"\(format(x(start + tick)))\" y=\"\(y + 12)\" class=\"tick\">\(Int(tick)) s</text>")
        }
        y += 20
        let messages = runs { $0.message.map { "\($0.code.rawValue)\t\($0.text)" } }.map { run -> String in
            let parts = run.value.split(separator: "\t", maxSplits: 1).map(String.init)
            return "<tr><td><code>\(escape(parts[0]))</code></td><td>\(escape(parts[1]))</td><td>\(format(run.start - start))</td>"
                + "<td>\(format(run.end + step - start))</td></tr>"
        }
        let figures = chosenThumbnails().map { t in
            "<figure><img alt=\"frame at \(format(t.time - start)) s\" src=\"data:image/jpeg;base64,\(t.jpeg.base64EncodedString())\">"
                + "<figcaption>\(format(t.time - start)) s\(t.caption.isEmpty ? "" : " · " + escape(t.caption))</figcaption></figure>"
        }
        let reached = goalReachedAt.map { "reached at \(format($0 - start)) s" } ?? "not reached"
        return """
            <!doctype html>
            <html lang="\(coaching.language.rawValue)">
            <head><meta charset="utf-8"><title>Waymark: \(escape(input))</title>
            <style>
            body { font: 15px system-ui, "Noto Sans CJK SC", sans-serif; margin: 24px; color: #222; }
            h1 { font-size: 20px; } h2 { font-size: 16px; margin-top: 28px; }
            svg text.label { font-size: 12px; } svg text.tick { font-size: 11px; fill: #666; }
            table { border-collapse: collapse; } td, th { border-bottom: 1px solid #ddd; padding: 4px 10px; text-align: left; }
            #thumbnails { display: flex; flex-wrap: wrap; gap: 10px; }
            figure { margin: 0; width: 240px; } figure img { width: 240px; display: block; } figcaption { font-size: 12px; }
            </style></head>
            <body>
            <h1>\(escape(input))</h1>
            <p id="summary">\(rows.count) frames over \(format(duration)) s · \(interruptions.count) interruptions · \
            coaching goal <code>\(coaching.goal.rawValue)</code> \(reached) · messages in \(coaching.language.rawValue)</p>
            <h2>Timeline</h2>
            <svg id="timeline" viewBox="0 0 1000 \(format(y))" width="100%">
            \(svg.joined(separator: "\n"))
            </svg>
            <h2>Coaching messages</h2>
            <table id="messages"><tr><th>code</th><th>text</th><th>from (s)</th><th>to (s)</th></tr>
            \(messages.joined(separator: "\n"))
            </table>
            <h2>Frames</h2>
            <div id="thumbnails">
            \(figures.joined(separator: "\n"))
            </div>
            <script>
            // What rendered, for automated checks (people see nothing of it).
            window.addEventListener("load", () => {
              const images = [...document.querySelectorAll("#thumbnails img")];
              document.body.dataset.thumbnailsDecoded = images.filter(i => i.complete && i.naturalWidth > 0).length;
              document.body.dataset.timelineWidth = Math.round(document.getElementById("timeline").getBoundingClientRect().width);
              document.body.dataset.bandsDrawn = [...document.querySelectorAll("#timeline rect.band")]
                .filter(r => r.getBBox().width > 0).length;
            });
            </script>
            </body>
            </html>

            """
    }

    /// Runs of equal non-nil values: (first time, last time, value).
    private func runs(_ value: (Row) -> String?) -> [(start: Double, end: Double, value: String)] {
        var out: [(start: Double, end: Double, value: String)] = []
        var previous: String?
        for row in rows {
            let v = value(row)
            if let v, v == previous, !out.isEmpty { out[out.count - 1].end = row.time } else if let v { out.append((row.time, row.time, v)) }
            previous = v
        }
        return out
    }

    /// At most `maximumThumbnails`, evenly spread, those at a message's appearance first.
    private func chosenThumbnails() -> [(time: Double, caption: String, jpeg: Data)] {
        guard thumbnails.count > Self.maximumThumbnails else { return thumbnails }
        let stride = Double(thumbnails.count) / Double(Self.maximumThumbnails)
        return (0..<Self.maximumThumbnails).map { thumbnails[Int(Double($0) * stride)] }
    }

    private static func colour(of text: String) -> String {
        let hue = text.unicodeScalars.reduce(UInt32(7)) { ($0 &* 31 &+ $1.value) % 360 }
        return "hsl(\(hue), 60%, 55%)"
    }

    private func escape(_ text: String) -> String {
        text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
            .replacingOccurrences(of: ">", with: "&gt;").replacingOccurrences(of: "\"", with: "&quot;")
    }

    private func format(_ value: Double) -> String { String(format: "%.2f", value) }
}
