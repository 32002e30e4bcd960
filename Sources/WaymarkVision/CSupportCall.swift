import CSupport
import WaymarkCore

/// Runs a CSupport call and turns a failed status into a typed error.
@inline(__always)
func check(_ call: (UnsafeMutablePointer<cs_error>) -> cs_status) throws(WaymarkError) {
    var error = cs_error()
    let status = call(&error)
    guard status != CS_OK else { return }
    throw WaymarkError(kind(of: status), message(of: &error))
}

/// For calls whose failure can only be a programming error (valid handles, sizes checked).
@inline(__always)
func checkInvariant(_ call: (UnsafeMutablePointer<cs_error>) -> cs_status) {
    var error = cs_error()
    let status = call(&error)
    precondition(status == CS_OK, "CSupport: \(message(of: &error))")
}

private func kind(of status: cs_status) -> WaymarkError.Kind {
    switch status {
    case CS_NOT_FOUND: .missingInput
    case CS_DECODE_FAILED: .badData
    case CS_IO_FAILED: .cannotCreateOutput
    case CS_INVALID_ARGUMENT: .usage
    default: .internal
    }
}

private func message(of error: inout cs_error) -> String {
    withUnsafeBytes(of: &error.message) { raw in
        String(decoding: raw.prefix(while: { $0 != 0 }), as: UTF8.self)
    }
}
