import Foundation

extension DetectionSuite {
    static let startupRuns = 20

    /// Whole-process start-up: `waymark --version` against the Python start a user of the
    /// OpenCV baseline pays (`import cv2`). Process start is the thing measured, so this one
    /// part times whole processes.
    func startup() throws {
        let waymark = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("waymark")
        guard FileManager.default.isExecutableFile(atPath: waymark.path) else {
            print("### Start-up\n\nskipped: build the waymark executable next to waymark-bench first (make build)\n")
            return
        }
        var rows: [(String, Summary)] = [
            ("/bin/true (the cost of starting any process from here)", try timeProcess("/bin/true", [])),
            ("waymark --version", try timeProcess(waymark.path, ["--version"])),
        ]
        if let baseline {
            rows.append(("python3 -c 'import cv2' (OpenCV baseline)", try timeProcess(baseline.python, ["-c", "import cv2"])))
        }
        print("### Start-up: whole process, \(Self.startupRuns) runs after one warm-up\n")
        print("| command | median ms | p90 ms |")
        print("|---|---|---|")
        for (name, time) in rows { print("| \(name) | \(format(time.median, 1)) | \(format(time.p90, 1)) |") }
        print("")
    }

    /// posix_spawn and waitpid directly: Foundation's Process waits in coarse steps (~50 ms).
    private func timeProcess(_ executable: String, _ arguments: [String]) throws -> Summary {
        func once() throws -> Double {
            var actions = posix_spawn_file_actions_t()
            posix_spawn_file_actions_init(&actions)
            defer { posix_spawn_file_actions_destroy(&actions) }
            posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
            posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
            let argv = ([executable] + arguments).map { strdup($0) } + [nil]
            defer { argv.forEach { free($0) } }
            var pid: pid_t = 0
            var status: Int32 = 0
            let (spawned, ms) = milliseconds { () -> Int32 in
                let result = posix_spawn(&pid, executable, &actions, nil, argv, environ)
                if result == 0 { waitpid(pid, &status, 0) }
                return result
            }
            guard spawned == 0, status == 0 else { throw BenchError("\(executable) failed to run (\(spawned), status \(status))") }
            return ms
        }
        _ = try once()
        return Summary(try (0..<Self.startupRuns).map { _ in try once() })
    }
}
