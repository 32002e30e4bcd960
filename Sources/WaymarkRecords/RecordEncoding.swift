import Foundation
import Waymark

/// The versioned schemas of the `waymark` commands' JSON Lines (docs/OUTPUT.md says what each
/// version changed).
public enum RecordSchema {
    public static let detect = "waymark.detect/1"
    public static let process = "waymark.process/7"
    public static let mapBuild = "waymark.map-build/1"
    public static let relocalize = "waymark.relocalize/1"
    public static let planes = "waymark.planes/1"
    public static let referencesCheck = "waymark.references-check/1"
    public static let bagInfo = "waymark.bag-info/1"
}

/// JSON Lines: one record per line, keys sorted so a record reads the same every run, fields
/// that do not apply left out.
public enum RecordCoding {
    public static func line(_ record: some Encodable) throws(WaymarkError) -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        // The engine gives no non-finite number; should one slip through, it is kept readable.
        encoder.nonConformingFloatEncodingStrategy = .convertToString(positiveInfinity: "Infinity", negativeInfinity: "-Infinity", nan: "NaN")
        do {
            return try encoder.encode(record) + Data("\n".utf8)
        } catch {
            throw WaymarkError(.internal, "a record could not be encoded: \(error)")
        }
    }

    /// The records of JSON Lines text, each decoded as `T`.
    public static func records<T: Decodable>(_ type: T.Type, in text: some StringProtocol) throws -> [T] {
        let decoder = JSONDecoder()
        decoder.nonConformingFloatDecodingStrategy = .convertFromString(positiveInfinity: "Infinity", negativeInfinity: "-Infinity", nan: "NaN")
        return try text.split(whereSeparator: \.isNewline).map { try decoder.decode(T.self, from: Data($0.utf8)) }
    }
}

extension RigidTransform {
    /// 16 numbers, the row-major 4×4.
    var record: [Double] { matrix }
}

extension SIMD3<Double> {
    var record: [Double] { [x, y, z] }
}
