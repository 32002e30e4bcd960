import Foundation

/// ROS 2 bags of the TUM fr1/xyz excerpt, written once per test run by Datasets/write-ros-bag.py
/// with the rosbags package in the virtual environment `make test` makes (.build/bag-python).
public enum BagFixtures {
    public static let python = SharedDatasets.repositoryRoot.appendingPathComponent(".build/bag-python/bin/python").path
    public static let tum = "tum_fr1_xyz_excerpt"
    public static let intrinsics = "517.3,516.5,318.6,255.3"

    public static var available: Bool {
        FileManager.default.isExecutableFile(atPath: python) && SharedDatasets.has("\(tum)/rgb.txt")
    }

    /// Where the bags are, for the whole run (a Scratch removes its folder when it goes).
    nonisolated(unsafe) static let scratch = try? Scratch()

    /// The bags: "mcap" (zstd chunks), "mcap-lz4", "mcap-plain" (uncompressed chunks), "sqlite3".
    public static let bags: [String: String] = {
        guard available, let scratch else { return [:] }
        var made: [String: String] = [:]
        for (name, options) in [
            ("mcap", ["--storage", "mcap"]), ("mcap-lz4", ["--storage", "mcap", "--chunks", "lz4"]),
            ("mcap-plain", ["--storage", "mcap", "--chunks", "none"]), ("sqlite3", ["--storage", "sqlite3"]),
        ] {
            let bag = scratch.path(name)
            if (try? write(bag, options)) != nil { made[name] = bag }
        }
        return made
    }()

    /// Writes the excerpt (or the TUM-layout folder `source`, with its own intrinsics.txt) as a
    /// bag at `bag` with the generator's `options`.
    public static func write(_ bag: String, _ options: [String], from source: String? = nil) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: python)
        process.arguments = [
            SharedDatasets.repositoryRoot.appendingPathComponent("Datasets/write-ros-bag.py").path,
            source ?? SharedDatasets.path(tum)!, bag,
        ] + (source == nil ? ["--intrinsics", intrinsics] : []) + options
        try process.run()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else { throw CocoaError(.fileWriteUnknown) }
    }

    /// The storage file inside a bag folder.
    public static func storageFile(of bag: String) throws -> String {
        let names = try FileManager.default.contentsOfDirectory(atPath: bag)
        return bag + "/" + names.first { $0.hasSuffix(".mcap") || $0.hasSuffix(".db3") }!
    }

    /// A TUM list's timestamps, in nanoseconds, read exactly from their decimal text.
    public static func stamps(_ list: String) throws -> [Int64] {
        let text = try String(contentsOfFile: SharedDatasets.path("\(tum)/\(list)")!, encoding: .utf8)
        return text.split(separator: "\n").filter { !$0.hasPrefix("#") && !$0.isEmpty }.map { line in
            let stamp = line.split(separator: " ")[0]
            let parts = stamp.split(separator: ".", omittingEmptySubsequences: false)
            let fraction = String((String(parts.count > 1 ? parts[1] : "") + "000000000").prefix(9))
            return Int64(parts[0])! * 1_000_000_000 + Int64(fraction)!
        }
    }
}
