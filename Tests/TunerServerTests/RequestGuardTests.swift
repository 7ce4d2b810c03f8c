import Foundation
import Testing
import TunerApp
import TunerTesting

@testable import TunerServer

/// The request guard over real HTTP: byte-exact requests (raw sockets, so nothing tidies the path
/// or the `Host` first) against a server on a random loopback port.
@Suite struct RequestGuardTests {
    static let token = "guard-test-token-5f0c2a9e81d34b7c9a6e"

    func port(_ harness: ProxyHarness) throws -> Int { try #require(harness.server.port) }

    // MARK: the token, decided on the normalised path

    /// Spellings of `/api/v1/cache/stats` that once walked around a check on the raw path.
    static let disguisedPaths = [
        "/api/v1/cache/stats", "//api/v1/cache/stats", "///api//v1//cache/stats", "/%61pi/v1/cache/stats",
        "/API/v1/cache/stats", "/api%2Fv1/cache/stats", "/api/v1/cache/stats/", "/api\\v1/cache/stats",
        "/Stream/../api/v1/cache/stats", "/stream/../api/v1/cache/stats", "/stream/%2e%2e/api/v1/cache/stats",
        "/./api/v1/cache/stats", "/api/v1/./cache/stats", "/stream%2F..%2Fapi/v1/cache/stats",
        "/%2e/api/v1/cache/stats",
        "/api/v1/cache/stats%00", "/api/v1/%ZZcache/stats",
    ]

    @Test func withoutTheTokenNoSpellingOfAnAPIPathAnswers() async throws {
        let harness = try await ProxyHarness.start { configuration in
            configuration.host = "0.0.0.0"
            configuration.accessToken = Self.token
        }
        let port = try port(harness)
        for path in Self.disguisedPaths {
            let answer = try await RawHTTP.get(port: port, target: path)
            #expect([400, 401].contains(answer.status), "\(path) answered \(answer.status)")
            #expect(!answer.body.contains("\"bytes\""), "\(path) leaked the stats")
        }
        // Minting proxy URLs (an open relay without the token) is refused however it is spelled.
        for path in ["/api/v1/proxy-urls", "//api/v1/proxy-urls", "/api/v1//proxy-urls"] {
            let answer = try await RawHTTP.get(
                port: port, target: path, method: "POST", headers: ["Content-Type: application/json"],
                body: #"{"url":"http://example.com/a.ts"}"#)
            #expect(answer.status == 401, "\(path) answered \(answer.status)")
        }
        // Every other path needs it too: the allow-list is explicit. The metrics and the live
        // sessions (who watches what, from which address) are the owner's.
        #expect(try await RawHTTP.get(port: port, target: "/anything").status == 401)
        #expect(try await RawHTTP.get(port: port, target: "/metrics").status == 401)
        #expect(try await RawHTTP.get(port: port, target: "/api/v1/streams").status == 401)
        #expect(try await RawHTTP.get(port: port, target: "/api/v1/streams/x", method: "DELETE").status == 401)
        // The events' WebSocket too: no upgrade without the token.
        let upgrade = try await RawHTTP.get(
            port: port, target: "/api/v1/events",
            headers: [
                "Connection: Upgrade", "Upgrade: websocket", "Sec-WebSocket-Version: 13",
                "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==",
            ])
        #expect(upgrade.status != 101 && upgrade.status >= 400, "\(upgrade.status)")
        let metrics = try await RawHTTP.get(
            port: port, target: "/metrics", headers: ["Authorization: Bearer \(Self.token)"])
        #expect(metrics.status == 200 && metrics.body.contains("tuner_live_sessions"))
        #expect(try await RawHTTP.get(port: port, target: "/api/v1/health").status == 200)
        let authorised = try await RawHTTP.get(
            port: port, target: "/api/v1/cache/stats", headers: ["Authorization: Bearer \(Self.token)"])
        #expect(authorised.status == 200)
        let wrong = try await RawHTTP.get(
            port: port, target: "/api/v1/cache/stats", headers: ["Authorization: Bearer nope"])
        #expect(wrong.status == 401)
        try await harness.stop()
    }

    @Test func signedStreamURLsNeedNoToken() async throws {
        let harness = try await ProxyHarness.start { configuration in
            configuration.host = "0.0.0.0"
            configuration.accessToken = Self.token
            // The origin is on this machine, which the default beyond loopback refuses to fetch.
            configuration.allowFetch = .loopback
        }
        let proxy = try #require(URL(string: try harness.proxyURL("/files/open.mp4?size=1000")))
        let answer = try await RawHTTP.get(port: try port(harness), target: proxy.path)
        #expect(answer.status == 200)
        #expect(answer.bytes.count > 1000)
        try await harness.stop()
    }

    // MARK: Host (DNS rebinding)

    @Test func onlyIPLiteralsLocalhostAndConfiguredNamesAreAnswered() async throws {
        let harness = try await ProxyHarness.start { $0.publicHosts = ["tuner.home.arpa"] }
        let port = try port(harness)
        for host in [
            "127.0.0.1:\(port)", "localhost:\(port)", "LOCALHOST.:\(port)", "[::1]:\(port)", "192.168.1.10",
            "10.0.0.7:80", "tuner.home.arpa:\(port)", "Tuner.Home.Arpa",
        ] {
            let answer = try await RawHTTP.get(port: port, target: "/api/v1/cache/stats", host: host)
            #expect(answer.status == 200, "Host: \(host) answered \(answer.status)")
        }
        // Twice: accepted hosts are remembered, refused ones must stay refused on every request.
        let refused = [
            "attacker.example:\(port)", "attacker.example", "127.1", "0x7f.0.0.1", "localhost.attacker.example",
            "127.0.0.1.nip.io", "[::1", "127.0.0.1:80x", "",
        ]
        for host in refused + refused {
            let answer = try await RawHTTP.get(port: port, target: "/api/v1/cache/stats", host: host)
            #expect([400, 421].contains(answer.status), "Host: \(host) answered \(answer.status)")
            #expect(!answer.body.contains("\"bytes\""))
        }
        // Two Host fields, an accepted one first: refused whatever the second says.
        for second in ["attacker.example", "127.0.0.1:\(port)"] {
            let answer = try await RawHTTP.get(
                port: port, target: "/api/v1/cache/stats", host: "127.0.0.1:\(port)", headers: ["Host: \(second)"])
            #expect(answer.status == 400, "a second Host: \(second) answered \(answer.status)")
            #expect(!answer.body.contains("\"bytes\""))
        }
        try await harness.stop()
    }

    // MARK: CSRF

    @Test func anotherSitesPageCannotChangeAnything() async throws {
        let harness = try await ProxyHarness.start { $0.allowedOrigins = ["https://app.example"] }
        let port = try port(harness)
        let own = "http://127.0.0.1:\(port)"
        // A page elsewhere: refused, whatever the content type.
        let evil = try await RawHTTP.get(
            port: port, target: "/api/v1/cache/clear", method: "POST", headers: ["Origin: https://evil.example"])
        #expect(evil.status == 403)
        #expect(evil.body.contains("--allow-origin"))
        let null = try await RawHTTP.get(
            port: port, target: "/api/v1/cache/clear", method: "POST", headers: ["Origin: null"])
        #expect(null.status == 403)
        // Tuner's own pages, a configured origin, and clients that send no Origin (curl, the CLI).
        for origin in [own, "https://app.example"] {
            let answer = try await RawHTTP.get(
                port: port, target: "/api/v1/cache/clear", method: "POST", headers: ["Origin: \(origin)"])
            #expect(answer.status == 200, "Origin \(origin) answered \(answer.status)")
        }
        #expect(try await RawHTTP.get(port: port, target: "/api/v1/cache/clear", method: "POST").status == 200)
        // Reading is not changing: a GET with a foreign Origin is answered (the browser keeps the
        // answer from the page, as no CORS header allows it).
        let read = try await RawHTTP.get(
            port: port, target: "/api/v1/cache/stats", headers: ["Origin: https://evil.example"])
        #expect(read.status == 200)
        #expect(read.head.lowercased().contains("access-control-allow-origin") == false)
        try await harness.stop()
    }

    @Test func aBodyMustBeJSONSoNoPageCanSendItWithoutAPreflight() async throws {
        let harness = try await ProxyHarness.start()
        let port = try port(harness)
        let body =
            #"{"url":"/etc/hostname","kind":"upload-plain","properties":{"destinationURL":"http://127.0.0.1:9/x"}}"#
        for type in ["text/plain", "application/x-www-form-urlencoded", "multipart/form-data; boundary=x", nil]
            as [String?]
        {
            let answer = try await RawHTTP.get(
                port: port, target: "/api/v1/transfers", method: "POST",
                headers: type.map { ["Content-Type: \($0)"] } ?? [],
                body: body)
            #expect(answer.status == 415, "\(type ?? "no type") answered \(answer.status)")
        }
        let list = try HTTP.json(try await HTTP.fetch(harness.api + "/transfers"))
        #expect((list["transfers"] as? [Any])?.isEmpty == true, "nothing was queued")
        try await harness.stop()
    }

    // MARK: local files

    @Test func uploadsReadAndExportsWriteOnlyInsideTheFilesRoot() async throws {
        let harness = try await ProxyHarness.start()
        let root = harness.dataDirectory + "/files"
        let inside = root + "/clip.bin"
        try Data("hello".utf8).write(to: URL(fileURLWithPath: inside))
        let outside = harness.dataDirectory + "/secret-key"
        try Data("PRIVATE".utf8).write(to: URL(fileURLWithPath: outside))
        try FileManager.default.createSymbolicLink(atPath: root + "/link", withDestinationPath: outside)
        func upload(_ path: String) async throws -> Fetched {
            try await HTTP.fetch(
                harness.api + "/transfers", method: "POST",
                json: """
                    {"url":"\(path)","kind":"upload-plain","paused":true,"properties":{"destinationURL":"http://127.0.0.1:9/x"}}
                    """)
        }
        for path in [outside, root + "/link", root + "/../secret-key", "/etc/passwd", "relative/path"] {
            let answer = try await upload(path)
            #expect(answer.status == 403, "\(path) answered \(answer.status)")
        }
        #expect(try await upload(inside).status == 201)
        try await harness.stop()
    }

    // MARK: the parts on their own

    @Test func pathsNormaliseOrAreRefused() throws {
        #expect(try RequestPath(normalising: "//API/v1//Health/").text == "/api/v1/health")
        #expect(try RequestPath(normalising: "/%61pi%2Fv1").text == "/api/v1")
        #expect(try RequestPath(normalising: "/").text == "/")
        for refused in ["", "api", "/..", "/a/../b", "/%2e%2E/x", "/a/./b", "/%", "/%4", "/%zz", "/a%00b", "/a%0d%0ab"]
        {
            #expect(throws: RequestPath.Refusal.self, "\(refused)") { try RequestPath(normalising: refused) }
        }
        #expect(try RequestPath(normalising: "/stream/x/y/z").starts(with: ["stream"]))
        #expect(try !RequestPath(normalising: "/streams/x").starts(with: ["stream"]))
    }

    @Test func theMemoOfAcceptedHostsIsBounded() {
        let memo = AcceptedHosts(capacity: 4)
        for index in 0..<10 { memo.remember("host\(index)") }
        #expect(memo.contains("host9"))
        #expect(!memo.contains("host0"), "emptied when full, so it never holds more than its capacity")
        #expect(!memo.contains("attacker.example"))
    }

    @Test func hostNamesAndLiterals() {
        #expect(HostRule.accepts("[2001:db8::1]:8080", publicHosts: []))
        #expect(HostRule.accepts("::1", publicHosts: []) == false, "a bare IPv6 host must be bracketed")
        #expect(!HostRule.accepts("[fe80::1%eth0]", publicHosts: []))
        #expect(!HostRule.accepts("256.1.1.1", publicHosts: []))
        #expect(!HostRule.accepts("[::1]x", publicHosts: []))
        #expect(HostRule.accepts("tv.local:80", publicHosts: ["tv.local"]))
    }
}
