import Foundation
import Waymark

/// Finds the subcommand (one or two words) and runs it; every failure becomes a one-line
/// message and an exit code.
func runMain(_ tokens: [String]) -> ExitCode {
    guard let first = tokens.first else {
        let names = commands.map { $0.name }.joined(separator: ", ")
        Console.write("waymark: a command is needed: " + names + ".\nTry `waymark demo`, or see `waymark --help`.\n")
        return .usage
    }
    switch first {
    case "--version":
        return Console.output(versionText())
    case "--help", "-h", "help":
        return Console.output(mainHelp)
    default: break
    }
    let twoWords = tokens.count > 1 ? "\(tokens[0]) \(tokens[1])" : ""
    guard let command = commands.first(where: { $0.name == twoWords }) ?? commands.first(where: { $0.name == first })
    else {
        Console.error(first == "references"
            ? "references needs a subcommand: check; see `waymark references check --help`"
            : first == "map" ? "map needs a subcommand: build; see `waymark map build --help`"
            : first == "bag" ? "bag needs a subcommand: info; see `waymark bag info --help`"
            : "unknown command '\(first)'; see waymark --help")
        return .usage
    }
    let rest = Array(tokens.dropFirst(command.name.split(separator: " ").count))
    do {
        let arguments = try Arguments(rest, valueOptions: command.valueOptions, flagOptions: command.flagOptions)
        if arguments.flag("--help") {
            return Console.output(command.help)
        }
        return try command.run(arguments)
    } catch {
        Console.error(error.message)
        return ExitCode(error.kind)
    }
}

exit(runMain(Array(CommandLine.arguments.dropFirst())).rawValue)
