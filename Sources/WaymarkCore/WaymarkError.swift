/// Bad data and environment failures. "Not found" results are not errors.
public struct WaymarkError: Error, Equatable, Sendable, CustomStringConvertible {
    public enum Kind: String, Sendable {
        /// The caller asked for something malformed (arguments, options).
        case usage
        /// An input exists but its content is wrong: corrupt, empty, inconsistent.
        case badData
        /// An input does not exist.
        case missingInput
        /// An output could not be created.
        case cannotCreateOutput
        /// Writing an output failed part-way.
        case writeFailed
        /// The engine or a library below it failed.
        case `internal`
    }

    public var kind: Kind
    public var message: String

    public init(_ kind: Kind, _ message: String) {
        self.kind = kind
        self.message = message
    }

    public var description: String { message }
}
