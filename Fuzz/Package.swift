// swift-tools-version:6.0
import PackageDescription

// Coverage-guided fuzzing of the parsers that read what strangers send (libFuzzer, Linux).
// Built separately from the main package because every module is compiled with
// `-sanitize=fuzzer`: `scripts/fuzz` builds and runs it.
let package = Package(
    name: "TunerFuzz",
    platforms: [.macOS(.v14)],
    dependencies: [.package(name: "Tuner", path: "..")],
    targets: [
        .executableTarget(
            name: "TunerFuzz",
            dependencies: [.product(name: "MediaFormats", package: "Tuner")],
            swiftSettings: [.unsafeFlags(["-parse-as-library"])]),
    ]
)
