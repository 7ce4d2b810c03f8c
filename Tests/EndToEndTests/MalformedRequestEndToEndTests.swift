import Foundation
import Testing
import TunerTesting

/// Requests that break HTTP/1's rules about the host and the body, sent byte for byte to the
/// real binary (`BadRequestAnswerer`, `StreamRequestParser`): an absolute-form target naming
/// another host, an HTTP/1.1 request without `Host` (HTTP/1.0 may omit it), and a chunked body
/// whose chunk extension ends in a bare LF each get exactly one answer, 400, on the router's
/// path and on the warm stream path alike.
@Suite struct MalformedRequestEndToEndTests {
    typealias Fixture = StreamFastPathEndToEndTests.Fixture

    /// The status codes of every answer in `answer`, in order (the bodies here never hold a
    /// status line's text; a body without a line end puts the next status line right after it).
    static func statuses(_ answer: RawHTTP.Answer) -> [Int] {
        String(decoding: answer.bytes, as: UTF8.self).matches(of: #/HTTP/1\.[01] ([0-9]{3}) /#)
            .compactMap { Int($0.1) }
    }

    @Test("an absolute-form target is answered for Tuner's own host only; another host gets one 400")
    func absoluteFormTargets() async throws {
        guard let fixture = try await StreamFastPathEndToEndTests.start() else { return }
        defer { Task { await fixture.remove() } }
        let port = fixture.server.port
        let warm = Fixture.path(of: try await fixture.warmURL("absolute.ts?size=1000"))
        for target in ["/api/v1/health", warm] {
            let foreign = try await RawHTTP.send(
                port: port,
                "GET http://evil.example\(target) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nConnection: close\r\n\r\n")
            #expect(Self.statuses(foreign) == [400], "\(target): \(foreign.head)")
            let userInfo = try await RawHTTP.send(
                port: port,
                "GET http://127.0.0.1:\(port)@evil.example\(target) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\n"
                    + "Connection: close\r\n\r\n")
            #expect(Self.statuses(userInfo) == [400], "\(target): \(userInfo.head)")
            let own = try await RawHTTP.send(
                port: port,
                "GET http://127.0.0.1:\(port)\(target) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nConnection: close\r\n\r\n"
            )
            #expect(Self.statuses(own) == [200], "\(target): \(own.head)")
        }
        // Pipelined behind a good request: that one's answer first, then one 400, then the close.
        let pipelined = try await RawHTTP.send(
            port: port,
            "GET /api/v1/health HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"
                + "GET http://evil.example/api/v1/health HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"
                + "GET /api/v1/health HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
        #expect(Self.statuses(pipelined) == [200, 400], "\(String(decoding: pipelined.bytes, as: UTF8.self))")
    }

    @Test("an HTTP/1.1 request without Host gets one 400; HTTP/1.0 without Host is answered")
    func requestsWithoutHost() async throws {
        guard let fixture = try await StreamFastPathEndToEndTests.start() else { return }
        defer { Task { await fixture.remove() } }
        let port = fixture.server.port
        let warm = Fixture.path(of: try await fixture.warmURL("nohost.ts?size=1000"))
        for target in ["/api/v1/health", warm] {
            let missing = try await RawHTTP.send(port: port, "GET \(target) HTTP/1.1\r\nConnection: close\r\n\r\n")
            #expect(Self.statuses(missing) == [400], "\(target): \(missing.head)")
            let keptOpen = try await RawHTTP.send(port: port, "GET \(target) HTTP/1.1\r\n\r\n", timeoutSeconds: 10)
            #expect(Self.statuses(keptOpen) == [400], "\(target): \(keptOpen.head)")
            let old = try await RawHTTP.send(port: port, "GET \(target) HTTP/1.0\r\n\r\n")
            #expect(Self.statuses(old) == [200], "\(target): \(old.head)")
            let withHost = try await RawHTTP.send(
                port: port, "GET \(target) HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
            #expect(Self.statuses(withHost) == [200], "\(target): \(withHost.head)")
        }
    }

    @Test("a chunk extension ended by a bare LF gets exactly one answer, 400")
    func bareLineFeedInAChunkExtension() async throws {
        guard let fixture = try await StreamFastPathEndToEndTests.start() else { return }
        defer { Task { await fixture.remove() } }
        let port = fixture.server.port
        let body = #"{"url":"http://127.0.0.1:1/x.ts"}"#
        let size = String(body.utf8.count, radix: 16)
        for path in ["/api/v1/proxy-urls", "/api/v1/health"] {
            let answer = try await RawHTTP.send(
                port: port,
                "POST \(path) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nContent-Type: application/json\r\n"
                    + "Transfer-Encoding: chunked\r\n\r\n\(size);ext\n\(body)\r\n0\r\n\r\n",
                timeoutSeconds: 10)
            #expect(Self.statuses(answer) == [400], "\(path): \(String(decoding: answer.bytes, as: UTF8.self))")
        }
        // The same body with CRLF is read and answered.
        let good = try await RawHTTP.send(
            port: port,
            "POST /api/v1/proxy-urls HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nContent-Type: application/json\r\n"
                + "Transfer-Encoding: chunked\r\nConnection: close\r\n\r\n\(size);ext\r\n\(body)\r\n0\r\n\r\n")
        #expect(Self.statuses(good) == [201], "\(String(decoding: good.bytes, as: UTF8.self))")
    }
}
