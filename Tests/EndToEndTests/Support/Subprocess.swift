import Foundation
import TunerTesting

/// What a finished child process left behind (TunerTesting's result type).
typealias ProcessResult = CommandResult

/// Runs programs to completion, as a shell would.
enum Subprocess {
    /// Runs `executable` with `arguments` and waits for it, through TunerTesting's
    /// `ExternalCommand` (output to files, killed at `timeout`), in an environment without the
    /// caller's `TUNER_*` settings unless one is given.
    static func run(
        _ executable: String, _ arguments: [String], environment: [String: String]? = nil,
        timeout: Duration = .seconds(60)
    ) async throws -> ProcessResult {
        try await ExternalCommand.run(
            executable, arguments, environment: environment ?? childEnvironment(), timeout: timeout)
    }

    /// This process's environment without the `TUNER_*` settings of whoever runs the tests, so a
    /// developer's own server or data folder never leaks into a test.
    /// Only one process can own UDP 65001 (and SSDP's 1900 is the machine's): servers started by
    /// tests answer no HDHomeRun discovery or SSDP unless a test asks for it.
    static func childEnvironment() -> [String: String] {
        ProcessInfo.processInfo.environment.filter { !$0.key.hasPrefix("TUNER_") && $0.key != "LOG_LEVEL" }
            .merging(["TUNER_HDHOMERUN_DISCOVERY_PORT": "0", "TUNER_SSDP_PORT": "0"]) { $1 }
    }
}

/// A temporary folder for one test, removed at the end.
struct Workspace: Sendable {
    let path: String

    init() throws {
        path = FileManager.default.temporaryDirectory.appendingPathComponent("tuner-e2e-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }

    /// A path inside the workspace.
    func file(_ name: String) -> String { path + "/" + name }

    func remove() {
        try? FileManager.default.removeItem(atPath: path)
    }
}
