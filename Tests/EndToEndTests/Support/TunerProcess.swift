import Foundation
import Testing
import TunerTesting

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The built `tuner` binary, run as a user would: one-shot commands, and `tuner serve` kept running
/// in the background until a signal stops it.
final class TunerProcess: Sendable {
    /// The data folder the server was started with.
    let dataDirectory: String
    /// `http://127.0.0.1:<port>`, as the server printed it.
    let baseURL: String
    let port: Int
    /// Where the server's stderr (its log) goes, for failure messages.
    let logPath: String

    private let process: ChildProcess

    private init(process: ChildProcess, dataDirectory: String, baseURL: String, port: Int, logPath: String) {
        self.process = process
        self.dataDirectory = dataDirectory
        self.baseURL = baseURL
        self.port = port
        self.logPath = logPath
    }

    /// A test that fails before stopping its server must not leave it running.
    deinit {
        process.send(SIGKILL)
    }

    // MARK: The binary

    /// The `tuner` executable: `TUNER_BINARY` when set, else the one SwiftPM built next to this
    /// test bundle (depending on the executable target makes SwiftPM build it first).
    static let binary: String = {
        if let path = ProcessInfo.processInfo.environment["TUNER_BINARY"], !path.isEmpty { return path }
        var candidates: [URL] = []
        let argument0 = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
        candidates.append(argument0.deletingLastPathComponent())
        if let executable = Bundle.main.executableURL { candidates.append(executable.deletingLastPathComponent()) }
        // On Linux the tests run from `<build>/<Package>PackageTests.xctest`; on macOS from inside
        // `<build>/<Package>PackageTests.xctest/Contents/MacOS/`.
        var walking = argument0
        for _ in 0..<4 {
            walking.deleteLastPathComponent()
            candidates.append(walking)
        }
        for directory in candidates {
            let path = directory.appendingPathComponent("tuner").path
            var isDirectory: ObjCBool = false
            if FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), !isDirectory.boolValue,
                FileManager.default.isExecutableFile(atPath: path)
            {
                return path
            }
        }
        return argument0.deletingLastPathComponent().appendingPathComponent("tuner").path
    }()

    /// Runs `tuner <arguments>` to completion.
    static func run(_ arguments: [String], environment: [String: String]? = nil, timeout: Duration = .seconds(60))
        async throws -> ProcessResult
    {
        // In the PostgreSQL pass, a command on a data folder uses that folder's database.
        try await Subprocess.run(
            binary, try await EndToEndDatabase.arguments(arguments), environment: environment, timeout: timeout)
    }

    // MARK: The server

    /// Starts `tuner serve --port 0 --data <dataDirectory>` and returns once it printed the address
    /// it listens on. `launcher` comes first when given (`ip netns exec NS`, which execs the
    /// server: signals still reach it).
    static func serve(
        data dataDirectory: String, arguments extra: [String] = [], logPath: String? = nil,
        environment: [String: String] = [:], launcher: [String] = [],
        sourceLocation: SourceLocation = #_sourceLocation
    ) async throws -> TunerProcess {
        let binary = Self.binary
        guard FileManager.default.isExecutableFile(atPath: binary) else {
            Issue.record(
                "no tuner binary at \(binary): build with `swift build --build-tests` or set TUNER_BINARY",
                sourceLocation: sourceLocation)
            throw EndToEndError("no tuner binary at \(binary)")
        }
        let logPath =
            logPath ?? (dataDirectory as NSString).deletingLastPathComponent
            + "/serve-\(UUID().uuidString.prefix(8)).log"
        let stdoutPath = logPath + ".stdout"
        // In the PostgreSQL pass, the folder's state is in a database of the test server.
        // HDHomeRun discovery's UDP port is one per machine: only a test that asks for it gets it,
        // so servers of other suites running at the same time never answer (or take) its packets.
        let discovery = extra.contains("--hdhomerun-discovery-port") ? [] : ["--hdhomerun-discovery-port", "0"]
        let command =
            launcher + [binary]
            + (try await EndToEndDatabase.arguments(
                ["serve", "--port", "0", "--data", dataDirectory] + discovery + extra))
        let process = try ChildProcess(
            command[0], Array(command.dropFirst()),
            environment: Subprocess.childEnvironment().merging(environment) { $1 },
            standardOutput: .file(stdoutPath), standardError: .file(logPath))

        // A debug build on a loaded machine records a large catalogue's channel numbers before it
        // listens (tens of seconds on PostgreSQL); the limit is for a server that never listens.
        let deadline = ContinuousClock.now + .seconds(180)
        var printed = ""
        while ContinuousClock.now < deadline {
            printed = (try? String(contentsOfFile: stdoutPath, encoding: .utf8)) ?? ""
            for line in printed.split(separator: "\n") where line.hasPrefix("Tuner listening on http://127.0.0.1:") {
                let address = String(line.dropFirst("Tuner listening on ".count)).trimmingCharacters(in: .whitespaces)
                if let port = Int(address.split(separator: ":").last ?? "") {
                    return TunerProcess(
                        process: process, dataDirectory: dataDirectory, baseURL: address, port: port, logPath: logPath)
                }
            }
            if !process.isRunning { break }
            try await Task.sleep(for: .milliseconds(20))
        }
        process.send(SIGKILL)
        let log = (try? String(contentsOfFile: logPath, encoding: .utf8)) ?? ""
        throw EndToEndError("tuner serve did not print its address within 180 s\nstdout:\n\(printed)\nlog:\n\(log)")
    }

    var pid: Int32 { process.processIdentifier }
    var isRunning: Bool { process.isRunning }

    /// The server's log so far.
    var log: String { (try? String(contentsOfFile: logPath, encoding: .utf8)) ?? "" }

    /// Sends `signal` and waits (at most `timeout`) for the process to end; returns how it ended.
    /// A server that outlives the timeout is killed, and the result says `timedOut`.
    @discardableResult
    func stop(signal: Int32 = SIGTERM, timeout: Duration = .seconds(20)) async -> (
        status: Int32, signaled: Bool, timedOut: Bool
    ) {
        process.send(signal)
        let process = self.process
        let watchdog = Task {
            try await Task.sleep(for: timeout)
            process.send(SIGKILL)
            return true
        }
        let termination = await process.wait()
        watchdog.cancel()
        let timedOut = (try? await watchdog.value) ?? false
        return (termination.status, termination.signaled, timedOut)
    }

    /// `kill -9`: the server gets no chance to save anything.
    func kill9() async {
        await stop(signal: SIGKILL)
    }

    /// `<data>/server.url`, which the server writes when it listens and removes when it stops.
    var serverURLFile: String { dataDirectory + "/server.url" }
}

/// A test setup step that failed, with what the process said.
struct EndToEndError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
