import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// What a finished child process left behind.
struct ProcessResult: Sendable {
    /// The exit status, or the signal number when `signaled`.
    var status: Int32
    var signaled: Bool
    var timedOut: Bool
    var stdout: Data
    var stderr: Data

    var output: String { String(decoding: stdout, as: UTF8.self) }
    var errorOutput: String { String(decoding: stderr, as: UTF8.self) }
    var succeeded: Bool { !signaled && !timedOut && status == 0 }

    /// Everything the process said, for failure messages.
    var transcript: String {
        "exit \(signaled ? "signal " : "")\(status)\(timedOut ? " (timed out)" : "")\nstdout:\n\(output)\nstderr:\n\(errorOutput)"
    }
}

/// Runs programs to completion, as a shell would.
enum Subprocess {
    /// Runs `executable` with `arguments` and waits for it. Output goes to temporary files rather
    /// than pipes, so a chatty child never blocks on a full pipe while nobody reads it.
    static func run(
        _ executable: String, _ arguments: [String], environment: [String: String]? = nil,
        timeout: Duration = .seconds(60)
    ) async throws -> ProcessResult {
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("tuner-e2e-run-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: scratch) }
        let outPath = scratch.appendingPathComponent("stdout").path
        let errPath = scratch.appendingPathComponent("stderr").path
        FileManager.default.createFile(atPath: outPath, contents: nil)
        FileManager.default.createFile(atPath: errPath, contents: nil)
        let outHandle = try FileHandle(forWritingTo: URL(fileURLWithPath: outPath))
        let errHandle = try FileHandle(forWritingTo: URL(fileURLWithPath: errPath))

        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        process.environment = environment ?? childEnvironment()
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = outHandle
        process.standardError = errHandle
        let exited = AsyncStream<Void>.makeStream()
        process.terminationHandler = { _ in exited.continuation.finish() }
        try process.run()
        try? outHandle.close()
        try? errHandle.close()

        let pid = process.processIdentifier
        let watchdog = Task {
            try await Task.sleep(for: timeout)
            kill(pid, SIGKILL)
            return true
        }
        for await _ in exited.stream {}
        watchdog.cancel()
        let timedOut = (try? await watchdog.value) ?? false
        return ProcessResult(
            status: process.terminationStatus, signaled: process.terminationReason == .uncaughtSignal, timedOut: timedOut,
            stdout: FileManager.default.contents(atPath: outPath) ?? Data(),
            stderr: FileManager.default.contents(atPath: errPath) ?? Data())
    }

    /// This process's environment without the `TUNER_*` settings of whoever runs the tests, so a
    /// developer's own server or data folder never leaks into a test.
    static func childEnvironment() -> [String: String] {
        ProcessInfo.processInfo.environment.filter { !$0.key.hasPrefix("TUNER_") && $0.key != "LOG_LEVEL" }
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

/// A value shared between threads (process handlers run on Foundation's threads), behind a lock.
final class LockedBox<Value>: @unchecked Sendable {
    private let lock = NSLock()
    private var value: Value

    init(_ value: Value) { self.value = value }

    func withLockedValue<T>(_ body: (inout Value) throws -> T) rethrows -> T {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }
}
