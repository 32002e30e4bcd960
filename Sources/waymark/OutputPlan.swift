import Foundation
import Waymark

/// The files a command will write, checked before its first frame against the files it reads
/// and against each other: a run never replaces one of its inputs, two outputs never share a
/// file, and each output's folder exists and takes a new file. Such a mistake fails at once
/// (64 for a collision, 73 for a folder that cannot take the file), not after the whole run.
struct OutputPlan {
    private let inputs: [(path: String, identity: FileIdentity)]
    private var claims: [(option: String, path: String, identity: FileIdentity)] = []

    /// `inputs`: every file the command reads (folders are not outputs' concern: a file is
    /// written into one only by name).
    init(inputs: [String]) {
        self.inputs = inputs.compactMap { path in FileIdentity(existing: path).map { (path, $0) } }
    }

    /// Takes `path`, the value of `option` (or, for a file a command writes into a folder
    /// option, that file), as an output.
    mutating func claim(_ path: String, for option: String) throws(WaymarkError) {
        let (parent, file) = splitFolder(path)
        let folder = parent.map { $0.isEmpty ? "/" : $0 } ?? "."
        guard let canonicalFolder = FileIdentity.canonical(folder) else {
            throw WaymarkError(.cannotCreateOutput, "cannot write \(option) \(path): the folder \(folder) does not exist")
        }
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) {
            guard !isDirectory.boolValue else {
                throw WaymarkError(.cannotCreateOutput, "cannot write \(option) \(path): it is a folder; give a file name")
            }
            guard (try? regularFileSize(path)) != nil else {
                throw WaymarkError(.cannotCreateOutput,
                                   "cannot write \(option) \(path): it is not a regular file (outputs are replaced, not written into)")
            }
        }
        let identity = FileIdentity(existing: path) ?? .path(canonicalFolder + "/" + file)
        if let input = inputs.first(where: { $0.identity == identity }) {
            let alias = input.path == path ? "" : " (it is \(input.path))"
            throw WaymarkError(.usage, "\(option) \(path) would overwrite an input of this run\(alias)")
        }
        if let other = claims.first(where: { $0.identity == identity }) {
            throw WaymarkError(.usage, "\(other.option) and \(option) would both write \(path)")
        }
        try Self.probe(folder: folder, for: path, option: option)
        claims.append((option, path, identity))
    }

    /// Creates and removes a file beside `path`, as its writer will: a read-only, full or
    /// foreign folder says so now.
    private static func probe(folder: String, for path: String, option: String) throws(WaymarkError) {
        let temporary = temporarySibling(of: path)
        let descriptor = open(temporary, O_WRONLY | O_CREAT | O_EXCL, 0o644)
        guard descriptor >= 0 else {
            throw WaymarkError(.cannotCreateOutput,
                               "cannot write \(option) \(path): \(String(cString: strerror(errno))) (in \(folder))")
        }
        close(descriptor)
        unlink(temporary)
    }
}

/// What makes two paths one file: an existing file's device and inode (so links, `..` and
/// symbolic links all lead to it), else the canonical path a new file will have.
enum FileIdentity: Equatable {
    case node(device: UInt64, inode: UInt64)
    case path(String)

    init?(existing path: String) {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        self = .node(device: UInt64(info.st_dev), inode: UInt64(info.st_ino))
    }

    /// The absolute path of an existing folder or file, with every symbolic link resolved.
    static func canonical(_ path: String) -> String? {
        guard let resolved = realpath(path, nil) else { return nil }
        defer { free(resolved) }
        return String(cString: resolved)
    }
}
