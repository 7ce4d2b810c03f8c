import Foundation
import Testing
import TunerApp

@testable import TunerServer

/// Scopes on loopback, where local programs act as the owner: a key a page or client presents
/// still narrows what it may do (loopback is not a trust boundary), and the scope each route
/// needs fails closed.
@Suite struct AccessRuleTests {
    @Test("on loopback a presented key narrows the request to its scope; no credential is the owner")
    func keysNarrowOnLoopback() async throws {
        let harness = try await ProxyHarness.start()
        let read = try await harness.server.engine.access.addKey(name: "tv", scope: .read)
        let clear = harness.api + "/cache/clear"
        let refused = try await HTTP.fetch(clear, method: "POST", headers: ["Authorization": "Bearer \(read.secret)"])
        #expect(refused.status == 403)
        #expect(
            try await HTTP.fetch(harness.api + "/transfers", headers: ["Authorization": "Bearer \(read.secret)"]).status
                == 200)
        #expect(try await HTTP.fetch(clear, method: "POST").status == 200)
        // An unknown credential on loopback adds nothing: the request is the owner's as without it.
        #expect(
            try await HTTP.fetch(clear, method: "POST", headers: ["Authorization": "Bearer tuner_unknown"]).status
                == 200)
        try await harness.stop()
    }

    @Test(
        "the scope a request needs",
        arguments: [
            ("GET", "/api/v1/channels", AccessScope.read), ("GET", "/guide", .read), ("GET", "/api/v1/events", .read),
            ("GET", "/api/v1/channels/7/play", .play), ("GET", "/api/v1/channels/7/catchup", .play),
            ("GET", "/api/v1/episodes/7/play", .play), ("POST", "/api/v1/proxy-urls", .manage),
            ("POST", "/api/v1/transfers", .manage), ("DELETE", "/api/v1/streams/x", .manage),
            ("PUT", "/api/v1/something-new", .manage), ("POST", "/api/v1/channels/7/play", .manage),
            ("GET", "/api/v1/keys", .admin), ("GET", "/api/v1/outputs", .admin), ("PATCH", "/api/v1/users/a", .admin),
            ("GET", "/API/V1/KEYS", .admin), ("DELETE", "/api/v1/session", .read),
        ] as [(String, String, AccessScope)])
    func scopes(method: String, path: String, scope: AccessScope) throws {
        let normalised = try RequestPath(normalising: path)
        #expect(AccessRule.scope(for: .init(method)!, path: normalised) == scope)
    }
}
