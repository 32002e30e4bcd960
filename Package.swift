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
        .target(name: "CSupport", dependencies: ["COpenCV", "CEigen"], path: "CSupport/Shim"),

        .target(name: "WaymarkCore", swiftSettings: strict),
        .target(name: "WaymarkVision", dependencies: ["WaymarkCore", "CSupport"], swiftSettings: strict),
        .target(name: "WaymarkImages", dependencies: ["WaymarkCore", "WaymarkVision"], swiftSettings: strict),
        .target(name: "WaymarkPlanes", dependencies: ["WaymarkCore", "WaymarkVision"], swiftSettings: strict),
        .target(
            name: "WaymarkRelocalization", dependencies: ["WaymarkCore", "WaymarkVision"], swiftSettings: strict),
        .target(name: "WaymarkGuidance", dependencies: ["WaymarkCore"], swiftSettings: strict),
        .target(
            name: "Waymark",
            dependencies: [
                "WaymarkCore", "WaymarkVision", "WaymarkImages", "WaymarkPlanes", "WaymarkRelocalization", "WaymarkGuidance",
            ],
            swiftSettings: strict),
        // The built-in sample (`waymark demo`): a synthetic RGB-D walk-through with exact truth.
        .target(name: "WaymarkSamples", dependencies: ["Waymark"], swiftSettings: strict),
        .executableTarget(name: "waymark", dependencies: ["Waymark", "WaymarkSamples"], swiftSettings: strict),
        .executableTarget(
            name: "waymark-bench", dependencies: ["Waymark", "TestSupport"], path: "Benchmarks/Sources/waymark-bench",
            swiftSettings: strict),

        .target(
            name: "TestSupport", dependencies: ["Waymark", "WaymarkSamples"], path: "Tests/TestSupport", swiftSettings: strict),
        .testTarget(name: "WaymarkCoreTests", dependencies: ["WaymarkCore", "TestSupport"], swiftSettings: strict),
        .testTarget(
            name: "WaymarkVisionTests", dependencies: ["WaymarkVision", "TestSupport"], swiftSettings: strict),
        .testTarget(
            name: "WaymarkImagesTests", dependencies: ["WaymarkImages", "TestSupport"], swiftSettings: strict),
        .testTarget(
            name: "WaymarkPlanesTests", dependencies: ["WaymarkPlanes", "TestSupport"], swiftSettings: strict),
        .testTarget(
            name: "WaymarkRelocalizationTests", dependencies: ["WaymarkRelocalization", "TestSupport"],
            swiftSettings: strict),
        .testTarget(
            name: "WaymarkGuidanceTests", dependencies: ["WaymarkGuidance", "TestSupport"], swiftSettings: strict),
        .testTarget(name: "WaymarkTests", dependencies: ["Waymark", "TestSupport"], swiftSettings: strict),
        .testTarget(name: "waymarkCLITests", dependencies: ["TestSupport", "waymark"], swiftSettings: strict),
    ],
    cxxLanguageStandard: .cxx17
)
