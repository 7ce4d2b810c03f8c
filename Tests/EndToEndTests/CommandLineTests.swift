import Foundation
import Testing
import TunerTesting

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The `tuner` binary's own interface: help, flag validation, proxy URLs, and how the server stops.
@Suite struct CommandLineTests {
    @Test func helpExitsZeroAndNamesTheCommands() async throws {
        let help = try await TunerProcess.run(["--help"])
        #expect(help.succeeded, "\(help.transcript)")
        #expect(help.output.contains("serve"))
        #expect(help.output.contains("proxy-url"))
        #expect(help.output.contains("cache"))

        let serveHelp = try await TunerProcess.run(["serve", "--help"])
        #expect(serveHelp.succeeded, "\(serveHelp.transcript)")
        #expect(serveHelp.output.contains("--port"))
        #expect(serveHelp.output.contains("--cache-size"))
        #expect(serveHelp.output.contains("--data"))
    }

    @Test(arguments: [
        (["--port", "99999"], "--port"),
        (["--port", "eighty"], "--port"),
        (["--cache-size", "lots"], "--cache-size"),
        (["--cache-min-free", "12parsecs"], "--cache-min-free"),
    ])
    func badServeFlagsExitNonZeroNamingTheFlag(flags: [String], named flag: String) async throws {
        let workspace = try Workspace()
        defer { workspace.remove() }
        let result = try await TunerProcess.run(
            ["serve", "--data", workspace.file("data")] + flags, timeout: .seconds(20))
        #expect(
            !result.succeeded && !result.timedOut, "tuner serve \(flags) must refuse to start: \(result.transcript)")
        #expect(result.errorOutput.contains(flag), "the message names \(flag): \(result.transcript)")
        #expect(
            !FileManager.default.fileExists(atPath: workspace.file("data/server.url")),
            "a server that did not start leaves no server.url")
    }

    @Test func proxyURLWorksThroughTheServerOfTheSameDataFolder() async throws {
        guard let tools = Tools.require(.curl) else { return }
        let workspace = try Workspace()
        defer { workspace.remove() }
        let origin = try await TestOrigin.start()
        let data = workspace.file("data")
        let server = try await TunerProcess.serve(data: data)

        let size = 300_000
        let originURL = origin.baseURL + "/files/signed.mp4?size=\(size)"
        let printed = try await TunerProcess.proxyURL(
            for: originURL, headers: ["User-Agent: TunerEndToEnd/1.0"], data: data)
        #expect(printed.hasPrefix(server.baseURL + "/stream/"), "proxy-url points at the running server: \(printed)")
        #expect(printed.hasSuffix("/signed.mp4"), "the original file name (and extension) is kept: \(printed)")

        let fetched = try await Curl.fetch(tools[.curl], printed)
        #expect(fetched.status == 200, "\(fetched.process.transcript)")
        expectSameBytes(
            fetched.body, TestOrigin.content(name: "signed.mp4", range: 0..<size), "through proxy-url's URL")
        let sentUpstream = origin.lastRequestHeaders(path: "/files/signed.mp4") ?? []
        #expect(
            sentUpstream.contains { $0.name.lowercased() == "user-agent" && $0.value == "TunerEndToEnd/1.0" },
            "the header attached with --header reaches the origin: \(sentUpstream)")

        // A URL signed with another data folder's secret is refused: the proxy is no open relay.
        let foreign = try await TunerProcess.run([
            "proxy-url", originURL, "--data", workspace.file("other"), "--base", server.baseURL,
        ])
        #expect(foreign.succeeded, "\(foreign.transcript)")
        let refused = try await Curl.fetch(tools[.curl], foreign.output.trimmingCharacters(in: .whitespacesAndNewlines))
        #expect(refused.status == 403)

        let stopped = await server.stop()
        #expect(stopped.status == 0 && !stopped.signaled, "\(server.log)")
        try await origin.shutdown()
    }

    @Test(arguments: [
        (["https://example.com/a.mp4", "--header", "X-Token: a\r\nInjected: b"], "line break"),
        (["https://example.com/a.mp4", "--header", "X-Token: a\nInjected: b"], "line break"),
        (["file:///etc/passwd"], "http"),
        (["ftp://example.com/a.mp4"], "http"),
        (["https://example.com/a.mp4", "--header", "Host: evil.example"], "Host"),
    ])
    func proxyURLRefusesUnsafeInput(arguments: [String], mentioning word: String) async throws {
        let workspace = try Workspace()
        defer { workspace.remove() }
        let result = try await TunerProcess.run(["proxy-url"] + arguments + ["--data", workspace.file("data")])
        #expect(!result.succeeded, "proxy-url \(arguments) must fail: \(result.transcript)")
        #expect(result.output.isEmpty, "nothing that looks like a URL is printed: \(result.output)")
        #expect(result.errorOutput.contains(word), "\(result.transcript)")
    }

    @Test(arguments: [SIGTERM, SIGINT])
    func aSignalStopsTheServerGracefully(signal: Int32) async throws {
        let workspace = try Workspace()
        defer { workspace.remove() }
        let server = try await TunerProcess.serve(data: workspace.file("data"))
        #expect(FileManager.default.fileExists(atPath: server.serverURLFile))
        let written = try String(contentsOfFile: server.serverURLFile, encoding: .utf8)
        #expect(written.trimmingCharacters(in: .whitespacesAndNewlines) == server.baseURL)
        let health = try await HTTP.range(server.baseURL + "/api/v1/health", "bytes=0-")
        #expect(health.status == 200)

        let stopped = await server.stop(signal: signal)
        #expect(!stopped.timedOut, "the server stops within 20 s of signal \(signal)")
        #expect(
            stopped.status == 0 && !stopped.signaled, "exit 0 after signal \(signal), got \(stopped): \(server.log)")
        #expect(!FileManager.default.fileExists(atPath: server.serverURLFile), "server.url is removed at shutdown")
    }
}
