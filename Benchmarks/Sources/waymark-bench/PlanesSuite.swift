import Foundation
import TestSupport
import Waymark

/// `waymark-bench planes`: speed and accuracy of plane detection on real 640×480-class depth,
/// side by side with OpenCV's RgbdPlane and Open3D's looped segment_plane, in one invocation.
struct PlanesSuite {
    var datasets: URL
    /// nil runs Waymark alone (for quick iteration; RESULTS.md figures always include it).
    var baseline: Baseline?
    var scratch: URL
    var figures: Figures
    static let repeats = 31
    static let baselineRepeats = 11

    struct Frame {
        var name: String
        var depth: String
        /// "png" (scale in metres per unit) or "disparity" (Middlebury, see MiddleburyDepth).
        var kind: String
        var scale: Double
        var intrinsics: Intrinsics
        /// mOSD's hand-made table mask, scored by IoU.
        var mask: String?
        /// Middlebury scene whose ground-truth planes are scored by SegComp at 80%.
        var middlebury: String?
    }

    func frames() -> [Frame] {
        let kinect = Intrinsics(fx: 525, fy: 525, cx: 320, cy: 240)
        var frames = ["learn0", "test16", "test31", "test44", "test55"].map {
            Frame(name: "mOSD \($0)", depth: "pcl_pointclouds/mOSD/\($0)_depth_mm.png", kind: "png", scale: 0.001,
                  intrinsics: kinect, mask: "pcl_pointclouds/mOSD/\($0)_table_mask.png")
        }
        // Intrinsics from each SOURCE.md, moved to pixel centres at +0.5.
        frames += [
            Frame(name: "PCL table scene", depth: "pcl_pointclouds/table_scene_mug_stereo_textured_depth_mm.png", kind: "png",
                  scale: 0.001, intrinsics: Intrinsics(fx: 964.36, fy: 964.36, cx: 320.31, cy: 223.86)),
            Frame(name: "PCL office1", depth: "pcl_pointclouds/office1_depth_mm.png", kind: "png", scale: 0.001,
                  intrinsics: Intrinsics(fx: 525, fy: 525, cx: 320.5, cy: 240.5)),
            Frame(name: "CAPE seq_example", depth: "cape_seq_example/depth_0.png", kind: "png", scale: 0.001,
                  intrinsics: Intrinsics(fx: 575.93, fy: 576.41, cx: 315.65, cy: 231.09)),
            Frame(name: "TUM fr3 office", depth: "open3d_testdata_rgbd/RGBD/other_formats/TUM_depth.png", kind: "png",
                  scale: 0.0002, intrinsics: Intrinsics(fx: 535.4, fy: 539.2, cx: 320.6, cy: 248.1)),
        ]
        for scene in ["venus", "barn1"] {
            frames.append(Frame(name: "Middlebury \(scene)", depth: "middlebury_stereo/\(scene)/groundTruthDisparity.png",
                                kind: "disparity", scale: 0, intrinsics: kinect, middlebury: scene))
        }
        return frames
    }

    /// mOSD's table mask, or Middlebury's ground-truth plane labels.
    enum Truth {
        case mask([Bool])
        case planes([Int])
    }

    struct Loaded {
        var frame: Frame
        var depth: DepthImage
        var intrinsics: Intrinsics
        var truth: Truth?
    }

    struct Reply: Decodable {
        struct Method: Decodable {
            var ms: Double
            var labels: String
        }
        struct Result: Decodable {
            var name: String
            var rgbdplane: Method
            var open3d: Method?
        }
        var opencv: String
        var open3d: String?
        var frames: [Result]
    }

    struct Row {
        var name: String
        var size: String
        var ours: Double
        var oursPlanes: Int
        var oursScore: String
        var rgbd: Double?
        var rgbdScore: String
        var open3d: Double?
        var open3dScore: String
    }

    func run() throws {
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: scratch) }
        let frames = frames()
        var loaded: [Loaded] = []
        for frame in frames {
            if let scene = frame.middlebury {
                guard let middlebury = try MiddleburyDepth(scene) else { throw BenchError("missing \(frame.depth)") }
                loaded.append(Loaded(frame: frame, depth: middlebury.depth, intrinsics: middlebury.intrinsics,
                                     truth: .planes(DisparityPlanes(middlebury.disparity).labels)))
            } else {
                let depth = try DepthImage(contentsOf: datasets.appendingPathComponent(frame.depth).path, scale: frame.scale)
                let truth = try frame.mask.map { (mask: String) throws -> Truth in
                    .mask(try Raster(contentsOf: datasets.appendingPathComponent(mask).path).values.map { $0 > 0 })
                }
                loaded.append(Loaded(frame: frame, depth: depth, intrinsics: frame.intrinsics, truth: truth))
            }
        }
        let detector = try PlaneDetector()
        var rows: [Row] = []
        var tableIoUs: [Double] = []
        var correctPlanes = 0
        for entry in loaded {
            let (frame, depth, intrinsics) = (entry.frame, entry.depth, entry.intrinsics)
            _ = detector.detect(in: depth, intrinsics: intrinsics)
            var times: [Double] = []
            var found: PlaneDetection?
            for _ in 0..<Self.repeats {
                let (result, ms) = milliseconds { detector.detect(in: depth, intrinsics: intrinsics) }
                times.append(ms)
                found = result
            }
            let labels = found!.labels.map { Int($0) }
            switch entry.truth {
            case .mask(let mask): tableIoUs.append(PlaneScores.bestMatch(for: mask, among: labels).iou)
            case .planes(let regions): correctPlanes += PlaneScores.correctDetections(truth: regions, detected: labels, overlap: 0.8)
            case nil: break
            }
            rows.append(Row(name: frame.name, size: "\(depth.width)×\(depth.height)", ours: Summary(times).median,
                            oursPlanes: found!.planes.count, oursScore: score(labels, entry.truth), rgbd: nil,
                            rgbdScore: "", open3d: nil, open3dScore: ""))
        }
        figures.record("planes.mosd.mean_table_iou", tableIoUs.reduce(0, +) / Double(max(1, tableIoUs.count)))
        figures.record("planes.middlebury.correct_planes", Double(correctPlanes))
        let reply = try baseline?.run(task: task(loaded.map { ($0.frame, $0.intrinsics) }), as: Reply.self)
        for (index, result) in (reply?.frames ?? []).enumerated() {
            rows[index].rgbd = result.rgbdplane.ms
            rows[index].rgbdScore = score(try Raster(contentsOf: result.rgbdplane.labels).values.map { Int($0) },
                                          loaded[index].truth)
            if let open3d = result.open3d {
                rows[index].open3d = open3d.ms
                rows[index].open3dScore = score(try Raster(contentsOf: open3d.labels).values.map { Int($0) },
                                                loaded[index].truth)
            }
        }
        report(rows, reply: reply)
        try walkthrough()
    }

    /// Plane anchors over the synthetic walk-through with its exact poses.
    private func walkthrough() throws {
        let walk = try Walkthrough(posterFolder: try SampleVideo.sourceFolder(), framesPerSecond: 10)
        let replay = WalkthroughPlaneReplay(walk, detector: try PlaneDetector())
        let mixed = replay.map.anchors.filter { (replay.surfacesOfAnchor[$0.id]?.count ?? 0) > 1 }.count
        print("### Plane anchors on the synthetic walk-through\n")
        print("\(walk.frames.count) frames, \(walk.width)×\(walk.height), 10 fps, exact poses (`Walkthrough`, seed 1). "
              + "Surfaces covering ≥ 1% of the view in ≥ 3 frames: \(replay.visibleSurfaces.count); anchors at the end: "
              + "\(replay.map.anchors.count); anchors holding more than one surface: \(mixed); identifier changes after "
              + "establishment: \(replay.identifierChanges.count). Per frame, median: detection "
              + "\(format(Summary(replay.detectMilliseconds).median, 2)) ms, map update "
              + "\(format(Summary(replay.integrateMilliseconds).median, 2)) ms.\n")
    }

    /// Table IoU for mOSD, "k/n planes" (SegComp at 80%) for Middlebury, nothing otherwise.
    private func score(_ labels: [Int], _ truth: Truth?) -> String {
        switch truth {
        case .mask(let mask): "IoU " + format(PlaneScores.bestMatch(for: mask, among: labels).iou, 3)
        case .planes(let regions):
            "\(PlaneScores.correctDetections(truth: regions, detected: labels, overlap: 0.8))/\(regions.max() ?? 0) planes"
        case nil: ""
        }
    }

    private func task(_ frames: [(Frame, Intrinsics)]) -> [String: Any] {
        [
            "scratch": scratch.path, "repeats": Self.baselineRepeats,
            "frames": frames.enumerated().map { index, entry -> [String: Any] in
                let (frame, k) = entry
                var item: [String: Any] = [
                    "name": "frame\(index)", "depth": datasets.appendingPathComponent(frame.depth).path, "kind": frame.kind,
                    // OpenCV's convention: pixel centres at integers.
                    "K": [k.fx, k.fy, k.cx - 0.5, k.cy - 0.5],
                ]
                if frame.kind == "disparity" {
                    item["focal_times_baseline"] = Double(MiddleburyDepth.focalTimesBaseline)
                } else {
                    item["scale"] = frame.scale
                }
                return item
            },
        ]
    }

    private func report(_ rows: [Row], reply: Reply?) {
        print("## planes\n")
        print("Per-frame median of \(Self.repeats) runs after a warm-up (baselines: \(Self.baselineRepeats) runs for RgbdPlane, "
              + "\(Self.baselineRepeats / 4) for Open3D), one thread each, depth already decoded. "
              + "Baselines: OpenCV \(reply?.opencv ?? "not run") cv2.rgbd.RgbdPlane (defaults), "
              + "Open3D \(reply?.open3d ?? "not run") segment_plane ×5 (1 cm, 1000 iterations).\n")
        print("| frame | size | Waymark ms | planes | RgbdPlane ms | Open3D ms | RgbdPlane ÷ Waymark | Open3D ÷ Waymark | Waymark | RgbdPlane | Open3D |")
        print("|---|---|---|---|---|---|---|---|---|---|---|")
        func cell(_ value: Double?) -> String { value.map { format($0, 2) } ?? "—" }
        func ratio(_ value: Double?, _ ours: Double) -> String { value.map { format($0 / ours, 1) + "×" } ?? "—" }
        for row in rows {
            print("| \(row.name) | \(row.size) | \(format(row.ours, 2)) | \(row.oursPlanes) | \(cell(row.rgbd)) | \(cell(row.open3d)) | "
                  + "\(ratio(row.rgbd, row.ours)) | \(ratio(row.open3d, row.ours)) | \(row.oursScore) | \(row.rgbdScore) | \(row.open3dScore) |")
        }
        let ours = Summary(rows.map(\.ours))
        let rgbd = rows.compactMap(\.rgbd)
        if !rgbd.isEmpty {
            figures.record("planes.median_time_share_of_rgbdplane",
                           Summary(rows.compactMap { row in row.rgbd.map { row.ours / $0 } }).median)
        }
        let open3d = rows.compactMap(\.open3d)
        print("\nMedian over frames: Waymark \(format(ours.median, 2)) ms (p90 \(format(ours.p90, 2)))"
              + (rgbd.isEmpty ? "" : ", RgbdPlane \(format(Summary(rgbd).median, 2)) ms")
              + (open3d.isEmpty ? "" : ", Open3D \(format(Summary(open3d).median, 1)) ms")
              + (rgbd.isEmpty ? "" : "; median ratio RgbdPlane ÷ Waymark \(format(Summary(zip(rgbd, rows).map { $0 / $1.ours }).median, 1))×")
              + (open3d.isEmpty ? "" : ", Open3D ÷ Waymark \(format(Summary(zip(open3d, rows).map { $0 / $1.ours }).median, 0))×")
              + ".\n")
    }
}
