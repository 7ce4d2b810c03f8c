import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// What a finished child process left behind.
public struct CommandResult: Sendable {
    /// The exit status, or the signal number when `signaled`.
    public var status: Int32
    public var signaled: Bool
    public var timedOut: Bool
    public var stdout: Data
    public var stderr: Data

    public var output: String { String(decoding: stdout, as: UTF8.self) }
    public var errorOutput: String { String(decoding: stderr, as: UTF8.self) }
    public var succeeded: Bool { !signaled && !timedOut && status == 0 }

    /// Everything the process said, for failure messages.
    public var transcript: String {
        """
        exit \(signaled ? "signal " : "")\(status)\(timedOut ? " (timed out)" : "")
        stdout:
        \(output)
        stderr:
        \(errorOutput)
        """
    }
}

/// Finds and runs the command-line programs tests and fixtures drive (ffmpeg, ffprobe, curl,
/// chromium, python3).
public enum ExternalCommand {
    /// The program's path on PATH, or nil when it is not installed.
    public static func path(of name: String) -> String? {
        if name.hasPrefix("/") {
            return FileManager.default.isExecutableFile(atPath: name) ? name : nil
        }
        let searchPath = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/local/bin:/usr/bin:/bin"
        for directory in searchPath.split(separator: ":") where !directory.isEmpty {
            let candidate = "\(directory)/\(name)"
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
        }
        return nil
    }

    /// Runs `executable` (a path, or a name looked up on PATH) with `arguments` and waits for it
    /// without blocking a thread (see `ChildProcess`). Output goes to temporary files rather than
    /// pipes, so a chatty child never stalls on a full pipe. After `timeout` the child is killed (SIGKILL) and the
    /// result says `timedOut`.
    public static func run(
        _ executable: String,
        _ arguments: [String],
        environment: [String: String]? = nil,
        currentDirectory: String? = nil,
        timeout: Duration = .seconds(120)
    ) async throws -> CommandResult {
        guard let resolved = path(of: executable) else {
            throw ExternalCommandError.notInstalled(executable)
        }
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent(
            "tuner-command-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: scratch) }
        let outPath = scratch.appendingPathComponent("stdout").path
        let errPath = scratch.appendingPathComponent("stderr").path

        let child = try ChildProcess(
            resolved, arguments, environment: environment, currentDirectory: currentDirectory,
            standardOutput: .file(outPath), standardError: .file(errPath))
        let watchdog = Task {
            try await Task.sleep(for: timeout)
            child.send(SIGKILL)
            return true
        }
        let termination = await child.wait()
        watchdog.cancel()
        let timedOut = (try? await watchdog.value) ?? false
        return CommandResult(
            status: termination.status,
            signaled: termination.signaled,
            timedOut: timedOut,
            stdout: FileManager.default.contents(atPath: outPath) ?? Data(),
            stderr: FileManager.default.contents(atPath: errPath) ?? Data()
        )
    }
}

/// Why a command could not run.
public enum ExternalCommandError: Error, CustomStringConvertible {
    /// The program is not on PATH.
    case notInstalled(String)

    public var description: String {
        switch self {
        case .notInstalled(let name):
            let hint = ["ffmpeg": "apt-get install ffmpeg", "ffprobe": "apt-get install ffmpeg"][name]
            return "\(name) is not installed (not found on PATH)" + (hint.map { "; install it with `\($0)`" } ?? "")
        }
    }
}
