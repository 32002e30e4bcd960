// swift-tools-version:6.2
import PackageDescription

let strict: [SwiftSetting] = [.treatAllWarnings(as: .error)]

let package = Package(
    name: "Waymark",
    products: [
        .library(name: "Waymark", targets: ["Waymark"]),
        .executable(name: "waymark", targets: ["waymark"]),
        .executable(name: "waymark-bench", targets: ["waymark-bench"]),
    ],
    targets: [
        // OpenCV and Eigen from Debian, through pkg-config. waymark-opencv.pc (CSupport/pkgconfig,
        // installed by `make setup`) lists only the OpenCV modules the shim uses.
        .systemLibrary(
            name: "COpenCV", path: "CSupport/SystemOpenCV", pkgConfig: "waymark-opencv",
            providers: [.apt(["libopencv-dev", "libopencv-contrib-dev"])]),
        .systemLibrary(
            name: "CEigen", path: "CSupport/SystemEigen", pkgConfig: "eigen3",
            providers: [.apt(["libeigen3-dev"])]),
        // Ceres for bundle adjustment; Debian has no pkg-config file for it, so Waymark brings
        // one (CSupport/pkgconfig/waymark-ceres.pc, installed by `make setup`).
        .systemLibrary(
            name: "CCeres", path: "CSupport/SystemCeres", pkgConfig: "waymark-ceres", providers: [.apt(["libceres-dev"])]),
        // ROS 2 bags' storage: MCAP's zstd and LZ4 chunks, and SQLite 3 (WaymarkBags).
        .systemLibrary(name: "CZstd", path: "CSupport/SystemZstd", pkgConfig: "libzstd", providers: [.apt(["libzstd-dev"])]),
        .systemLibrary(name: "CLZ4", path: "CSupport/SystemLZ4", pkgConfig: "liblz4", providers: [.apt(["liblz4-dev"])]),
        .systemLibrary(
            name: "CSQLite", path: "CSupport/SystemSQLite", pkgConfig: "sqlite3", providers: [.apt(["libsqlite3-dev"])]),
        // Optimized in debug builds too: unoptimized Ceres cost functions (Eigen jets) and
        // descriptor scans were three quarters of the reconstruction test's 41 s.
        .target(
            name: "CSupport", dependencies: ["COpenCV", "CEigen", "CCeres"], path: "CSupport/Shim",
            cxxSettings: [.unsafeFlags(["-O2"], .when(configuration: .debug))]),

        .target(name: "WaymarkCore", swiftSettings: strict),
        .target(name: "WaymarkVision", dependencies: ["WaymarkCore", "CSupport"], swiftSettings: strict),
        .target(name: "WaymarkImages", dependencies: ["WaymarkCore", "WaymarkVision"], swiftSettings: strict),
        .target(name: "WaymarkPlanes", dependencies: ["WaymarkCore", "WaymarkVision"], swiftSettings: strict),
        .target(
            name: "WaymarkRelocalization", dependencies: ["WaymarkCore", "WaymarkVision"], swiftSettings: strict),
        .target(name: "WaymarkGuidance", dependencies: ["WaymarkCore"], swiftSettings: strict),
        // ROS 2 bags (MCAP and SQLite 3): their topics and messages, as recorded.
        .target(name: "WaymarkBags", dependencies: ["WaymarkCore", "CZstd", "CLZ4", "CSQLite"], swiftSettings: strict),
        // Frame sources: video files, image folders, RGB-D recordings.
        .target(name: "WaymarkInput", dependencies: ["WaymarkCore", "WaymarkVision", "WaymarkBags"], swiftSettings: strict),
        .target(
            name: "Waymark",
            dependencies: [
                "WaymarkCore", "WaymarkVision", "WaymarkImages", "WaymarkPlanes", "WaymarkRelocalization", "WaymarkGuidance",
                "WaymarkInput", "WaymarkBags",
            ],
            swiftSettings: strict),
        // The built-in sample (`waymark demo`): a synthetic RGB-D walk-through with exact truth.
        // Optimized in debug builds too: the tests render the walk-through frame by frame, and
        // unoptimized rendering was 90 % of a tracking test's time.
        .target(
            name: "WaymarkSamples", dependencies: ["Waymark"],
            swiftSettings: strict + [.unsafeFlags(["-O"], .when(configuration: .debug))]),
        // The commands' JSON Lines as Codable types, one versioned schema per command (docs/OUTPUT.md).
        .target(name: "WaymarkRecords", dependencies: ["Waymark"], swiftSettings: strict),
        .executableTarget(
            name: "waymark", dependencies: ["Waymark", "WaymarkSamples", "WaymarkRecords"], swiftSettings: strict),
        .executableTarget(
            name: "waymark-bench", dependencies: ["Waymark", "TestData", "TestSupport"], path: "Benchmarks/Sources/waymark-bench",
            swiftSettings: strict),

        // Where the shared datasets are and scratch folders: Foundation only, so that the tests
        // of Core and Vision link neither the Session nor the samples.
        .target(name: "TestData", path: "Tests/TestData", swiftSettings: strict),
        // Scenes and ground truth built with the engine (walk-through, synthetic videos, Strecha).
        .target(
            name: "TestSupport", dependencies: ["Waymark", "WaymarkSamples", "TestData"], path: "Tests/TestSupport",
            swiftSettings: strict),
        .testTarget(name: "WaymarkCoreTests", dependencies: ["WaymarkCore", "TestData"], swiftSettings: strict),
        .testTarget(name: "WaymarkVisionTests", dependencies: ["WaymarkVision", "TestData"], swiftSettings: strict),
        .testTarget(
            name: "WaymarkImagesTests", dependencies: ["WaymarkImages", "TestData", "TestSupport"], swiftSettings: strict),
        .testTarget(
            name: "WaymarkPlanesTests", dependencies: ["WaymarkPlanes", "TestData", "TestSupport"], swiftSettings: strict),
        .testTarget(
            name: "WaymarkRelocalizationTests", dependencies: ["WaymarkRelocalization", "TestData", "TestSupport"],
            swiftSettings: strict),
        .testTarget(name: "WaymarkGuidanceTests", dependencies: ["WaymarkGuidance"], swiftSettings: strict),
        .testTarget(name: "WaymarkInputTests", dependencies: ["WaymarkInput", "WaymarkBags", "TestData"], swiftSettings: strict),
        .testTarget(name: "WaymarkBagsTests", dependencies: ["WaymarkBags", "TestData"], swiftSettings: strict),
        .testTarget(name: "WaymarkTests", dependencies: ["Waymark", "TestData", "TestSupport"], swiftSettings: strict),
        .testTarget(
            name: "waymarkCLITests", dependencies: ["TestData", "TestSupport", "WaymarkRecords", "waymark"], swiftSettings: strict),
    ],
    cxxLanguageStandard: .cxx17
)
