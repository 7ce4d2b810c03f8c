// swift-tools-version:6.0
import PackageDescription

// Coverage-guided fuzzing of the parsers that read what strangers send (libFuzzer, Linux).
// Built separately from the main package because every module is compiled with
// `-sanitize=fuzzer`: `scripts/fuzz` builds and runs it.
let package = Package(
    name: "TunerFuzz",
    platforms: [.macOS(.v15)],
    dependencies: [
        .package(name: "Tuner", path: ".."),
        // For the proxy-URL decoder (Linked/StreamLink.swift); the same packages the main one uses.
        .package(url: "https://github.com/apple/swift-crypto.git", from: "3.12.3"),
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.101.2"),
    ],
    targets: [
        .executableTarget(
            name: "TunerFuzz",
            dependencies: [
                .product(name: "MediaFormats", package: "Tuner"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
            ],
            swiftSettings: [.unsafeFlags(["-parse-as-library"])])
    ]
)
