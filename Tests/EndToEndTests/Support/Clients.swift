import AsyncHTTPClient
import Foundation
import NIOCore
import Testing
import TunerTesting

/// What curl received: the status and headers of the last response, and the body.
struct CurlResponse: Sendable {
    var status: Int
    var headers: [(String, String)]
    var body: [UInt8]
    var process: ProcessResult

    func header(_ name: String) -> String? {
        headers.first { $0.0.lowercased() == name.lowercased() }?.1
    }
}

/// curl, as a user runs it.
enum Curl {
    /// Runs `curl <options> <url>`, capturing the response head (`-D`) and the body (`-o`). Without
    /// `bodyPath` the body is read back into memory and the file removed. `launcher` comes first
    /// when given (`ip netns exec NS`: curl on another network).
    static func fetch(
        _ curl: String, _ url: String, options: [String] = [], bodyPath: String? = nil,
        timeout: Duration = .seconds(120), launcher: [String] = []
    ) async throws -> CurlResponse {
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent(
            "tuner-e2e-curl-\(UUID().uuidString)"
        ).path
        try FileManager.default.createDirectory(atPath: scratch, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: scratch) }
        let headerPath = scratch + "/head"
        let output = bodyPath ?? scratch + "/body"
        let command =
            launcher + [
                curl, "-s", "-S", "--max-time", "\(timeout.components.seconds)", "-D", headerPath, "-o", output,
            ]
            + options + [url]
        let result = try await Subprocess.run(command[0], Array(command.dropFirst()), timeout: timeout + .seconds(5))
        let (status, headers) = lastHead(in: headerPath)
        let body = bodyPath == nil ? [UInt8](FileManager.default.contents(atPath: output) ?? Data()) : []
        return CurlResponse(status: status, headers: headers, body: body, process: result)
    }

    /// The status and headers of the last response head curl wrote with `-D` (a 100 Continue or
    /// redirect may precede it).
    static func lastHead(in path: String) -> (status: Int, headers: [(String, String)]) {
        let head = (try? String(contentsOfFile: path, encoding: .utf8)) ?? ""
        let blocks = head.components(separatedBy: "\r\n\r\n").filter {
            !$0.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty
        }
        var status = 0
        var headers: [(String, String)] = []
        if let last = blocks.last {
            let lines = last.components(separatedBy: "\r\n")
            if let statusLine = lines.first {
                let parts = statusLine.split(separator: " ")
                if parts.count >= 2 { status = Int(parts[1]) ?? 0 }
            }
            for line in lines.dropFirst() {
                guard let colon = line.firstIndex(of: ":") else { continue }
                headers.append(
                    (String(line[..<colon]), line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)))
            }
        }
        return (status, headers)
    }
}

/// curl on an endless stream, kept open as a player keeps it: the test watches what has arrived
/// and stops it once it has what it needs, so no deadline decides whether two viewers overlap.
final class CurlStream: Sendable {
    private let process: ChildProcess
    private let headPath: String
    private let bodyPath: String

    /// Starts `curl <options> <url>`, writing the head and body to files under `directory`.
    /// `launcher` comes first when given (`ip netns exec NS`: curl on another network).
    init(
        _ curl: String, _ url: String, options: [String] = [], directory: String, launcher: [String] = []
    ) throws {
        let name = UUID().uuidString.prefix(8)
        headPath = directory + "/stream-\(name).head"
        bodyPath = directory + "/stream-\(name).body"
        let command = launcher + [curl, "-s", "-S", "-N", "-D", headPath, "-o", bodyPath] + options + [url]
        process = try ChildProcess(
            command[0], Array(command.dropFirst()), environment: Subprocess.childEnvironment())
    }

    /// The body received so far.
    var body: [UInt8] { [UInt8](FileManager.default.contents(atPath: bodyPath) ?? Data()) }

    /// Waits (at most `seconds`, generous for a loaded machine) until `condition` holds for the
    /// body received so far; records an issue naming `what` if it never does.
    func wait(
        for what: String, seconds: Int = 60, sourceLocation: SourceLocation = #_sourceLocation,
        _ condition: ([UInt8]) -> Bool
    ) async throws {
        let deadline = ContinuousClock.now + .seconds(seconds)
        while ContinuousClock.now < deadline {
            if condition(body) { return }
            try await Task.sleep(for: .milliseconds(100))
        }
        Issue.record("curl never received \(what) in \(seconds) s", sourceLocation: sourceLocation)
        throw EndToEndError("curl never received \(what)")
    }

    /// Stops curl (as a player closes the stream) and returns what it received.
    func stop() async -> (status: Int, headers: [(String, String)], body: [UInt8]) {
        process.send(SIGTERM)
        _ = await process.wait()
        let (status, headers) = Curl.lastHead(in: headPath)
        return (status, headers, body)
    }
}

extension TunerProcess {
    /// `tuner proxy-url <url> [--header …] --data <data>`: the proxy URL the CLI prints.
    static func proxyURL(
        for url: String, headers: [String] = [], data: String, sourceLocation: SourceLocation = #_sourceLocation
    ) async throws -> String {
        let result = try await run(["proxy-url", url, "--data", data] + headers.flatMap { ["--header", $0] })
        guard result.succeeded else {
            Issue.record("tuner proxy-url failed: \(result.transcript)", sourceLocation: sourceLocation)
            throw EndToEndError("tuner proxy-url failed")
        }
        return result.output.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// Runs `tuner cache stats --json --data <data>` and decodes its output.
    static func cacheStatistics(data: String, sourceLocation: SourceLocation = #_sourceLocation) async throws
        -> [String: Any]
    {
        let result = try await run(["cache", "stats", "--json", "--data", data])
        guard result.succeeded, let json = try? JSONSerialization.jsonObject(with: result.stdout) as? [String: Any]
        else {
            Issue.record("tuner cache stats --json failed: \(result.transcript)", sourceLocation: sourceLocation)
            throw EndToEndError("tuner cache stats --json failed")
        }
        return json
    }
}

/// An in-process HTTP client for the many small range reads that would be slow as one curl each.
enum HTTP {
    static let client: HTTPClient = {
        var configuration = HTTPClient.Configuration(timeout: .init(connect: .seconds(5), read: .seconds(60)))
        configuration.decompression = .disabled
        return HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
    }()

    /// GETs `url` and returns the status.
    static func status(_ url: String) async throws -> Int {
        let response = try await client.execute(HTTPClientRequest(url: url), timeout: .seconds(30))
        _ = try await response.body.collect(upTo: 16 << 20)
        return Int(response.status.code)
    }

    /// GETs `url` with a `Range` header; returns the status, Content-Range and body.
    static func range(_ url: String, _ range: String) async throws -> (
        status: Int, contentRange: String?, body: [UInt8]
    ) {
        var request = HTTPClientRequest(url: url)
        request.headers.add(name: "Range", value: range)
        let response = try await client.execute(request, timeout: .seconds(60))
        var body: [UInt8] = []
        for try await chunk in response.body { body.append(contentsOf: chunk.readableBytesView) }
        return (Int(response.status.code), response.headers.first(name: "Content-Range"), body)
    }
}

/// Checks received bytes against the expected ones. Two big arrays are never handed to `#expect`:
/// its failure message diffs them, which takes minutes for megabytes.
func expectSameBytes(
    _ actual: [UInt8], _ expected: [UInt8], _ context: @autoclosure () -> String = "",
    sourceLocation: SourceLocation = #_sourceLocation
) {
    guard !sameBytes(actual, expected) else { return }
    let firstDifference = firstDifference(actual, expected)
    Issue.record(
        """
        \(context()): got \(actual.count) bytes, expected \(expected.count); they differ from offset \
        \(firstDifference) on
        """,
        sourceLocation: sourceLocation)
}

/// Whether `a` and `b` hold the same bytes, compared with memcmp: an element-wise comparison of
/// megabytes in a debug build holds a thread of the test process's cooperative pool (two threads
/// on a 2-core machine) for seconds, stalling the other tests that run beside it.
func sameBytes(_ a: [UInt8], _ b: [UInt8]) -> Bool {
    guard a.count == b.count else { return false }
    return a.withUnsafeBytes { a in
        b.withUnsafeBytes { b in a.count == 0 || memcmp(a.baseAddress!, b.baseAddress!, a.count) == 0 }
    }
}

/// The first offset where `a` and `b` differ (the shorter length when one is a prefix of the other).
func firstDifference(_ a: [UInt8], _ b: [UInt8]) -> Int {
    for index in 0..<min(a.count, b.count) where a[index] != b[index] { return index }
    return min(a.count, b.count)
}
