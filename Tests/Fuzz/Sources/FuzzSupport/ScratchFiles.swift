import Foundation
import Glibc

/// Files a fuzz target hands to a reader: one folder per process in /dev/shm (memory, so that
/// an execution costs no disk I/O), made on first use and removed when libFuzzer exits.
public enum ScratchFiles {
    public static let folder: String = {
        let path = "/dev/shm/waymark-fuzz-\(getpid())"
        mkdir(path, 0o700)
        atexit { try? FileManager.default.removeItem(atPath: ScratchFiles.folder) }
        return path
    }()

    /// Replaces `name` in the scratch folder with `bytes` and returns its path.
    @discardableResult
    public static func write<Bytes: Collection<UInt8>>(_ bytes: Bytes, as name: String) -> String {
        let path = folder + "/" + name
        let descriptor = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        precondition(descriptor >= 0, "cannot write the scratch file \(path)")
        defer { close(descriptor) }
        let contiguous = Array(bytes)
        var written = 0
        while written < contiguous.count {
            let n = contiguous.withUnsafeBytes { Glibc.write(descriptor, $0.baseAddress! + written, contiguous.count - written) }
            precondition(n > 0, "cannot write the scratch file \(path)")
            written += n
        }
        return path
    }

    public static func remove(_ name: String) {
        unlink(folder + "/" + name)
    }

    /// libFuzzer's input as bytes.
    public static func bytes(_ data: UnsafePointer<UInt8>?, _ size: Int) -> UnsafeBufferPointer<UInt8> {
        UnsafeBufferPointer(start: data, count: data == nil ? 0 : size)
    }

    /// The input cut at each occurrence of `separator` into at most `parts` pieces, so that one
    /// input can hold several files (the last piece keeps any further separators).
    public static func split(_ input: UnsafeBufferPointer<UInt8>, at separator: [UInt8], parts: Int) -> [ArraySlice<UInt8>] {
        let all = Array(input)
        var pieces: [ArraySlice<UInt8>] = []
        var start = 0
        var i = 0
        while i + separator.count <= all.count, pieces.count < parts - 1 {
            if all[i..<(i + separator.count)].elementsEqual(separator) {
                pieces.append(all[start..<i])
                i += separator.count
                start = i
            } else {
                i += 1
            }
        }
        pieces.append(all[start...])
        return pieces
    }
}
