import CSupport

public struct LibraryVersions: Sendable {
    public var opencv: String
    public var eigen: String

    public static var current: LibraryVersions {
        var v = cs_versions()
        checkInvariant { cs_get_versions(&v, $0) }
        func text<T>(_ tuple: inout T) -> String {
            withUnsafeBytes(of: &tuple) { String(decoding: $0.prefix(while: { $0 != 0 }), as: UTF8.self) }
        }
        return LibraryVersions(opencv: text(&v.opencv), eigen: text(&v.eigen))
    }
}
