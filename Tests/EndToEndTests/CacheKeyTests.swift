import Foundation
import Testing
import TunerTesting

/// `--cache-ignore-param`: URLs that differ only in a session token share one cache entry.
@Suite struct CacheKeyTests {
    @Test func urlsDifferingInAnIgnoredParameterShareTheCache() async throws {
        guard let tools = Tools.require(.curl) else { return }
        let workspace = try Workspace()
        defer { workspace.remove() }
        let origin = try await TestOrigin.start()
        let data = workspace.file("data")
        let server = try await TunerProcess.serve(data: data, arguments: ["--cache-ignore-param", "token"])
        let size = 4_000_000
        let name = "session.mp4"
        let first = try await TunerProcess.proxyURL(
            for: origin.baseURL + "/files/\(name)?size=\(size)&token=one", data: data)
        let second = try await TunerProcess.proxyURL(
            for: origin.baseURL + "/files/\(name)?token=two&size=\(size)", data: data)
        #expect(first != second)

        let played = try await Curl.fetch(tools[.curl], first, options: ["-r", "0-999999"])
        #expect(played.status == 206)
        origin.resetCounters()
        let again = try await Curl.fetch(tools[.curl], second, options: ["-r", "0-999999"])
        #expect(again.status == 206)
        expectSameBytes(again.body, TestOrigin.content(name: name, range: 0..<1_000_000), "the second session")
        #expect(origin.bodyBytesSent == 0, "the second session's URL finds the first session's bytes")

        // The bytes the cache lacks must come from the URL the player uses now: the first
        // session's token may have expired.
        let old = try await TunerProcess.proxyURL(
            for: origin.baseURL + "/files/late.mp4?size=\(size)&token=expired", data: data)
        let current = try await TunerProcess.proxyURL(
            for: origin.baseURL + "/files/late.mp4?size=\(size)&token=fresh", data: data)
        let probe = try await Curl.fetch(tools[.curl], old, options: ["-r", "0-99"])
        #expect(probe.status == 206)
        #expect(origin.lastRequestURI(path: "/files/late.mp4")?.contains("token=expired") == true)
        let gap = try await Curl.fetch(tools[.curl], current, options: ["-r", "3000000-3000099"])
        #expect(gap.status == 206)
        expectSameBytes(gap.body, TestOrigin.content(name: "late.mp4", range: 3_000_000..<3_000_100), "the gap")
        #expect(
            origin.lastRequestURI(path: "/files/late.mp4")?.contains("token=fresh") == true,
            "the gap is fetched with the current session's URL")

        let stopped = await server.stop()
        #expect(stopped.status == 0 && !stopped.signaled, "\(server.log)")
        try await origin.shutdown()
    }
}
