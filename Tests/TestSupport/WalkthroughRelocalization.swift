import Foundation
import Waymark

/// World maps built from the walk-through's exact depth and poses, and the interruptions the
/// relocalization tests and benchmark replay on it.
extension Walkthrough {
    public struct Interruption: Sendable {
        public var name: String
        /// Frames the map is built from: everything before the interruption.
        public var before: Range<Int>
        /// The frames after it, in order, that try to relocalize.
        public var after: Range<Int>
        /// Whether frames that are keyframes of the map are left out of `after`.
        public var excludingKeyframes = false
    }

    /// One-second gaps in the scan at 2, 4.5 and 7 s, one at 8 s that resumes in the dark, and
    /// the scripted 4 s gap before the return view, which comes back from another position and
    /// angle than the scan's start.
    public var interruptions: [Interruption] {
        func frame(at seconds: Double) -> Int { frames.firstIndex { $0.timestamp >= seconds } ?? frames.count }
        var list = [2.0, 4.5, 7, 8].map { t in
            Interruption(name: "scan, 1 s gap at \(t) s" + (t == 8 ? ", resumes in the dark" : ""), before: 0..<frame(at: t),
                         after: frame(at: t + 1)..<frame(at: t + 2))
        }
        // The HIG's case: after the call the person points the camera back where it was. The
        // frames of the last second before the gap stand in for that return (the map's keyframes
        // among them left out).
        list += [4.5, 7].map { t in
            Interruption(name: "back where it was at \(t) s", before: 0..<frame(at: t), after: frame(at: t - 1)..<frame(at: t),
                         excludingKeyframes: true)
        }
        if let resume = frames.firstIndex(where: { $0.segment == .afterInterruption }) {
            list.append(Interruption(name: "return from another angle, 4 s gap", before: 0..<resume,
                                     after: resume..<min(frames.count, resume + Int(framesPerSecond))))
        }
        return list
    }

    public func gray(_ frame: Frame) -> (gray: Image, depth: [Float]) {
        let rendering = render(frame)
        return (Image(width: width, height: height, channels: 3, pixels: rendering.color!).gray(), rendering.depth)
    }

    /// Keyframes from the true poses and the rendered depth along `frames`, one wherever the
    /// camera is `metres` from every keyframe's camera or turned `degrees` from those within
    /// that distance: a map laid out by hand, apart from how tracking makes one.
    public func worldMap(frames range: Range<Int>, metres: Double = 0.15, degrees: Double = 15,
                         features: FeatureOptions = FeatureOptions(maxFeatures: 1000)) -> WorldMap
    {
        var map = WorldMap()
        for frame in frames[range] where !map.keyframes.contains(where: {
            let d = $0.cameraToWorld.difference(to: frame.cameraToWorld)
            return d.translation < metres && d.rotationDegrees < degrees
        }) {
            let (gray, depth) = gray(frame)
            map.add(Keyframe(id: map.nextKeyframeID, timestamp: frame.timestamp, gray: gray, depth: depth,
                             cameraToWorld: frame.cameraToWorld, intrinsics: intrinsics, features: features))
        }
        return map
    }
}

extension Walkthrough {
    /// A map built by the tracker from the odd frames (1, 3, …) with their true poses as the
    /// recorded source, as `waymark map build` builds one from a ground-truth sequence; the
    /// even frames are then the views it has not seen.
    public func mapOfOddFrames(options: WorldTrackingOptions = WorldTrackingOptions()) -> WorldMap {
        var options = options
        options.expectFrames(every: 2 / framesPerSecond)
        let tracker = WorldTracker(intrinsics: intrinsics, options: options)
        for frame in frames where frame.index % 2 == 1 {
            let (gray, depth) = gray(frame)
            _ = tracker.track(TrackingFrame(timestamp: frame.timestamp, gray: gray, depth: depth, recordedPose: frame.cameraToWorld))
        }
        return tracker.map
    }

    public var evenFrames: [Frame] { frames.filter { $0.index % 2 == 0 } }
}
