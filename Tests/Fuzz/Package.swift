// swift-tools-version:6.2
import PackageDescription

// libFuzzer targets for Waymark's file readers, a package of their own so that the main build
// never sees them: `make fuzz` builds them with `--sanitize=fuzzer --sanitize=address`, and
// libFuzzer supplies `main`. Each target writes its input where the reader expects a file and
// calls the public reader, so the fuzzer reaches what a user's file reaches.
let strict: [SwiftSetting] = [.treatAllWarnings(as: .error)]

let readers = ["manifest", "ply", "pcd", "image", "tum", "waymap"]

let package = Package(
    name: "WaymarkFuzz",
    dependencies: [.package(name: "Waymark", path: "../..")],
    targets: [
        .target(
            name: "FuzzSupport", dependencies: [.product(name: "Waymark", package: "Waymark")], swiftSettings: strict),
    ] + readers.map { reader in
        .executableTarget(
            name: "fuzz-\(reader)",
            dependencies: ["FuzzSupport", .product(name: "Waymark", package: "Waymark")],
            swiftSettings: strict)
    }
)
