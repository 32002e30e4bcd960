import Foundation
import TestSupport
import Waymark
import WaymarkSamples

/// A video with the true homography of every reference in view, per frame.
struct LabelledVideo {
    var name: String
    var references: [ReferenceImage]
    /// Gray frames.
    var frames: [Image]
    /// Per frame: reference index → reference pixels to frame pixels, for those in view.
    var truth: [[Int: Homography]]
    /// Mean corner error (px) within which a report is right.
    var tolerance: Double

    /// Whether reference `r` is wholly inside frame `index` (then it has to be reported).
    func isWhole(_ r: Int, at index: Int) -> Bool {
        truth[index][r]?.keepsImage(width: references[r].width, height: references[r].height,
                                    insideFrame: frames[index].width, frames[index].height) ?? false
    }

    func error(_ r: Int, _ homography: Homography, at index: Int) -> Double {
        guard let truth = truth[index][r] else { return .infinity }
        return homography.meanCornerDistance(to: truth, width: references[r].width, height: references[r].height)
    }
}

extension DetectionSuite {
    // MARK: Following through video

    func following() throws {
        let videos = try [sampleVideo(), approachVideo(), bookCoverVideo()].compactMap { $0 }
        print("### Following references through video (`ImageTracker`), 640×480, one thread\n")
        print("A reference is *visible* in a frame when it is wholly inside it; *a lone detector* is `ImageDetector.detect` "
            + "on that frame alone, the earliest any method could find it. A report is right within the video's tolerance "
            + "(mean corner error); a *loss* is a visible reference the tracker stops reporting.\n")
        print("| video | reference | visible frames | first visible | lone detector first finds it | tracker first reports it "
            + "| followed after that (of visible) | losses | wrong reports | median error px | p90 error px |")
        print("|---|---|---|---|---|---|---|---|---|---|---|")
        var timings: [(String, Summary, Summary)] = []
        let alone = videos.map(detectingAlone)
        for (video, (first, detect)) in zip(videos, alone) {
            let (rows, follow) = measureFollowing(video, loneFirst: first)
            for row in rows { print(row) }
            timings.append((video.name, detect, follow))
        }
        // Following alone, where detection does not start it at once: given the first frame's true position.
        for (video, (first, _)) in zip(videos, alone) {
            let (rows, follow) = measureFollowing(video, loneFirst: first, startedAtTruth: true)
            guard !rows.isEmpty else { continue }
            for row in rows { print(row) }
            timings.append((video.name + ", started at the true position", Summary([]), follow))
        }
        print("\n| video | detect every frame: median ms | p90 | follow (frames where every visible reference is followed): median ms | p90 | ratio |")
        print("|---|---|---|---|---|---|")
        for (name, detect, follow) in timings {
            print("| \(name) | \(format(detect.median, 2)) | \(format(detect.p90, 2)) | \(format(follow.median, 2)) | "
                + "\(format(follow.p90, 2)) | \(format(follow.median / detect.median)) |")
        }
        print("")
    }

    /// Per reference, the first frame a detector run on each frame alone finds it in; the time
    /// of detecting every frame.
    private func detectingAlone(_ video: LabelledVideo) -> (first: [Int?], time: Summary) {
        let detector = ImageDetector(references: video.references)
        _ = detector.detect(in: video.frames[0])
        var first = [Int?](repeating: nil, count: video.references.count)
        var times: [Double] = []
        for (i, frame) in video.frames.enumerated() {
            let (found, ms) = milliseconds { detector.detect(in: frame) }
            times.append(ms)
            for d in found where first[d.reference] == nil && video.error(d.reference, d.homography, at: i) < video.tolerance {
                first[d.reference] = i
            }
        }
        return (first, Summary(times))
    }

    /// Per reference a table row, and the time of following. `startedAtTruth`: references wholly
    /// in the first frame that the lone detector does not find there are followed from their
    /// true position in it (`ImageTracker.startFollowing`), to measure following alone; only
    /// they get rows.
    private func measureFollowing(_ video: LabelledVideo, loneFirst: [Int?], startedAtTruth: Bool = false)
        -> ([String], Summary)
    {
        let count = video.references.count
        let tracker = ImageTracker(references: video.references)
        var trackerFirst = [Int?](repeating: nil, count: count)
        var given = Set<Int>()
        if startedAtTruth {
            for (r, h) in video.truth[0] where video.isWhole(r, at: 0) && loneFirst[r] != 0 {
                tracker.startFollowing(r, at: h)
                trackerFirst[r] = 0
                given.insert(r)
            }
        }
        var followed = [Int](repeating: 0, count: count)
        var visibleAfter = [Int](repeating: 0, count: count)
        var losses = [Int](repeating: 0, count: count)
        var wrong = [Int](repeating: 0, count: count)
        var errors = [[Double]](repeating: [], count: count)
        var followTimes: [Double] = []
        for (i, frame) in video.frames.enumerated() {
            let (reports, ms) = milliseconds { tracker.process(frame) }
            var allFollowed = !reports.isEmpty
            for r in 0..<count {
                let report = reports.first { $0.reference == r && $0.state != .lost }
                let error = report.map { video.error(r, $0.homography, at: i) } ?? .infinity
                let whole = video.isWhole(r, at: i)
                if whole && report?.state != .tracked { allFollowed = false }
                if let report {
                    if error < video.tolerance { errors[r].append(error) } else { wrong[r] += 1 }
                    if trackerFirst[r] == nil && error < video.tolerance && report.state == .detected { trackerFirst[r] = i }
                }
                if reports.contains(where: { $0.reference == r && $0.state == .lost }) && whole { losses[r] += 1 }
                if let first = trackerFirst[r], i > first || given.contains(r), whole {
                    visibleAfter[r] += 1
                    if error < video.tolerance { followed[r] += 1 }
                }
            }
            if allFollowed { followTimes.append(ms) }
        }
        if !startedAtTruth {
            let name = "detection.following.\(Figures.slug(video.name))"
            figures.record("\(name).losses", Double(losses.reduce(0, +)))
            figures.record("\(name).wrong_reports", Double(wrong.reduce(0, +)))
        }
        let rows = (0..<count).compactMap { r -> String? in
            let visible = video.frames.indices.filter { video.isWhole(r, at: $0) }
            guard let firstVisible = visible.first else { return nil }
            func frame(_ index: Int?) -> String {
                index.map { "\($0) (+\($0 - firstVisible))" } ?? "never"
            }
            if startedAtTruth && !given.contains(r) { return nil }
            let e = Summary(errors[r])
            return "| \(video.name) | \(video.references[r].name) | \(visible.count) | \(firstVisible) | \(frame(loneFirst[r])) | "
                + "\(given.contains(r) ? "given" : frame(trackerFirst[r])) | \(followed[r]) of \(visibleAfter[r]) | \(losses[r]) | \(wrong[r]) | "
                + "\(format(e.median)) | \(format(e.p90)) |"
        }
        return (rows, Summary(followTimes))
    }

    /// The demo's synthetic video: two references over a wall, exact truth (tolerance 3 px).
    private func sampleVideo() throws -> LabelledVideo {
        let video = try SyntheticVideo.sample(
            box: datasets.appendingPathComponent("opencv_samples/box.png").path,
            graffiti: datasets.appendingPathComponent("opencv_samples/graf1.png").path,
            wall: datasets.appendingPathComponent("opencv_samples/aloeL.jpg").path)
        let references = try video.placements.map { placement in
            try ReferenceImage(entry: ReferenceEntry(name: placement.name, path: "-"), image: placement.image)
        }
        let frames = (0..<video.frameCount).map { video.render($0).gray() }
        let truth = (0..<video.frameCount).map { i -> [Int: Homography] in
            let byName = video.truth(at: i)
            return Dictionary(uniqueKeysWithValues: references.enumerated().map { ($0.offset, byName[$0.element.name]!) })
        }
        return LabelledVideo(name: "synthetic sample, 150 frames", references: references, frames: frames, truth: truth,
                             tolerance: Self.acceptedError)
    }

    /// The synthetic walk-through's room, the camera walking up to graf1 from 4 m and 40° off its
    /// axis to 0.95 m and 10° (about 2 % to 50 % of the frame) in 5 s; its four posters are the
    /// references. Exact truth (tolerance 3 px).
    private func approachVideo() throws -> LabelledVideo? {
        guard let folder = Walkthrough.debianPosterFolder else {
            print("(skipped the walk-through approach: opencv-doc's images are not installed)\n")
            return nil
        }
        let walk = try Walkthrough(posterFolder: folder).approaching(
            "graf1", far: 4, near: 0.95, startAngle: 40, endAngle: 10, frameCount: 150)
        let references = try walk.posters.map { try ReferenceImage(entry: ReferenceEntry(name: $0.name, path: $0.imagePath)) }
        let frames = walk.frames.map { frame in
            Image(width: walk.width, height: walk.height, channels: 3, pixels: walk.render(frame).color!).gray()
        }
        let truth = walk.frames.map { frame -> [Int: Homography] in
            let byName = walk.posterHomographies(frame)
            return Dictionary(uniqueKeysWithValues: references.enumerated().compactMap { r, reference in
                byName[reference.name].map { (r, $0) }
            })
        }
        let graf = references.firstIndex { $0.name == "graf1" }!
        let shares = [0, walk.frames.count - 1].map {
            walk.coverage(of: truth[$0][graf]!, posterWidth: references[graf].width, posterHeight: references[graf].height)
        }
        print("(walk-through approach: graf1 covers \(format(shares[0] * 100, 1)) % of the first frame, "
            + "\(format(shares[1] * 100, 1)) % of the last)\n")
        return LabelledVideo(name: "walk-through approach, 150 frames", references: references, frames: frames,
                             truth: truth, tolerance: Self.acceptedError)
    }

    /// TUM fr1/xyz: the book cover, cut from frame 8, followed through the 37 real frames
    /// (truth from motion capture, good to 3–5 px: tolerance 8 px).
    private func bookCoverVideo() throws -> LabelledVideo? {
        guard let book = try BookCoverVideo() else { return nil }
        let reference = try ReferenceImage(entry: ReferenceEntry(name: "book cover", path: "-"), image: book.reference)
        let frames = try book.framePaths.map { try Image(contentsOf: $0, gray: true) }
        return LabelledVideo(name: "TUM fr1/xyz book cover, 37 frames", references: [reference], frames: frames,
                             truth: book.truth.map { [0: $0] }, tolerance: 8)
    }
}
