import Foundation
import Waymark
import WaymarkSamples

enum DemoCommand: Command {
    static let name = "demo"
    static let help = """
        Usage: waymark demo [--output DIR] [--language en|zh-Hans|zh-Hant] [--size WxH] [--fps N] [--quiet]

        Runs the whole pipeline on the built-in sample. First it renders a synthetic RGB-D
        walk-through of a furnished room, with exact poses and four posters on its walls
        (Debian's opencv-doc images), and scripted trouble: darkness, a fast turn, a plain
        wall filling the view and a 2-second interruption. It is written to DIR/walkthrough
        (TUM RGB-D layout; references.json lists the posters with their sizes). Then it runs
        `waymark process` on it with the posters as reference images, surfaces, relocalization
        and coaching, and places a lamp where the view's lower middle meets the floor 3 s in.

        Writes DIR/results.jsonl (see docs/OUTPUT.md), DIR/annotated.mp4 (the video as a
        person would see it in an app, coaching in the chosen language), DIR/report.html (a
        timeline of the run with thumbnails) and DIR/world.waymap.

        Options:
          --output DIR        where to write (default out/demo)
          --language LANG     coaching in en (default), zh-Hans or zh-Hant
          --size WxH          frame size, even numbers from 160x120 to 1920x1080 (default 640x480)
          --fps N             frames per second, 1 to 60 (default 10)
          --quiet             no progress
          --help              this text
        """
    static let valueOptions: Set<String> = ["--output", "--language", "--size", "--fps"]
    static let flagOptions: Set<String> = ["--quiet", "--help"]

    static func run(_ arguments: Arguments) throws(WaymarkError) -> ExitCode {
        guard arguments.positionals.isEmpty else { throw WaymarkError(.usage, "demo takes no inputs; see --help") }
        let quiet = arguments.flag("--quiet")
        let output = URL(fileURLWithPath: try arguments.value("--output") ?? "out/demo")
        let size = try self.size(arguments)
        let fps = try arguments.framesPerSecond(default: 10, maximum: 60)
        guard fps >= 1 else { throw WaymarkError(.usage, "--fps must be at least 1 for the sample; got \(fps)") }
        let coaching = try arguments.coaching(defaultGoal: .anySurface)
        guard let posters = Walkthrough.debianPosterFolder else {
            throw WaymarkError(.missingInput, "the sample needs Debian's opencv-doc images (make setup installs opencv-doc)")
        }
        let sequence = output.appendingPathComponent("walkthrough")
        do {
            try FileManager.default.createDirectory(at: output, withIntermediateDirectories: true)
            let walk = try Walkthrough(posterFolder: posters, width: size.width, height: size.height, framesPerSecond: fps,
                                       script: .coaching)
            var progress = Progress(total: walk.frames.count, quiet: quiet)
            if !quiet { Console.write("waymark: rendering the sample walk-through into \(sequence.path)\n") }
            try WalkthroughWriter.write(walk, to: sequence) { written, _ in progress.update(frames: written + 1) }
            progress.finish()
            let manifest: [String: Any] = ["images": walk.posters.map {
                ["name": $0.name, "path": $0.imagePath, "physicalWidth": $0.physicalWidth] as [String: Any]
            }]
            try JSONSerialization.data(withJSONObject: manifest, options: [.prettyPrinted, .sortedKeys])
                .write(to: sequence.appendingPathComponent("references.json"), options: .atomic)
        } catch let error as WaymarkError {
            throw error
        } catch {
            throw WaymarkError(.cannotCreateOutput, "cannot write the sample into \(sequence.path): \(error.localizedDescription)")
        }
        let path = { (name: String) in output.appendingPathComponent(name).path }
        var process = [
            "--references", sequence.appendingPathComponent("references.json").path,
            "--output", path("results.jsonl"), "--annotate", path("annotated.mp4"), "--report", path("report.html"),
            "--save-map", path("world.waymap"),
            "--place", "lamp:\(Int(3 * fps)):\(size.width / 2),\(size.height * 4 / 5)",
        ]
        process += ["--language", coaching.language.rawValue, "--goal", coaching.goal.rawValue]
        if quiet { process.append("--quiet") }
        let status = try ProcessCommand.run(try Arguments(
            [sequence.path] + process, valueOptions: ProcessCommand.valueOptions, flagOptions: ProcessCommand.flagOptions))
        if !quiet, status == .ok {
            Console.write("""
                waymark demo: done.
                  \(path("annotated.mp4"))   the video with surfaces, images and coaching drawn on it
                  \(path("report.html"))     the run at a glance: open it in a browser
                  \(path("results.jsonl"))   one JSON record per frame (docs/OUTPUT.md)
                  \(path("world.waymap"))    the world map, to resume from (waymark process --load-map)

                """)
        }
        return status
    }

    private static func size(_ arguments: Arguments) throws(WaymarkError) -> (width: Int, height: Int) {
        let text = try arguments.value("--size") ?? "640x480"
        let parts = text.split(separator: "x", omittingEmptySubsequences: false).compactMap { Int($0) }
        guard parts.count == 2, (160...1920).contains(parts[0]), (120...1080).contains(parts[1]), parts[0] % 2 == 0,
            parts[1] % 2 == 0
        else {
            throw WaymarkError(.usage, "--size must be WxH, even numbers from 160x120 to 1920x1080; got '\(text)'")
        }
        return (parts[0], parts[1])
    }
}
