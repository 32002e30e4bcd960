import Synchronization
import Foundation

/// The bytes of a regular file (symbolic links followed). An absent file is a missing input;
/// a folder, a FIFO or a device is bad data, refused before it is opened, since reading a FIFO
/// waits for a writer that may never come; so is a file larger than `maxBytes`.
public func readFileBytes(_ path: String, maxBytes: Int = .max) throws(WaymarkError) -> [UInt8] {
    let size = try regularFileSize(path)
    guard size <= maxBytes else {
        throw WaymarkError(.badData, "\(path) is \(size) bytes, more than the \(maxBytes) this input may have")
    }
    // Straight into the array: frames are read this way, and going through Data copied each twice.
    let descriptor = open(path, O_RDONLY | O_CLOEXEC)
    guard descriptor >= 0 else { throw WaymarkError(.badData, "cannot read \(path): \(String(cString: strerror(errno)))") }
    defer { close(descriptor) }
    let bytes = [UInt8](uninitializedCapacity: size) { buffer, count in
        count = 0
        while count < size, let start = buffer.baseAddress {
            let n = read(descriptor, start + count, size - count)
            if n <= 0 { break }
            count += n
        }
    }
    guard bytes.count == size else { throw WaymarkError(.badData, "cannot read \(path): it changed while being read") }
    return bytes
}

/// The size of the regular file at `path`, or the reason it is not one.
public func regularFileSize(_ path: String) throws(WaymarkError) -> Int {
    var info = stat()
    guard stat(path, &info) == 0 else {
        switch errno {
        case ENOENT, ENOTDIR: throw WaymarkError(.missingInput, "no such file: \(path)")
        case ELOOP: throw WaymarkError(.badData, "\(path) is a loop of symbolic links")
        case EACCES: throw WaymarkError(.badData, "\(path) cannot be read: permission denied")
        default: throw WaymarkError(.badData, "cannot read \(path): \(String(cString: strerror(errno)))")
        }
    }
    switch info.st_mode & S_IFMT {
    case S_IFREG: return Int(info.st_size)
    case S_IFDIR: throw WaymarkError(.badData, "is a directory, not a file: \(path)")
    case S_IFIFO: throw WaymarkError(.badData, "\(path) is a FIFO (named pipe), not a regular file")
    case S_IFSOCK: throw WaymarkError(.badData, "\(path) is a socket, not a regular file")
    default: throw WaymarkError(.badData, "\(path) is a device, not a regular file")
    }
}

/// A hidden file beside `path` (same folder, so a rename replaces `path` in one step) whose
/// name no other process, and no other output of this one, uses at the same time:
/// `.NAME.PID-N.partial`, plus `path`'s extension, which some writers choose the format by.
public func temporarySibling(of path: String) -> String {
    let (folder, file) = splitFolder(path)
    let dot = file.lastIndex(of: ".").map { file[$0...] } ?? ""
    let name = ".\(file).\(getpid())-\(TemporaryNames.next()).partial\(dot.count > 1 ? dot : "")"
    return folder.map { $0 + "/" + name } ?? name
}

/// The folder part of `path` (nil for a bare name; "" for a file in the root) and the file's name.
public func splitFolder(_ path: String) -> (folder: String?, file: String) {
    guard let slash = path.lastIndex(of: "/") else { return (nil, path) }
    return (String(path[..<slash]), String(path[path.index(after: slash)...]))
}

private enum TemporaryNames {
    private static let counter = Mutex(0)

    static func next() -> Int { counter.withLock { value in value += 1; return value } }
}
