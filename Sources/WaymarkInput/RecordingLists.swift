import Foundation
import WaymarkCore

/// What recordings in the TUM layout share: their "timestamp path" lists, recorded poses paired
/// by time, intrinsics.txt, and the frame rate their times imply.
enum RecordingLists {
    static func milliseconds(_ seconds: Double) -> String { "\(Int((seconds * 1000).rounded())) ms" }

    /// Depth and colour images paired by time (depth first, `TimestampAssociation`), how many
    /// of either are left out, and notes saying so.
    static func pairDepthAndColor(_ depth: [Double], _ color: [Double], tolerance: Double, notes: inout [String])
        -> (pairs: [(Int, Int)], leftOut: Int)
    {
        let pairs = TimestampAssociation.pairs(depth, color, tolerance: tolerance)
        if pairs.count < depth.count {
            notes.append("\(depth.count - pairs.count) of \(depth.count) depth images have no colour image within "
                         + "\(milliseconds(tolerance)) and are left out")
        }
        if pairs.count < color.count {
            notes.append("\(color.count - pairs.count) of \(color.count) colour images have no depth image within "
                         + "\(milliseconds(tolerance)) and are left out")
        }
        return (pairs, depth.count + color.count - 2 * pairs.count)
    }

    /// The poses of `posesFile`, else of groundtruth.txt, one per frame (nil where none is
    /// within the tolerance); nil when there is neither file.
    static func recordedPoses(folder: String, options: FrameSourceOptions, timestamps: [Double])
        throws(WaymarkError) -> (origin: RecordedPoseOrigin, poses: [RigidTransform?])?
    {
        let origin: RecordedPoseOrigin
        let path: String
        if let file = options.posesFile {
            (origin, path) = (.file, file)
        } else if FileManager.default.fileExists(atPath: folder + "/groundtruth.txt") {
            (origin, path) = (.groundtruth, folder + "/groundtruth.txt")
        } else {
            return nil
        }
        let samples = try Trajectory(tumFile: path).samples
        let partners = TimestampAssociation.partners(of: timestamps, in: samples.map(\.timestamp),
                                                     tolerance: options.associationTolerance)
        guard partners.contains(where: { $0 != nil }) else {
            throw WaymarkError(.badData, "\(path) has no pose within \(milliseconds(options.associationTolerance)) of any frame of \(folder)")
        }
        return (origin, partners.map { $0.map { samples[$0].pose } })
    }

    /// "timestamp path" rows, sorted by time (with a note when the file's order was another);
    /// a timestamp that is not a time in seconds, or one that repeats, is refused.
    static func readList(_ path: String, notes: inout [String]) throws(WaymarkError)
        -> [(timestamp: Double, path: String)]
    {
        let rows = try TextRows.read(path).enumerated().map { (number, words) throws(WaymarkError) in
            guard words.count >= 2, let t = Double(words[0]) else {
                throw WaymarkError(.badData, "\(path), line \(number + 1): expected 'timestamp filename'")
            }
            try TimestampAssociation.check(t, at: "\(path), line \(number + 1)")
            return (timestamp: t, path: String(words[1]))
        }
        let entries = rows.sorted { $0.timestamp < $1.timestamp }
        if !zip(rows, entries).allSatisfy({ $0.timestamp == $1.timestamp }) {
            notes.append("\(splitFolder(path).file) is not in time order; its images are taken in time order")
        }
        if let repeated = zip(entries, entries.dropFirst()).first(where: { $0.timestamp == $1.timestamp }) {
            throw WaymarkError(.badData, "\(path): timestamp \(repeated.0.timestamp) appears twice")
        }
        return entries
    }

    /// Gravity per frame from the folder's accelerometer.txt (`AccelerometerLog`), nil where
    /// no sample is near the frame's time; nil without the file, or when no frame has any.
    static func gravity(folder: String, timestamps: [Double]) throws(WaymarkError) -> [SIMD3<Double>?]? {
        let path = folder + "/accelerometer.txt"
        guard FileManager.default.fileExists(atPath: path) else { return nil }
        let log = try AccelerometerLog(contentsOf: path)
        let gravity = timestamps.map(log.gravity(at:))
        return gravity.contains { $0 != nil } ? gravity : nil
    }

    static func readIntrinsics(_ path: String) throws(WaymarkError) -> Intrinsics? {
        guard FileManager.default.fileExists(atPath: path) else { return nil }
        let values = try TextRows.read(path).joined().compactMap { Double($0) }
        guard values.count == 4 else { throw WaymarkError(.badData, "\(path): expected 'fx fy cx cy'") }
        return try Intrinsics(parsing: values.map { String($0) }.joined(separator: ","))
    }

    /// From the median frame interval (gaps aside); 30 for a single frame.
    /// The recording's description files that exist: `names` in `folder` and the poses file
    /// given, which outputs must not overwrite.
    static func descriptionFiles(_ names: [String], in folder: String, posesFile: String?) -> [String] {
        (names.map { folder + "/" + $0 } + [posesFile].compactMap { $0 }).filter { FileManager.default.fileExists(atPath: $0) }
    }

    static func framesPerSecond(_ timestamps: [Double]) -> Double {
        let steps = zip(timestamps, timestamps.dropFirst()).map { $1 - $0 }.filter { $0 > 0 }.sorted()
        return steps.isEmpty ? 30 : 1 / steps[steps.count / 2]
    }
}
