import Foundation
import Waymark
import WaymarkRecords

/// Runs a frame source through a session and writes what each frame gave: the one frame loop
/// of `process` (records, annotated video, report, trajectory) and `map build` (the map only).
/// A frame that cannot be read is recorded with its error and the run goes on; an input that
/// breaks off stops the run, keeping everything so far.
final class SessionRunner {
    /// What to do to the stream besides processing it.
    struct Plan {
        /// Frames to drop, as an interruption (`--interrupt`).
        var dropped: Set<Int> = []
        /// Named anchors to place, as a tap on a pixel of a frame (`--place`).
        var placements: [Placement] = []
    }

    struct Placement {
        var name: String
        var frame: Int
        var pixel: SIMD2<Double>
    }

    /// Where the results go; each is optional.
    struct Outputs {
        var records: RecordSink?
        var annotation: SessionAnnotation?
        var report: RunReport?
        /// The world map is written here when an interruption starts (the caller writes the
        /// final one), so a run killed during an interruption resumes from the file.
        var mapPath: String?
        var includesDetections = false
    }

    struct Outcome {
        var frames = 0
        var framesDropped = 0
        var framesWithErrors = 0
        var framesWithDetections = 0
        var framesWithPose = 0
        var firstFrameError: WaymarkError?
        /// Why the input stopped early.
        var stopped: WaymarkError?
        /// The camera poses of the frames that had one.
        var trajectory = Trajectory(samples: [])

        /// The exit code: the input's break, else the first unreadable frame's.
        var exitCode: ExitCode { (stopped ?? firstFrameError).map { ExitCode($0.kind) } ?? .ok }
    }

    private let source: any FrameSource
    private let session: Session
    private let plan: Plan
    private let outputs: Outputs
    private let quiet: Bool

    init(source: any FrameSource, session: Session, plan: Plan = Plan(), outputs: Outputs, quiet: Bool) {
        self.source = source
        self.session = session
        self.plan = plan
        self.outputs = outputs
        self.quiet = quiet
    }

    /// Throws only when an output cannot be written.
    func run() throws(WaymarkError) -> Outcome {
        var outcome = Outcome()
        var progress = Progress(total: source.info.frameCount, quiet: quiet)
        while true {
            let frame: InputFrame
            do {
                guard let next = try source.next() else { break }
                frame = next
            } catch {
                outcome.stopped = error
                break
            }
            outcome.frames += 1
            progress.update(frames: outcome.frames)
            if plan.dropped.contains(frame.index) {
                outcome.framesDropped += 1
                // The first dropped frame starts the interruption: the map is saved now.
                if !plan.dropped.contains(frame.index - 1) { try pause(at: frame) }
                continue
            }
            guard let input = SessionFrame(frame) else {
                let error = frame.error ?? WaymarkError(.internal, "frame \(frame.index) has no picture")
                outcome.framesWithErrors += 1
                if outcome.firstFrameError == nil { outcome.firstFrameError = error }
                try outputs.records?.write(FrameRecord(index: frame.index, timestamp: frame.timestamp, error: error))
                continue
            }
            let record = try process(input, index: frame.index, outcome: &outcome)
            try outputs.records?.write(record)
        }
        progress.finish()
        try outputs.annotation?.finish()
        try outputs.report?.write()
        return outcome
    }

    private func pause(at frame: InputFrame) throws(WaymarkError) {
        let paused = session.pause()
        guard !paused.events.isEmpty else { return }
        outputs.report?.addInterruption(at: frame.timestamp)
        try session.saveMap(to: outputs.mapPath)
        try outputs.records?.write(InterruptionRecord(index: frame.index, timestamp: frame.timestamp, events: paused.events,
                                                      anchorEvents: paused.anchorEvents))
    }

    private func process(_ frame: SessionFrame, index: Int, outcome: inout Outcome) throws(WaymarkError) -> FrameRecord {
        let result = session.process(frame)
        if result.interruptionStarted {
            outputs.report?.addInterruption(at: frame.timestamp)
            try session.saveMap(to: outputs.mapPath)
        }
        if result.detections.contains(where: { $0.state != .lost }) { outcome.framesWithDetections += 1 }
        if let pose = result.cameraToWorld {
            outcome.framesWithPose += 1
            outcome.trajectory.samples.append(.init(timestamp: frame.timestamp, pose: pose))
        }
        var record = FrameRecord(index: index, result, planes: session.planes, includesDetections: outputs.includesDetections)
        for placement in plan.placements where placement.frame == index {
            if let added = session.place(placement.name, pixel: placement.pixel) {
                record.placed = (record.placed ?? []) + [AnchorRecord(added, event: "added")]
            } else {
                record.placementFailed = (record.placementFailed ?? []) + [placement.name]
                if !quiet {
                    Console.warning("frame \(index): '\(placement.name)' could not be placed: no pose, no surface along "
                                    + "that pixel, or a world of unknown scale")
                }
            }
        }
        if outputs.annotation != nil || outputs.report != nil {
            let canvas = frame.image.colored()
            try outputs.annotation?.write(result, on: canvas, planes: session.planes)
            outputs.report?.add(result, image: canvas, surfaces: session.planes.anchors.count)
        }
        return record
    }
}

extension Session {
    /// Writes the world map with every anchor to `path`, when both are there.
    func saveMap(to path: String?) throws(WaymarkError) {
        guard let path, let map = worldMap else { return }
        try map.write(to: path)
    }
}
