import Waymark

/// Exit codes from sysexits.h, as documented in the README.
enum ExitCode: Int32 {
    case ok = 0
    case usage = 64
    case badData = 65
    case missingInput = 66
    case `internal` = 70
    case cannotCreateOutput = 73
    case writeFailed = 74

    init(_ kind: WaymarkError.Kind) {
        switch kind {
        case .usage: self = .usage
        case .badData: self = .badData
        case .missingInput: self = .missingInput
        case .cannotCreateOutput: self = .cannotCreateOutput
        case .writeFailed: self = .writeFailed
        case .internal: self = .internal
        }
    }
}
