import NIOCore
import NIOEmbedded
import NIOHTTP1
import Testing
import TunerTesting

@testable import TunerServer

/// ``StreamRequestParser`` reads warm stream requests off the bytes before NIO's HTTP/1 decoder:
/// it must take players' real heads, never trap on hostile bytes, and read every head it takes
/// exactly as NIO's decoder (llhttp) does, so no request reaches the fast path reading otherwise
/// than it would through the router.
@Suite struct StreamRequestParserTests {
    static let target = "/stream/AbC-_123/eyJ1IjoiaHR0cDovL28vYSJ9/s42/seg42.ts"

    /// Heads as players send them (the shapes of curl, ffmpeg, VLC and Chromium).
    static let playerHeads = [
        "GET \(target) HTTP/1.1\r\nHost: 192.168.1.20:8080\r\nUser-Agent: curl/8.5.0\r\nAccept: */*\r\n\r\n",
        "GET \(target) HTTP/1.1\r\nUser-Agent: Lavf/59.27.100\r\nAccept: */*\r\nRange: bytes=0-\r\n"
            + "Connection: keep-alive\r\nHost: tuner.lan:8080\r\nIcy-MetaData: 1\r\n\r\n",
        "GET \(target) HTTP/1.1\r\nHost: tuner.lan\r\nAccept: */*\r\nAccept-Language: en_US\r\n"
            + "User-Agent: VLC/3.0.18 LibVLC/3.0.18\r\nRange: bytes=1000-\r\n\r\n",
        "GET \(target) HTTP/1.1\r\nHost: localhost:8080\r\nConnection: Keep-Alive\r\nsec-ch-ua-platform: \"Linux\"\r\n"
            + "User-Agent: Mozilla/5.0 (X11; Linux x86_64)\r\nAccept: */*\r\nSec-Fetch-Site: same-origin\r\n"
            + "Referer: http://localhost:8080/app/live\r\nAccept-Encoding: identity;q=1, *;q=0\r\n"
            + "If-Range: \"abc-123\"\r\nRange: bytes=65536-131071\r\n\r\n",
    ]

    @Test("players' heads are read whole, with the fields the answer needs")
    func playersHeadsAreRead() throws {
        for text in Self.playerHeads {
            let bytes = Array(text.utf8)
            guard case .request(let request, let length) = Self.parse(bytes) else {
                Issue.record("not read: \(text)")
                continue
            }
            #expect(length == bytes.count)
            #expect(request.target == Self.target)
            try Self.expectSameAsNIO(bytes, request: request, length: length)
        }
        guard case .request(let request, _) = Self.parse(Array(Self.playerHeads[3].utf8)) else { return }
        #expect(request.host == "localhost:8080")
        #expect(request.range == "bytes=65536-131071")
        #expect(request.ifRange == "\"abc-123\"")
    }

    @Test("every part of a head waits for the rest; pipelined heads are read one at a time")
    func partsWaitAndPipelinedHeadsSplit() throws {
        let bytes = Array(Self.playerHeads[1].utf8)
        for end in 0..<bytes.count {
            guard case .incomplete = Self.parse(Array(bytes[..<end])) else {
                Issue.record("the first \(end) bytes were not taken as a start")
                return
            }
        }
        let second = Array(Self.playerHeads[0].utf8)
        guard case .request(_, let length) = Self.parse(bytes + second + Array("GET /api".utf8)) else {
            Issue.record("pipelined heads not read")
            return
        }
        #expect(length == bytes.count)
        guard case .request(_, let secondLength) = Self.parse(second + Array("POST".utf8)) else {
            Issue.record("the second head not read")
            return
        }
        #expect(secondLength == second.count)
    }

    @Test("heads of any other shape, or that llhttp might read otherwise, go to NIO's decoder")
    func otherHeadsAreLeftToNIO() {
        let start = "GET \(Self.target) HTTP/1.1\r\n"
        let others = [
            "POST \(Self.target) HTTP/1.1\r\nHost: a\r\n\r\n", "HEAD \(Self.target) HTTP/1.1\r\n\r\n",
            "get \(Self.target) HTTP/1.1\r\n\r\n", "GET \(Self.target) HTTP/1.0\r\n\r\n",
            "GET  \(Self.target) HTTP/1.1\r\n\r\n", "GET \(Self.target)  HTTP/1.1\r\n\r\n",
            "GET /api/v1/health HTTP/1.1\r\n\r\n", "GET http://a\(Self.target) HTTP/1.1\r\n\r\n",
            "GET \(Self.target)?x=1 HTTP/1.1\r\n\r\n", "GET /stream/a%2Fb/c HTTP/1.1\r\n\r\n",
            "GET \(Self.target) HTTP/1.1\n\n", "GET \(Self.target) HTTP/1.1\r\nHost: a\n\r\n",
            start + "Host: a\r\n folded\r\n\r\n", start + " Host: a\r\n\r\n", start + "Host : a\r\n\r\n",
            start + "Host: a\r\nHost: b\r\n\r\n", start + "Range: bytes=0-1\r\nrange: bytes=2-3\r\n\r\n",
            start + "If-Range: a\r\nIf-Range: b\r\n\r\n", start + "Content-Length: 0\r\n\r\n",
            start + "Transfer-Encoding: chunked\r\n\r\n0\r\n\r\n", start + "Expect: 100-continue\r\n\r\n",
            start + "Upgrade: websocket\r\nConnection: Upgrade\r\n\r\n", start + "Connection: close\r\n\r\n",
            start + "Connection: keep-alive, Upgrade\r\n\r\n", start + "Host: a \r\n\r\n",
            start + "Host: a\u{0}b\r\n\r\n", start + "Host: caf\u{E9}\r\n\r\n", start + "Host: a\u{7F}\r\n\r\n",
            start + ": empty name\r\n\r\n", start + "Host: a\r\r\n\r\n", start + "\r\r\n",
            start + "X-A\u{1}: b\r\n\r\n",
            // No `Host`: an HTTP/1.1 request without one gets 400 (BadRequestAnswerer).
            start + "\r\n", start + "Range: bytes=0-\r\n\r\n",
            start + (0..<65).map { "X-\($0): v\r\n" }.joined() + "\r\n",
        ]
        for text in others {
            guard case .other = Self.parse(Array(text.utf8)) else {
                Issue.record("taken: \(text.debugDescription)")
                continue
            }
        }
        // Too long to be a player's: a head still going at the limit.
        let long = Array(
            (start + "X-Long: " + String(repeating: "a", count: StreamRequestParser.maximumHeadLength)).utf8)
        guard case .other = Self.parse(long) else {
            Issue.record("a head past the limit was waited for")
            return
        }
        let longTarget = Array(
            ("GET /stream/" + String(repeating: "a", count: StreamRequestParser.maximumHeadLength)).utf8)
        guard case .other = Self.parse(longTarget) else {
            Issue.record("a target past the limit was waited for")
            return
        }
    }

    /// Random damage to real heads (seeded, so a failure repeats): the parser never traps, and
    /// every head it still takes decodes the same through NIO's decoder.
    @Test("damaged heads: never a trap, and whatever is taken reads the same through NIO's decoder")
    func damagedHeadsReadAsNIOReadsThem() throws {
        var random = SplitMix64(seed: 0x5EED_15)
        let interesting: [UInt8] = Array(" \t\r\n:;,/\\\"%?#".utf8) + [0, 1, 0x7F, 0x80, 0xFF, 0x41, 0x61]
        var taken = 0
        for round in 0..<20_000 {
            var bytes = Array(Self.playerHeads[Int(random.next() % UInt64(Self.playerHeads.count))].utf8)
            for _ in 0...(random.next() % 3) {
                let at = Int(random.next() % UInt64(bytes.count))
                switch random.next() % 5 {
                case 0: bytes[at] = interesting[Int(random.next() % UInt64(interesting.count))]
                case 1: bytes.insert(interesting[Int(random.next() % UInt64(interesting.count))], at: at)
                case 2: bytes.remove(at: at)
                case 3:
                    // A line again: repeats, or a second of a field.
                    let lines = String(decoding: bytes, as: UTF8.self).components(separatedBy: "\r\n")
                    if lines.count > 2 {
                        let line = lines[1 + Int(random.next() % UInt64(lines.count - 2))]
                        bytes.insert(contentsOf: Array((line + "\r\n").utf8), at: bytes.count - 2)
                    }
                default: bytes[at] = bytes[at] ^ 0x20
                }
                if bytes.isEmpty { bytes = [0x47] }
            }
            if case .request(let request, let length) = Self.parse(bytes) {
                taken += 1
                try Self.expectSameAsNIO(bytes, request: request, length: length, "round \(round)")
            }
        }
        // Many mutations leave a head a player could send (a changed letter of a value, say).
        #expect(taken > 1_000)
    }

    static func parse(_ bytes: [UInt8]) -> StreamRequestParser.Outcome {
        bytes.withUnsafeBytes { StreamRequestParser.parse($0) }
    }

    /// Decodes the first `length` bytes with NIO's HTTP/1 decoder: one `GET` head with the same
    /// target and fields, then its end, no body, and no error.
    static func expectSameAsNIO(
        _ bytes: [UInt8], request: StreamFastPath.Request, length: Int, _ comment: String = "",
        sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        let channel = EmbeddedChannel(handler: ByteToMessageHandler(HTTPRequestDecoder()))
        defer { _ = try? channel.finish() }
        let text = String(decoding: bytes[..<length], as: UTF8.self).debugDescription
        do {
            try channel.writeInbound(ByteBuffer(bytes: bytes[..<length]))
        } catch {
            Issue.record("NIO refused a head the parser took (\(comment)): \(text)", sourceLocation: sourceLocation)
            return
        }
        guard case .head(let head)? = try channel.readInbound(as: HTTPServerRequestPart.self) else {
            Issue.record("NIO read no head (\(comment)): \(text)", sourceLocation: sourceLocation)
            return
        }
        let end = try channel.readInbound(as: HTTPServerRequestPart.self)
        guard case .end? = end else {
            Issue.record("NIO read more than a head (\(comment)): \(text)", sourceLocation: sourceLocation)
            return
        }
        #expect(head.method == .GET && head.version == .http1_1, "\(comment) \(text)", sourceLocation: sourceLocation)
        #expect(head.uri == request.target, "\(comment) \(text)", sourceLocation: sourceLocation)
        #expect(
            head.headers["Host"] == request.host.map { [$0] } ?? [], "\(comment) \(text)",
            sourceLocation: sourceLocation)
        #expect(
            head.headers["Range"] == request.range.map { [$0] } ?? [], "\(comment) \(text)",
            sourceLocation: sourceLocation)
        #expect(
            head.headers["If-Range"] == request.ifRange.map { [$0] } ?? [], "\(comment) \(text)",
            sourceLocation: sourceLocation)
        #expect(head.isKeepAlive, "\(comment) \(text)", sourceLocation: sourceLocation)
        #expect(
            !head.headers.contains(name: "Content-Length") && !head.headers.contains(name: "Transfer-Encoding"),
            "\(comment) \(text)", sourceLocation: sourceLocation)
        #expect(try channel.readInbound(as: HTTPServerRequestPart.self) == nil, sourceLocation: sourceLocation)
    }
}
