import AsyncHTTPClient
import Fetching
import Foundation
import MediaFormats
import NIOCore
import Testing
import TunerTesting

/// The gate on resolved addresses, and redirects followed by hand through it.
@Suite struct FetchGateTests {
    /// What the resolver makes of a spelling decides, never the text: each of these reaches this machine.
    @Test func oddSpellingsAreJudgedAsResolved() async throws {
        let gate = FetchGate(policy: .remote)
        for url in [
            "http://127.0.0.1/", "http://127.1/", "http://2130706433/", "http://0x7f.1/", "http://0.0.0.0/",
            "http://0/", "http://[::ffff:127.0.0.1]/", "http://[::ffff:7f00:1]/", "http://[::1]/",
            "http://localhost/", "http://[::]/", "http://169.254.169.254/latest/meta-data/",
        ] {
            await #expect(throws: FetchError.self, "\(url)") { try await gate.check(URL(string: url)!) }
        }
        let error = await #expect(throws: FetchError.self) {
            try await gate.check(URL(string: "http://no-such-host.invalid/x?password=SECRET")!)
        }
        #expect(error?.description.contains("does not resolve") == true)
        #expect(error?.description.contains("SECRET") == false)
        await #expect(throws: FetchError.self) { try await gate.check(URL(string: "ftp://10.0.0.1/")!) }
        // `any` resolves nothing.
        try await FetchGate.open.check(URL(string: "http://no-such-host.invalid/")!)
        // A rule for the port admits it, under its spellings, and nothing else on the machine.
        let rule = FetchGate(policy: try FetchPolicy(parsing: "remote,127.0.0.1:8096"))
        try await rule.check(URL(string: "http://127.0.0.1:8096/")!)
        try await rule.check(URL(string: "http://[::ffff:127.0.0.1]:8096/")!)
        try await rule.check(URL(string: "http://127.1:8096/")!)
        await #expect(throws: FetchError.self) { try await rule.check(URL(string: "http://127.0.0.1:8097/")!) }
    }

    /// An allowed origin that redirects to a loopback service on another port, spelled four ways:
    /// each hop is refused and the service gets no request at all.
    @Test func redirectsToThisMachineAreRefusedAndTheTargetIsNeverAsked() async throws {
        let origin = try await TestOrigin.start()
        let secret = try await TestOrigin.start()
        let client = HTTPClient(
            eventLoopGroupProvider: .singleton,
            configuration: HTTPClient.Configuration(redirectConfiguration: .disallow))
        do {
            let gate = FetchGate(policy: try FetchPolicy(parsing: "127.0.0.1:\(origin.port)"))
            for host in ["127.0.0.1", "[::ffff:127.0.0.1]", "0.0.0.0", "localhost"] {
                let target = "http://\(host):\(secret.port)/files/secret.bin?size=10"
                let encoded = target.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!
                let request = HTTPClientRequest(url: "\(origin.baseURL)/redirect-to?url=\(encoded)")
                let error = await #expect(throws: FetchError.self, "\(host)") {
                    _ = try await client.execute(request, gate: gate, timeout: .seconds(10))
                }
                #expect(error?.description.contains("--allow-fetch") == true, "\(String(describing: error))")
            }
            #expect(origin.requests(path: "/redirect-to") == 4)
            #expect(secret.requestCount == 0)

            // The same chain is followed under `any` (so the test can fail), with the final URL.
            let target = "\(secret.baseURL)/files/secret.bin?size=10"
            let encoded = target.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!
            let fetched = try await client.execute(
                HTTPClientRequest(url: "\(origin.baseURL)/redirect-to?url=\(encoded)"), gate: .open,
                timeout: .seconds(10))
            #expect(fetched.response.status == .ok && fetched.url.port == secret.port)
            _ = try await fetched.response.body.collect(upTo: 1 << 20)
            #expect(secret.requestCount == 1)

            // Not http(s): refused as a redirect.
            let file = "file:///etc/passwd".addingPercentEncoding(withAllowedCharacters: .alphanumerics)!
            let bad = await #expect(throws: FetchError.self) {
                _ = try await client.execute(
                    HTTPClientRequest(url: "\(origin.baseURL)/redirect-to?url=\(file)"), gate: .open,
                    timeout: .seconds(10))
            }
            #expect(bad?.kind == .badRedirect)
        } catch {
            try? await client.shutdown()
            throw error
        }
        try await client.shutdown()
        try await origin.shutdown()
        try await secret.shutdown()
    }
}
