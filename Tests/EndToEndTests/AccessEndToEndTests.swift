import Foundation
import Testing
import TunerAPI
import TunerTesting

/// API keys with scopes and the browser sign-in, through the real `tuner serve` beyond loopback,
/// `tuner keys` and curl: each key does what its scope allows and gets 403 beyond it (a read key
/// on every action the API has), a signed-in browser's cookie carries its key's powers and no
/// more, and a removed key stops working at once, its sessions with it.
@Suite(.serialized) struct AccessEndToEndTests {
    static let token = "access-test-token-0123456789abcdef"

    @Test("keys do what their scope allows, everywhere; a browser session carries its key's scope")
    func scopesHoldEverywhere() async throws {
        guard let tools = Tools.require(.curl) else { return }
        let workspace = try Workspace()
        defer { workspace.remove() }
        let files = try await TestOrigin.start()
        let data = workspace.file("data")
        let server = try await TunerProcess.serve(
            data: data, arguments: ["--host", "0.0.0.0", "--allow-fetch", "loopback"],
            environment: ["TUNER_TOKEN": Self.token])
        func key(_ name: String, _ scope: String) async throws -> String {
            let made = try await TunerProcess.run(["keys", "add", name, "--scope", scope, "--data", data])
            #expect(made.succeeded, "\(made.transcript)")
            let secret = made.output.split(separator: "\n").map(String.init).first { $0.hasPrefix("tuner_") }
            return try #require(secret, "\(made.transcript)")
        }
        let read = try await key("tv", "read")
        let play = try await key("phone", "play")
        let manage = try await key("laptop", "manage")
        func call(
            _ method: String, _ path: String, bearer: String? = nil, cookie: String? = nil, body: String? = nil,
            extra: [String] = []
        ) async throws -> CurlResponse {
            var options = ["-X", method] + extra
            if let bearer { options += ["-H", "Authorization: Bearer \(bearer)"] }
            if let cookie { options += ["-H", "Cookie: tuner_session=\(cookie)"] }
            if let body { options += ["-H", "Content-Type: application/json", "--data", body] }
            return try await Curl.fetch(tools[.curl], server.baseURL + path, options: options)
        }

        // Nobody: the API says 401, a browser asking for a page is sent to the sign-in.
        #expect(try await call("GET", "/api/v1/transfers").status == 401)
        #expect(try await call("GET", "/api/v1/transfers", bearer: "tuner_not-a-key").status == 401)
        let page = try await call("GET", "/guide", extra: ["-H", "Accept: text/html"])
        #expect(page.status == 303 && page.header("Location") == "/login?next=/guide")
        #expect(try await call("GET", "/api/v1/health").status == 200)

        // A read key looks, and gets 403 on every action the API has.
        #expect(try await call("GET", "/api/v1/transfers", bearer: read).status == 200)
        for endpoint in APIEndpoint.allCases where endpoint.method != "GET" && endpoint != .signIn {
            let answer = try await call(endpoint.method, endpoint.path, bearer: read, body: "{}")
            let expected = endpoint == .signOut ? 204 : 403
            #expect(answer.status == expected, "\(endpoint.method) \(endpoint.path) with a read key: \(answer.status)")
        }
        #expect(try await call("GET", "/api/v1/channels/1/play", bearer: read).status == 403)
        #expect(try await call("GET", "/api/v1/keys", bearer: read).status == 403)
        #expect(try await call("GET", "/api/v1/users", bearer: read).status == 403)
        #expect(
            try await call("POST", "/api/v1/uploads", bearer: read, extra: ["-H", "Tus-Resumable: 1.0.0"]).status == 403
        )
        let refused = try await call("POST", "/api/v1/cache/clear", bearer: read)
        #expect(String(decoding: refused.body, as: UTF8.self).contains("needs manage"))

        // Play watches but does not act; manage acts but does not hold the keys.
        #expect(try await call("GET", "/api/v1/channels/1/play", bearer: play).status == 404)
        #expect(try await call("POST", "/api/v1/cache/clear", bearer: play).status == 403)
        let download = #"{"url": "\#(files.baseURL)/files/a.bin?size=1000"}"#
        #expect(try await call("POST", "/api/v1/transfers", bearer: manage, body: download).status == 201)
        #expect(try await call("GET", "/api/v1/keys", bearer: manage).status == 403)
        #expect(
            try await call("POST", "/api/v1/keys", bearer: manage, body: #"{"name":"x","scope":"admin"}"#).status == 403
        )

        // The owner lists keys, never their secrets, and makes one through the API.
        let listed = try await call("GET", "/api/v1/keys", bearer: Self.token)
        let listing = String(decoding: listed.body, as: UTF8.self)
        #expect(listed.status == 200 && listing.contains("\"laptop\""))
        #expect(!listing.contains(read) && !listing.contains(manage))
        let made = try await call(
            "POST", "/api/v1/keys", bearer: Self.token, body: #"{"name":"script","scope":"admin"}"#)
        #expect(made.status == 201 && String(decoding: made.body, as: UTF8.self).contains("\"secret\":\"tuner_"))

        // A browser signs in with the read key: its cookie is HttpOnly and SameSite=Strict, and
        // carries the read scope, no more.
        #expect(try await call("POST", "/api/v1/session", body: #"{"key":"tuner_wrong"}"#).status == 403)
        let signedIn = try await call("POST", "/api/v1/session", body: #"{"key":"\#(read)"}"#)
        #expect(signedIn.status == 200, "\(String(decoding: signedIn.body, as: UTF8.self))")
        let setCookie = try #require(signedIn.header("Set-Cookie"))
        #expect(setCookie.contains("HttpOnly") && setCookie.contains("SameSite=Strict") && setCookie.contains("Path=/"))
        let cookie = try #require(
            setCookie.split(separator: ";").first?.split(separator: "=", maxSplits: 1).last.map(String.init))
        let who = try await call("GET", "/api/v1/session", cookie: cookie)
        #expect(who.status == 200 && String(decoding: who.body, as: UTF8.self).contains("\"scope\":\"read\""))
        #expect(try await call("GET", "/api/v1/transfers", cookie: cookie).status == 200)
        #expect(try await call("POST", "/api/v1/transfers", cookie: cookie, body: download).status == 403)
        // Another site's page cannot use the session (nor could it send the cookie: SameSite).
        let foreign = try await call(
            "POST", "/api/v1/transfers", bearer: manage, body: download, extra: ["-H", "Origin: http://evil.example"])
        #expect(foreign.status == 403)

        // A removed key stops at once, and its browser sessions with it.
        let keys = try await TunerProcess.run(["keys", "list", "--data", data])
        let line = try #require(keys.output.split(separator: "\n").first { $0.contains("\ttv\t") })
        let id = String(line.split(separator: "\t")[0])
        #expect(try await TunerProcess.run(["keys", "rm", id, "--data", data]).succeeded)
        #expect(try await call("GET", "/api/v1/transfers", bearer: read).status == 401)
        #expect(try await call("GET", "/api/v1/transfers", cookie: cookie).status == 401)
        // Signing out ends a session.
        let owner = try await call("POST", "/api/v1/session", body: #"{"key":"\#(Self.token)"}"#)
        let ownerCookie = try #require(
            owner.header("Set-Cookie")?.split(separator: ";").first?.split(separator: "=", maxSplits: 1).last
                .map(String.init))
        #expect(try await call("GET", "/api/v1/keys", cookie: ownerCookie).status == 200)
        #expect(try await call("DELETE", "/api/v1/session", cookie: ownerCookie).status == 204)
        #expect(try await call("GET", "/api/v1/keys", cookie: ownerCookie).status == 401)

        _ = await server.stop()
        try await files.shutdown()
        // No secret in the server's log.
        for secret in [read, play, manage, Self.token, cookie] {
            #expect(!server.log.contains(secret), "a secret in the log")
        }
    }
}
