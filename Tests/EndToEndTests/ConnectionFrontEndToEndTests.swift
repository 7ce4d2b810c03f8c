import Foundation
import Testing
import TunerTesting

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A connection's life before and after Hummingbird takes it (`TunerHTTPServer` and
/// `StreamFrontHandler`), through the real binary: warm answers first, then any other request
/// on the same connection (a route, a WebSocket upgrade) answered in order; the idle timeout for
/// a connection that never completes a request; a client that half-closes; a shutdown while an
/// answer is being sent; and a port already taken.
@Suite struct ConnectionFrontEndToEndTests {
    typealias Fixture = StreamFastPathEndToEndTests.Fixture

    @Test("warm answers first, then a route, a cold answer and warm ones again, all in request order")
    func handOffKeepsTheOrder() async throws {
        guard let fixture = try await StreamFastPathEndToEndTests.start() else { return }
        defer { Task { await fixture.remove() } }
        let small = Fixture.path(of: try await fixture.warmURL("front.ts?size=1000"))
        let large = Fixture.path(of: try await fixture.warmURL("front-large.mp4?size=600000"))
        let cold = Fixture.path(of: try await fixture.proxyURL("cold.ts?size=3000&delay=200"))
        let before = try await fixture.fastAnswers()
        // Pipelined in one write: two warm answers (one a file region) before any route.
        let targets = [small, large, "/api/v1/health", cold, small, large]
        var request = ""
        for (index, target) in targets.enumerated() {
            request += "GET \(target) HTTP/1.1\r\nHost: 127.0.0.1\r\n"
            request += index == targets.count - 1 ? "Connection: close\r\n\r\n" : "\r\n"
        }
        let answer = try await RawHTTP.send(port: fixture.server.port, request)
        let lengths = StreamFastPathEndToEndTests.bodyLengths(answer.bytes)
        #expect(lengths.count == 6, "\(lengths)")
        #expect(Array(lengths.prefix(2)) == [1000, 600_000] && lengths.dropFirst(3).first == 3000, "\(lengths)")
        #expect(lengths.last == 600_000, "\(lengths)")
        // The first two on the event loop before the hand-off; the rest by Hummingbird (the
        // warm ones arrived while the cold answer was still being sent, so they wait their turn).
        #expect(try await fixture.fastAnswers() == before + 2)

        // One request at a time: warm, a route, warm again.
        let socket = try RawHTTP.connect(port: fixture.server.port, timeoutSeconds: 10)
        defer { close(socket) }
        for target in [small, "/api/v1/health", small] {
            #expect(RawHTTP.write(socket, Array("GET \(target) HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n".utf8)))
            let body = await RawHTTP.offPool { [socket] in StreamFastPathEndToEndTests.readAnswer(socket) }
            #expect(target == small ? body?.count == 1000 : body.map { !$0.isEmpty } == true, "\(target)")
        }
    }

    @Test("a WebSocket upgrade after warm answers on the same connection")
    func upgradeAfterWarmAnswers() async throws {
        guard let fixture = try await StreamFastPathEndToEndTests.start() else { return }
        defer { Task { await fixture.remove() } }
        let small = Fixture.path(of: try await fixture.warmURL("ws.ts?size=2000"))
        let socket = try RawHTTP.connect(port: fixture.server.port, timeoutSeconds: 10)
        defer { close(socket) }
        for _ in 0..<2 {
            #expect(RawHTTP.write(socket, Array("GET \(small) HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n".utf8)))
            let answered = await RawHTTP.offPool { [socket] in StreamFastPathEndToEndTests.readAnswer(socket) }
            #expect(answered?.count == 2000)
        }
        let upgrade = """
            GET /api/v1/events?topics=transfers HTTP/1.1\r
            Host: 127.0.0.1\r
            Upgrade: websocket\r
            Connection: Upgrade\r
            Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r
            Sec-WebSocket-Version: 13\r
            \r

            """
        #expect(RawHTTP.write(socket, Array(upgrade.utf8)))
        // The 101 head, then the hub's first message as a text frame (0x81).
        let received = await RawHTTP.offPool { [socket] in
            var received: [UInt8] = []
            var buffer = [UInt8](repeating: 0, count: 4096)
            while !received.starts(with: Array("HTTP/1.1 101".utf8)) || Self.afterHead(received).isEmpty {
                let count = recv(socket, &buffer, buffer.count, 0)
                guard count > 0 else { break }
                received += buffer[0..<count]
            }
            return received
        }
        #expect(received.starts(with: Array("HTTP/1.1 101".utf8)), "\(String(decoding: received, as: UTF8.self))")
        #expect(Self.afterHead(received).first == 0x81, "a text frame follows the upgrade")
    }

    @Test("a connection that never completes a request is closed after the idle timeout")
    func silentAndHalfHeadConnectionsAreClosed() async throws {
        guard let fixture = try await StreamFastPathEndToEndTests.start(arguments: ["--idle-timeout", "2"]) else {
            return
        }
        defer { Task { await fixture.remove() } }
        // This client would wait 60 s without a byte: the server's 2 s close comes long before.
        let silent = try RawHTTP.connect(port: fixture.server.port, timeoutSeconds: 60)
        defer { close(silent) }
        let halfHead = try RawHTTP.connect(port: fixture.server.port, timeoutSeconds: 60)
        defer { close(halfHead) }
        #expect(RawHTTP.write(halfHead, Array("GET /stream/abc HTTP/1.1\r\nHost: 127.0.0.1\r\n".utf8)))
        let fromSilent = await RawHTTP.offPool { [silent] in RawHTTP.readUntilClosed(silent) }
        #expect(fromSilent.bytes.isEmpty && fromSilent.closedByPeer, "closed by the server's idle timeout")
        let fromHalfHead = await RawHTTP.offPool { [halfHead] in RawHTTP.readUntilClosed(halfHead) }
        #expect(fromHalfHead.bytes.isEmpty && fromHalfHead.closedByPeer, "closed by the server's idle timeout")
    }

    @Test("a client that half-closes after its request still gets the whole answer")
    func halfCloseAfterTheRequest() async throws {
        guard let fixture = try await StreamFastPathEndToEndTests.start() else { return }
        defer { Task { await fixture.remove() } }
        let size = 8_000_000
        let large = Fixture.path(of: try await fixture.warmURL("half.mp4?size=\(size)"))
        let before = try await fixture.fastAnswers()
        let socket = try RawHTTP.connect(port: fixture.server.port, timeoutSeconds: 10)
        defer { close(socket) }
        #expect(RawHTTP.write(socket, Array("GET \(large) HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n".utf8)))
        #expect(shutdown(socket, Int32(SHUT_WR)) == 0)
        // Read only once the server has seen the end of input, with most of the answer unsent.
        try await Task.sleep(for: .seconds(1))
        let answer = await RawHTTP.offPool { [socket] in RawHTTP.readAll(socket) }
        #expect(StreamFastPathEndToEndTests.bodyLengths(answer) == [size])
        let headEnd = (answer.firstRange(of: Array("\r\n\r\n".utf8))?.upperBound) ?? 0
        #expect(answer.count - headEnd == size, "every byte of the answer, then the close")
        #expect(try await fixture.fastAnswers() == before + 1)
    }

    @Test("at shutdown an answer being sent is finished before its connection closes")
    func shutdownFinishesTheAnswerInFlight() async throws {
        guard let fixture = try await StreamFastPathEndToEndTests.start() else { return }
        defer { Task { await fixture.remove() } }
        let size = 16_000_000
        let large = Fixture.path(of: try await fixture.warmURL("shutdown.mp4?size=\(size)"))
        let socket = try RawHTTP.connect(port: fixture.server.port, timeoutSeconds: 20)
        defer { close(socket) }
        #expect(RawHTTP.write(socket, Array("GET \(large) HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n".utf8)))
        var received = await RawHTTP.offPool { [socket] in
            var received: [UInt8] = []
            var buffer = [UInt8](repeating: 0, count: 65536)
            while received.count < 100_000 {
                let count = recv(socket, &buffer, buffer.count, 0)
                guard count > 0 else { break }
                received += buffer[0..<count]
            }
            return received
        }
        // SIGTERM while most of the answer is still to be sent, and a pause so the server
        // handles it before this client reads on.
        let stopped = Task { await fixture.server.stop() }
        try await Task.sleep(for: .seconds(1))
        received += await RawHTTP.offPool { [socket] in RawHTTP.readAll(socket) }
        #expect(StreamFastPathEndToEndTests.bodyLengths(received) == [size])
        let headEnd = (received.firstRange(of: Array("\r\n\r\n".utf8))?.upperBound) ?? 0
        #expect(received.count - headEnd == size, "every byte of the answer, then the close")
        expectSameBytes(Array(received[headEnd...]), TestOrigin.content(name: "shutdown.mp4", range: 0..<size), "body")
        let ending = await stopped.value
        #expect(ending.status == 0 && !ending.timedOut, "\(ending)")
    }

    @Test("odd requests for a warm link go to the router as a whole: bodies, framing, repeats, HTTP/1.0")
    func oddRequestsAreNotAnsweredEarly() async throws {
        guard let fixture = try await StreamFastPathEndToEndTests.start() else { return }
        defer { Task { await fixture.remove() } }
        let target = Fixture.path(of: try await fixture.warmURL("odd.ts?size=4000"))
        let cases: [(label: String, request: String, status: Int, length: Int?)] = [
            // A body on a GET, declared either way: the router reads it and answers.
            ("a Content-Length body", "Content-Length: 5\r\n\r\nhello", 200, 4000),
            ("a chunked body", "Transfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n0\r\n\r\n", 200, 4000),
            // Two ranges in two fields read as a list of two: not one range, so 206 multipart
            // or the whole, never the first field's bytes alone.
            ("two Range fields", "Range: bytes=0-9\r\nRange: bytes=20-29\r\n\r\n", 206, nil),
            ("two Host fields", "Host: evil.example\r\n\r\n", 400, nil),
            ("an expectation", "Expect: 100-continue\r\n\r\n", 200, 4000),
        ]
        for item in cases {
            let before = try await fixture.fastAnswers()
            let answer = try await RawHTTP.send(
                port: fixture.server.port,
                "GET \(target) HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n" + item.request)
            #expect(
                answer.status == item.status || item.status == 206 && answer.status == 200,
                "\(item.label): \(answer.status)")
            if let length = item.length {
                #expect(StreamFastPathEndToEndTests.bodyLengths(answer.bytes).last == length, "\(item.label)")
            }
            #expect(try await fixture.fastAnswers() == before, "\(item.label): answered by the router")
        }
        // HTTP/1.0 goes to Hummingbird too (this handler takes HTTP/1.1 only).
        let before = try await fixture.fastAnswers()
        let old = try await RawHTTP.send(
            port: fixture.server.port, "GET \(target) HTTP/1.0\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
        #expect(old.status == 200 && StreamFastPathEndToEndTests.bodyLengths(old.bytes) == [4000])
        #expect(try await fixture.fastAnswers() == before)
    }

    @Test("a warm answer's head on the wire is the router's, byte for byte but the date")
    func headBytesAreTheRouters() async throws {
        guard let fixture = try await StreamFastPathEndToEndTests.start() else { return }
        defer { Task { await fixture.remove() } }
        let small = Fixture.path(of: try await fixture.warmURL("wire.ts?size=3000"))
        let large = Fixture.path(of: try await fixture.warmURL("wire-large.mp4?size=600000"))
        for (target, fields) in [
            (small, ""), (small, "Range: bytes=10-99\r\n"), (large, ""), (large, "Range: bytes=-7\r\n"),
        ] {
            let before = try await fixture.fastAnswers()
            // In one write: the warm answer, the same request the router's way (a query), and a
            // last request that closes.
            let request =
                "GET \(target) HTTP/1.1\r\nHost: 127.0.0.1\r\n\(fields)\r\n"
                + "GET \(target)?routed HTTP/1.1\r\nHost: 127.0.0.1\r\n\(fields)\r\n"
                + "GET /api/v1/health HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n"
            let answers = Self.answers(try await RawHTTP.send(port: fixture.server.port, request).bytes)
            #expect(answers.count == 3, "\(target) \(fields)")
            guard answers.count == 3 else { continue }
            // The date may tick between the two.
            let heads = answers.prefix(2).map { answer in
                String(decoding: answer.head, as: UTF8.self).split(separator: "\r\n").filter { !$0.hasPrefix("Date: ") }
            }
            #expect(heads[0] == heads[1], "\(target) \(fields)")
            #expect(heads[0].first == (fields.isEmpty ? "HTTP/1.1 200 OK" : "HTTP/1.1 206 Partial Content"))
            #expect(answers[0].body == answers[1].body && !answers[0].body.isEmpty, "\(target) \(fields)")
            #expect(try await fixture.fastAnswers() == before + 1, "\(target) \(fields)")
        }
    }

    /// The answers in `bytes`, each its head (without the blank line) and its body (by its
    /// `Content-Length`).
    static func answers(_ bytes: [UInt8]) -> [(head: ArraySlice<UInt8>, body: ArraySlice<UInt8>)] {
        var answers: [(head: ArraySlice<UInt8>, body: ArraySlice<UInt8>)] = []
        var rest = bytes[...]
        while let blank = rest.firstRange(of: Array("\r\n\r\n".utf8)) {
            let head = rest[..<blank.lowerBound]
            let length = String(decoding: head, as: UTF8.self).lowercased().split(separator: "\r\n")
                .first { $0.hasPrefix("content-length: ") }.flatMap { Int($0.dropFirst("content-length: ".count)) }
            guard let length, length <= rest.count - (blank.upperBound - rest.startIndex) else { break }
            answers.append((head, rest[blank.upperBound..<blank.upperBound + length]))
            rest = rest[(blank.upperBound + length)...]
        }
        return answers
    }

    @Test("a port another server listens on is refused, as a plain bind is")
    func aTakenPortIsRefused() async throws {
        guard let fixture = try await StreamFastPathEndToEndTests.start() else { return }
        defer { Task { await fixture.remove() } }
        let second = try await TunerProcess.run(
            ["serve", "--port", "\(fixture.server.port)", "--data", fixture.workspace.file("second")],
            timeout: .seconds(30))
        #expect(second.status != 0, "\(second.transcript)")
        #expect(second.transcript.lowercased().contains("in use"), "\(second.transcript)")
        // The first server still answers every connection.
        for _ in 0..<8 {
            #expect(try await RawHTTP.get(port: fixture.server.port, target: "/api/v1/health").status == 200)
        }
    }

    /// The bytes after the first blank line.
    static func afterHead(_ bytes: [UInt8]) -> ArraySlice<UInt8> {
        guard let range = bytes.firstRange(of: Array("\r\n\r\n".utf8)) else { return [] }
        return bytes[range.upperBound...]
    }
}

extension ConnectionFrontEndToEndTests {
    @Test("HTTP/1.0 clients get HTTP/1.0 answers: never chunked, and the server closes after each")
    func http10ClientsGetHTTP10Framing() async throws {
        guard let fixture = try await StreamFastPathEndToEndTests.start() else { return }
        defer { Task { await fixture.remove() } }
        let warm = Fixture.path(of: try await fixture.warmURL("old.ts?size=3000"))
        // The XMLTV output is streamed (no length): over HTTP/1.1 it is chunked, which an
        // HTTP/1.0 client would read as part of the guide.
        for target in ["/output/default.xml", "/api/v1/health", warm] {
            let socket = try RawHTTP.connect(port: fixture.server.port, timeoutSeconds: 30)
            defer { close(socket) }
            #expect(RawHTTP.write(socket, Array("GET \(target) HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n".utf8)))
            let answer = await RawHTTP.offPool { [socket] in RawHTTP.readUntilClosed(socket) }
            let text = String(decoding: answer.bytes, as: UTF8.self)
            let head = text.components(separatedBy: "\r\n\r\n").first ?? ""
            #expect(head.hasPrefix("HTTP/1.0 200 "), "\(target): \(head)")
            #expect(!head.lowercased().contains("transfer-encoding"), "\(target): \(head)")
            #expect(answer.closedByPeer, "\(target): the server closes after an HTTP/1.0 answer")
            let body = text.components(separatedBy: "\r\n\r\n").dropFirst().joined(separator: "\r\n\r\n")
            if target.hasSuffix(".xml") {
                #expect(body.hasPrefix("<?xml") && body.hasSuffix("</tv>\n"), "the guide as it is: \(body.prefix(80))")
            } else if target == warm {
                #expect(answer.bytes.count - head.utf8.count - 4 == 3000)
            }
        }

        // HTTP/1.1 then HTTP/1.0 on one connection: each answer in its own version, then the close.
        let socket = try RawHTTP.connect(port: fixture.server.port, timeoutSeconds: 30)
        defer { close(socket) }
        let requests =
            "GET /output/default.xml HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"
            + "GET /output/default.xml HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n"
        #expect(RawHTTP.write(socket, Array(requests.utf8)))
        let answers = await RawHTTP.offPool { [socket] in RawHTTP.readUntilClosed(socket) }
        let text = String(decoding: answers.bytes, as: UTF8.self)
        #expect(text.hasPrefix("HTTP/1.1 200 ") && text.lowercased().contains("transfer-encoding: chunked"))
        #expect(text.contains("</tv>\n\r\n0\r\n\r\nHTTP/1.0 200 "), "the second answer follows the first's last chunk")
        #expect(text.hasSuffix("</tv>\n") && answers.closedByPeer)
    }
}
