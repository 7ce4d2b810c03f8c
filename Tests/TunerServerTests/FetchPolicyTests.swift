import Foundation
import MediaFormats
import Testing
import TunerApp

/// `--allow-fetch loopback`: no request a client makes the server send leaves the machine.
@Suite struct FetchPolicyTests {
    @Test func loopbackAdmitsOnlyThisMachine() {
        let policy = FetchPolicy.loopback
        for url in [
            "http://127.0.0.1:8080/a", "https://localhost/x", "http://LOCALHOST./y", "http://[::1]:9/z",
            "http://127.255.0.1/",
        ] {
            #expect(policy.permits(URL(string: url)!), "\(url)")
        }
        for url in [
            "http://example.com/a", "http://10.0.0.1/", "http://127.0.0.1.nip.io/", "http://127.1/",
            "http://0x7f.0.0.1/",
            "http://localhost.example/", "ftp://127.0.0.1/", "file:///etc/passwd", "http://[::2]/",
            "http://1270.0.0.1/",
        ] {
            #expect(!policy.permits(URL(string: url)!), "\(url)")
        }
        #expect(FetchPolicy.any.permits(URL(string: "http://example.com/")!))
        #expect(!FetchPolicy.any.permits(URL(string: "file:///etc/passwd")!))
    }

    @Test func theServerRefusesEveryWayOut() async throws {
        let harness = try await ProxyHarness.start { $0.allowFetch = .loopback }
        let api = harness.api
        let outside = "http://example.com/film.mp4"
        let minted = try await HTTP.fetch(api + "/proxy-urls", method: "POST", json: #"{"url": "\#(outside)"}"#)
        #expect(
            minted.status == 403 && minted.bodyText.contains("--allow-fetch"), "\(minted.status) \(minted.bodyText)")
        let local = try await HTTP.fetch(
            api + "/proxy-urls", method: "POST", json: #"{"url": "\#(harness.origin.baseURL)/files/a.bin?size=10"}"#)
        #expect(local.status == 201)
        let source = try await HTTP.fetch(api + "/sources", method: "POST", json: #"{"location": "\#(outside)"}"#)
        #expect(source.status == 403, "\(source.status) \(source.bodyText)")
        let download = try await HTTP.fetch(api + "/transfers", method: "POST", json: #"{"url": "\#(outside)"}"#)
        #expect(download.status == 403, "\(download.status) \(download.bodyText)")
        let preload = try await HTTP.fetch(api + "/cache/preload", method: "POST", json: #"{"url": "\#(outside)"}"#)
        #expect(preload.status == 403, "\(preload.status) \(preload.bodyText)")

        // A loopback origin that redirects off the machine: the hop is refused, nothing is fetched.
        let hop = "http://192.0.2.1/elsewhere.bin".addingPercentEncoding(withAllowedCharacters: .alphanumerics)!
        let redirecting = try harness.proxyURL("/redirect-to?url=\(hop)")
        let played = try await HTTP.fetch(redirecting)
        #expect(
            played.status == 403 && played.bodyText.contains("--allow-fetch"), "\(played.status) \(played.bodyText)")
        try await harness.stop()
    }
}

extension Fetched {
    var bodyText: String { String(decoding: body, as: UTF8.self) }
}
