import Foundation
import Testing
import TunerTesting

/// Warm stream answers given on the event loop (`StreamFastPath`), through the real binary: the
/// same status, headers and bytes as the router's answer to the same request, the same refusals
/// for a forged link or a foreign host, answers in request order on a pipelined connection, and
/// `/metrics` saying which path answered.
@Suite struct StreamFastPathEndToEndTests {
    struct Fixture {
        let workspace: Workspace
        let origin: TestOrigin
        let server: TunerProcess
        let curl: String

        func remove() async {
            await server.stop()
            try? await origin.shutdown()
            workspace.remove()
        }

        /// The proxy URL of the origin's `/files/<file>` (name and query), made by `tuner proxy-url`.
        func proxyURL(_ file: String) async throws -> String {
            try await TunerProcess.proxyURL(for: origin.baseURL + "/files/" + file, data: server.dataDirectory)
        }

        /// The same URL asked for once, so its answer is cached.
        func warmURL(_ file: String) async throws -> String {
            let url = try await proxyURL(file)
            #expect(try await Curl.fetch(curl, url).status == 200, "\(file)")
            return url
        }

        /// A proxy URL's path (what a raw request line names).
        static func path(of url: String) -> String { "/stream/" + url.components(separatedBy: "/stream/")[1] }

        /// `tuner_stream_fast_answers_total`, read from `/metrics`.
        func fastAnswers() async throws -> Int {
            let metrics = try await Curl.fetch(curl, server.baseURL + "/metrics")
            let line = String(decoding: metrics.body, as: UTF8.self).split(separator: "\n")
                .first { $0.hasPrefix("tuner_stream_fast_answers_total ") }
            return line.flatMap { Int($0.split(separator: " ").last ?? "") } ?? 0
        }
    }

    static func start(arguments: [String] = []) async throws -> Fixture? {
        guard let tools = Tools.require(.curl) else { return nil }
        let workspace = try Workspace()
        let origin = try await TestOrigin.start()
        let server = try await TunerProcess.serve(data: workspace.file("data"), arguments: arguments)
        return Fixture(workspace: workspace, origin: origin, server: server, curl: tools[.curl])
    }

    /// The answer without its `Date` (which may tick between two requests).
    static func comparable(_ response: CurlResponse) -> String {
        "\(response.status) "
            + response.headers.filter { $0.0.lowercased() != "date" }.map { "\($0.0.lowercased()): \($0.1)" }
            .joined(separator: "; ")
    }

    @Test("a warm answer from the event loop is the router's answer, byte for byte")
    func sameAnswerAsTheRouter() async throws {
        guard let fixture = try await Self.start() else { return }
        defer { Task { await fixture.remove() } }
        var links: [(name: String, url: String)] = []
        // A user's link to a film (typed), one to a generic file (sniffed once, then known not to
        // be a playlist), and a bigger one whose whole answers go out as a file region (sendfile).
        let sizes = ["film.mp4": 40_000, "blob.bin": 40_000, "large.mp4": 600_000]
        for name in ["film.mp4", "blob.bin", "large.mp4"] {
            links.append((name, try await fixture.proxyURL("\(name)?size=\(sizes[name] ?? 0)")))
        }
        for (name, url) in links {
            let cold = try await Curl.fetch(fixture.curl, url)
            #expect(cold.status == 200, "\(name)")
            expectSameBytes(cold.body, TestOrigin.content(name: name, range: 0..<(sizes[name] ?? 0)), "\(name) cold")
        }
        let requests: [(label: String, options: [String])] = [
            ("whole", []), ("range", ["-r", "100-4099"]), ("suffix", ["-r", "-500"]), ("open", ["-r", "30000-"]),
            ("If-Range of another version", ["-r", "0-9", "-H", "If-Range: \"other\""]),
        ]
        for (name, url) in links {
            for (label, options) in requests {
                let before = try await fixture.fastAnswers()
                let fast = try await Curl.fetch(fixture.curl, url, options: options)
                let afterFast = try await fixture.fastAnswers()
                // A query sends the same request the router's way (the fast path takes plain paths only).
                let routed = try await Curl.fetch(fixture.curl, url + "?routed", options: options)
                let afterRouted = try await fixture.fastAnswers()
                #expect(afterFast == before + 1, "\(name) \(label): answered on the event loop")
                #expect(afterRouted == afterFast, "\(name) \(label): answered by the router")
                #expect(Self.comparable(fast) == Self.comparable(routed), "\(name) \(label)")
                #expect(fast.header("Date") != nil && fast.header("Server") == "Tuner", "\(name) \(label)")
                expectSameBytes(fast.body, routed.body, "\(name) \(label)")
            }
            // Not taken: several ranges, a range past the end, HEAD.
            let before = try await fixture.fastAnswers()
            let multi = try await Curl.fetch(fixture.curl, url, options: ["-r", "0-9,20-29"])
            let beyond = try await Curl.fetch(fixture.curl, url, options: ["-r", "\(sizes[name] ?? 0)-"])
            let head = try await Curl.fetch(fixture.curl, url, options: ["-I"])
            #expect(multi.status == 206 && beyond.status == 416 && head.status == 200, "\(name)")
            #expect(try await fixture.fastAnswers() == before, "\(name): none of these on the event loop")
        }
        // The origin was asked once per file: every later answer came from the cache.
        #expect(fixture.origin.requests(path: "/files/film.mp4") == 1)
    }

    @Test("a playlist's warm segments are answered from the event loop, as the router answers them")
    func segmentsOfAPlaylist() async throws {
        guard let fixture = try await Self.start() else { return }
        defer { Task { await fixture.remove() } }
        let served = fixture.workspace.file("hls")
        try FileManager.default.createDirectory(atPath: served, withIntermediateDirectories: true)
        var playlist = "#EXTM3U\n#EXT-X-VERSION:3\n#EXT-X-TARGETDURATION:4\n#EXT-X-MEDIA-SEQUENCE:7\n"
        var segments: [[UInt8]] = []
        for index in 0..<3 {
            let bytes = (0..<(20_000 + index * 1000)).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ index) }
            segments.append(bytes)
            try Data(bytes).write(to: URL(fileURLWithPath: served + "/part\(index).ts"))
            playlist += "#EXTINF:4.0,\npart\(index).ts\n"
        }
        try Data((playlist + "#EXT-X-ENDLIST\n").utf8).write(to: URL(fileURLWithPath: served + "/index.m3u8"))
        fixture.origin.serveDirectory(served)
        let url = try await TunerProcess.proxyURL(
            for: fixture.origin.baseURL + "/static/index.m3u8", data: fixture.server.dataDirectory)
        let rewritten = try await Curl.fetch(fixture.curl, url)
        let names = String(decoding: rewritten.body, as: UTF8.self).split(separator: "\n")
            .filter { !$0.hasPrefix("#") }
        #expect(names == ["s7/part0.ts", "s8/part1.ts", "s9/part2.ts"], "\(names)")
        let base = String(url[..<(url.lastIndex(of: "/") ?? url.endIndex)]) + "/"
        for (index, name) in names.map(String.init).enumerated() {
            let cold = try await Curl.fetch(fixture.curl, base + name)
            expectSameBytes(cold.body, segments[index], "\(name) cold")
            let before = try await fixture.fastAnswers()
            let fast = try await Curl.fetch(fixture.curl, base + name, options: ["-r", "1000-"])
            let afterFast = try await fixture.fastAnswers()
            let routed = try await Curl.fetch(fixture.curl, base + name + "?routed", options: ["-r", "1000-"])
            #expect(afterFast == before + 1, "\(name): answered on the event loop")
            #expect(try await fixture.fastAnswers() == afterFast, "\(name): answered by the router")
            #expect(fast.status == 206 && Self.comparable(fast) == Self.comparable(routed), "\(name)")
            expectSameBytes(fast.body, Array(segments[index][1000...]), "\(name) warm")
        }
        // A number the playlist never had is the router's 404.
        let before = try await fixture.fastAnswers()
        #expect(try await Curl.fetch(fixture.curl, base + "s99/part0.ts").status == 404)
        #expect(try await fixture.fastAnswers() == before)
    }

    @Test("forged links, foreign hosts and odd paths are refused as before, never answered early")
    func refusalsStayTheRouters() async throws {
        guard let fixture = try await Self.start() else { return }
        defer { Task { await fixture.remove() } }
        let url = try await fixture.warmURL("warm.ts?size=30000")
        let before = try await fixture.fastAnswers()
        // DNS rebinding: a page's own name pointed at this address.
        let rebound = try await Curl.fetch(fixture.curl, url, options: ["-H", "Host: evil.example"])
        #expect(rebound.status == 421)
        #expect(rebound.body.count < 1000, "no stream bytes in a refusal")
        // A signature changed by one character.
        let parts = url.components(separatedBy: "/stream/")
        var signature = Array(parts[1])
        signature[0] = signature[0] == "A" ? "B" : "A"
        let forged = try await Curl.fetch(fixture.curl, parts[0] + "/stream/" + String(signature))
        #expect(forged.status == 403)
        // Dot segments and escapes, which the guard refuses or normalises.
        let dotted = try await RawHTTP.send(
            port: fixture.server.port,
            "GET /stream/../stream/\(parts[1]) HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
        #expect(dotted.status == 400)
        _ = try await Curl.fetch(
            fixture.curl, url.replacingOccurrences(of: "/stream/", with: "/str%65am/"), options: ["--path-as-is"])
        #expect(try await fixture.fastAnswers() == before, "the refusals came from the router")
    }

    @Test("a pipelined connection gets its answers in request order, the router's and the event loop's alike")
    func pipelinedAnswersKeepTheirOrder() async throws {
        guard let fixture = try await Self.start() else { return }
        defer { Task { await fixture.remove() } }
        let small = try await fixture.warmURL("small.ts?size=1000")
        // Cold and slow (the origin waits 300 ms before its first byte): the router's answer.
        let slow = try await fixture.proxyURL("slow.ts?size=2000&delay=300")
        let path = Fixture.path(of:)
        var request = ""
        for (index, target) in [path(slow), path(small), "/api/v1/health", path(small)].enumerated() {
            request += "GET \(target) HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Index: \(index)\r\n"
            request += index == 3 ? "Connection: close\r\n\r\n" : "\r\n"
        }
        let answer = try await RawHTTP.send(port: fixture.server.port, request)
        let lengths = Self.bodyLengths(answer.bytes)
        // slow.ts (2000 bytes), small.ts (1000), the health document, small.ts again, in that order.
        #expect(lengths.count == 4, "\(lengths)")
        #expect(lengths.first == 2000 && lengths.dropFirst().first == 1000 && lengths.last == 1000, "\(lengths)")

        // `Connection: close` on a warm link: the whole answer, then the server closes (this
        // client's 30 s receive timeout is shorter than the server's 60 s idle timeout, so only
        // a close after the answer ends the read with the server's close).
        let socket = try RawHTTP.connect(port: fixture.server.port, timeoutSeconds: 30)
        defer { close(socket) }
        #expect(
            RawHTTP.write(
                socket, Array("GET \(path(small)) HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n".utf8)))
        let closing = await RawHTTP.offPool { [socket] in RawHTTP.readUntilClosed(socket) }
        #expect(Self.bodyLengths(closing.bytes) == [1000])
        #expect(closing.closedByPeer, "the server closed the connection after its answer")
    }

    @Test("answers from the event loop count as the connection's activity: no idle close while they flow, one after")
    func idleTimeoutSeesTheAnswers() async throws {
        guard let fixture = try await Self.start(arguments: ["--idle-timeout", "2"]) else { return }
        defer { Task { await fixture.remove() } }
        let target = Fixture.path(of: try await fixture.warmURL("idle.ts?size=5000"))
        let before = try await fixture.fastAnswers()

        // Answers 0.1 s apart on one connection for 7 s, three idle timeouts long. The server
        // read each answered request after the client sent it, so a server that counts it as
        // activity closes no sooner than 2 s after the last answered request was sent: a close
        // seen earlier than that proves the server missed the activity, whatever the load. A
        // close seen later proves nothing (a loaded client may itself have waited 2 s) and the
        // attempt is made again, at most three times. The client runs on a thread of its own, so
        // the other tests' work in the concurrency pool cannot hold it up.
        let port = fixture.server.port
        let request = Array("GET \(target) HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n".utf8)
        let (socket, answered, answeredInAll, kept, closedEarly) = await RawHTTP.offPool {
            () -> (Int32, Int, Int, Bool, Bool) in
            var socket: Int32 = -1
            var answered = 0
            var answeredInAll = 0
            var kept = false
            var closedEarly = false
            for _ in 0..<3 where !kept && !closedEarly {
                if socket >= 0 { close(socket) }
                socket = (try? RawHTTP.connect(port: port, timeoutSeconds: 30)) ?? -1
                guard socket >= 0 else { break }
                answered = 0
                let started = ContinuousClock.now
                var lastAnsweredRequestSent = started
                while ContinuousClock.now - started < .seconds(7) {
                    let sending = ContinuousClock.now
                    guard RawHTTP.write(socket, request), Self.readAnswer(socket)?.count == 5000 else { break }
                    lastAnsweredRequestSent = sending
                    answered += 1
                    answeredInAll += 1
                    usleep(100_000)
                }
                kept = ContinuousClock.now - started >= .seconds(7)
                closedEarly = !kept && ContinuousClock.now - lastAnsweredRequestSent < .seconds(2)
            }
            return (socket, answered, answeredInAll, kept, closedEarly)
        }
        defer { if socket >= 0 { close(socket) } }
        #expect(!closedEarly, "closed sooner than the idle timeout after a request (\(answered) answered)")
        #expect(kept, "three attempts in a row were held up for the whole idle timeout")
        #expect(try await fixture.fastAnswers() == before + answeredInAll)
        // Seven seconds of answers, each within the timeout of the last: at least four of them.
        #expect(answered >= 4)
        // Idle now: the server closes it after its 2 s (this client would wait 30 s).
        let afterIdle = await RawHTTP.offPool { [socket] in RawHTTP.readUntilClosed(socket) }
        #expect(afterIdle.bytes.isEmpty && afterIdle.closedByPeer, "closed by the server's idle timeout")
    }

    /// One answer's body from `socket` (its head read up to the blank line, then Content-Length
    /// bytes), or nil when the connection ends first.
    static func readAnswer(_ socket: Int32) -> [UInt8]? {
        var received: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65536)
        var bodyStart: Int?
        var length = 0
        while true {
            if bodyStart == nil,
                let end = (0..<max(0, received.count - 3)).first(where: {
                    received[$0] == 13 && received[$0 + 1] == 10 && received[$0 + 2] == 13 && received[$0 + 3] == 10
                })
            {
                bodyStart = end + 4
                length = bodyLengths(received).first ?? 0
            }
            if let start = bodyStart, received.count - start >= length {
                return Array(received[start..<start + length])
            }
            let count = buffer.withUnsafeMutableBytes { recv(socket, $0.baseAddress, $0.count, 0) }
            if count <= 0 { return nil }
            received.append(contentsOf: buffer[0..<count])
        }
    }

    /// The body lengths of the answers in `bytes`, one after another (each with Content-Length).
    static func bodyLengths(_ bytes: [UInt8]) -> [Int] {
        var lengths: [Int] = []
        var position = 0
        let separator: [UInt8] = Array("\r\n\r\n".utf8)
        while position < bytes.count {
            guard
                let end = (position..<max(position, bytes.count - 3)).first(where: {
                    Array(bytes[$0..<$0 + 4]) == separator
                })
            else { break }
            let head = String(decoding: bytes[position..<end], as: UTF8.self).lowercased()
            guard
                let line = head.split(separator: "\r\n").first(where: { $0.hasPrefix("content-length:") }),
                let length = Int(line.dropFirst("content-length:".count).trimmingCharacters(in: .whitespaces))
            else { break }
            lengths.append(length)
            position = end + 4 + length
        }
        return lengths
    }
}
