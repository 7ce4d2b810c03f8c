import AsyncHTTPClient
import Foundation
import Logging
import MediaFormats
import Testing
import TunerTesting

@testable import MediaCache

/// Provider credentials are for the provider: a redirect to another origin must not carry them.
@Suite struct UpstreamRedirectTests {
    @Test func credentialsAreDroppedWhenARedirectLeavesTheOrigin() async throws {
        let first = try await TestOrigin.start()
        let second = try await TestOrigin.start()
        let httpClient = HTTPClient(
            eventLoopGroupProvider: .singleton, configuration: MediaCache.httpClientConfiguration())
        let client = UpstreamClient(httpClient: httpClient, headTimeout: .seconds(10), logger: Logger(label: "test"))
        // A client dropped without shutdown traps in a debug build: shut it down on failure too.
        do {
            let headers = [
                ("Authorization", "Basic c2VjcmV0"), ("Cookie", "session=SECRET"),
                ("Proxy-Authorization", "Basic eA=="), ("X-Provider", "kept"),
            ]

            // Same origin: everything is sent.
            let sameTarget = "\(first.baseURL)/files/same.bin?size=10"
            let same = try await client.send(
                url: URL(
                    string:
                        "\(first.baseURL)/redirect-to?url=\(sameTarget.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!)"
                )!,
                headers: headers)
            _ = try await same.body.collect(upTo: 1 << 20)
            let sameHeaders = try #require(first.lastRequestHeaders(path: "/files/same.bin"))
            #expect(sameHeaders.contains { $0.name.lowercased() == "authorization" && $0.value == "Basic c2VjcmV0" })
            #expect(sameHeaders.contains { $0.name.lowercased() == "cookie" })

            // Another port is another origin: credentials stay behind, other headers go on.
            let otherTarget = "\(second.baseURL)/files/other.bin?size=10"
            let other = try await client.send(
                url: URL(
                    string:
                        "\(first.baseURL)/redirect-to?url=\(otherTarget.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!)"
                )!,
                headers: headers)
            #expect(other.status == 200)
            #expect(other.finalURL.port == second.port)
            _ = try await other.body.collect(upTo: 1 << 20)
            let otherHeaders = try #require(second.lastRequestHeaders(path: "/files/other.bin"))
            let names = Set(otherHeaders.map { $0.name.lowercased() })
            #expect(!names.contains("authorization"))
            #expect(!names.contains("cookie"))
            #expect(!names.contains("proxy-authorization"))
            #expect(otherHeaders.contains { $0.name.lowercased() == "x-provider" && $0.value == "kept" })
        } catch {
            try? await httpClient.shutdown()
            throw error
        }

        try await httpClient.shutdown()
        try await first.shutdown()
        try await second.shutdown()
    }

    @Test func originComparisonFillsDefaultPorts() {
        #expect(
            CredentialHeaders.isSameOrigin(URL(string: "http://A.example/x")!, URL(string: "http://a.example:80/y")!))
        #expect(
            !CredentialHeaders.isSameOrigin(URL(string: "http://a.example/x")!, URL(string: "https://a.example/x")!))
        #expect(!CredentialHeaders.isSameOrigin(URL(string: "http://a.example/x")!, URL(string: "http://b.example/x")!))
    }
}
