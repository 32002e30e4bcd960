import Foundation
import Waymark

let waymarkVersion = "0.1.0"

/// A subcommand: its help text and what it does with its arguments.
protocol Command: Sendable {
    static var name: String { get }
    static var help: String { get }
    static var valueOptions: Set<String> { get }
    static var flagOptions: Set<String> { get }
    /// Returns the exit code.
    static func run(_ arguments: Arguments) throws(WaymarkError) -> ExitCode
}

let commands: [any Command.Type] = [
    DemoCommand.self, DetectCommand.self, ProcessCommand.self, PlanesCommand.self, ReferencesCheckCommand.self, MapBuildCommand.self,
    RelocalizeCommand.self, BagInfoCommand.self,
]

let mainHelp = """
    waymark \(waymarkVersion): finds known images in photos and videos, surfaces in depth, and where a
    camera is in a world map it saw before.

    Usage:
      waymark demo [--output DIR] [--language en|zh-Hans|zh-Hant]
      waymark detect --references MANIFEST|FOLDER [--group G]... [--auto-select] [--intrinsics fx,fy,cx,cy] IMAGE...
      waymark process VIDEO --references MANIFEST|FOLDER [--auto-select] [--output FILE] [--annotate VIDEO]
      waymark process SEQUENCE [--references ...] [--output FILE] [--annotate VIDEO] [--language L] [--goal G]
      waymark planes INPUT... [--intrinsics fx,fy,cx,cy] [--depth-scale S] [--gravity x,y,z] [--labels DIR]
      waymark references check MANIFEST|FOLDER
      waymark map build SEQUENCE --output MAP.waymap [--poses FILE] [--intrinsics fx,fy,cx,cy] [--depth-scale S]
      waymark relocalize --map MAP.waymap IMAGE [--depth D] [--intrinsics fx,fy,cx,cy] [--depth-scale S]
      waymark process BAG [--color-topic T] [--depth-topic T] [...]   (a ROS 2 bag, MCAP or SQLite)
      waymark bag info BAG
      waymark --version

    Run `waymark COMMAND --help` for a command's options.
    Results are JSON Lines on standard output; messages go to standard error.
    Exit codes: 0 ok, 64 usage, 65 bad data, 66 missing input, 70 internal error,
    73 cannot create output, 74 write error.
    """

func versionText() -> String {
    let versions = LibraryVersions.current
    return "waymark \(waymarkVersion) (OpenCV \(versions.opencv), Eigen \(versions.eigen))"
}
