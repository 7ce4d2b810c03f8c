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

    static let signInSteps = #"""
        base, key = args[0], args[1]
        # A page without a session goes to the sign-in, which comes back to it.
        driver.get(base + "/guide")
        wait_for("return document.body.dataset.page === 'sign-in'")
        check("/login?next=/guide" in driver.current_url, "sent to the sign-in: " + driver.current_url)
        check(not js("return !!document.querySelector('nav')"), "no sections before signing in")
        field = driver.find_element(By.ID, "signin-key")
        field.send_keys("tuner_wrong")
        field.send_keys(Keys.ENTER)
        wait_for("return document.getElementById('signin-status').textContent.includes('neither')")
        screenshot("sign-in")
        field.clear()
        field.send_keys(key)
        field.send_keys(Keys.ENTER)
        wait_for("return document.body.dataset.page === 'guide'", 20)
        check(driver.current_url.endswith("/guide"), "back where it started: " + driver.current_url)
        # The cookie is the browser's, not the page's; the live connection opens with it.
        check("tuner_session" not in js("return document.cookie"), "the session cookie is readable by scripts")
        wait_for("return document.getElementById('connection').dataset.state === 'live'", 20)
        # The page has the read key's powers: an action is refused.
        status = js("""return fetch('/api/v1/cache/clear', {method: 'POST'}).then(r => r.status)""")
        check(status == 403, "a read key's page cleared the cache: %s" % status)
        # Sign out from Settings: back to the sign-in, and the API no longer answers.
        driver.get(base + "/settings")
        wait_for("return document.body.dataset.page === 'settings'")
        driver.find_element(By.CSS_SELECTOR, "[data-sign-out]").click()
        wait_for("return document.body.dataset.page === 'sign-in'", 20)
        status = js("""return fetch('/api/v1/transfers').then(r => r.status)""")
        check(status == 401, "still signed in after signing out: %s" % status)
        report(done=True)
        """#

    @Test("a browser beyond loopback signs in with a key, gets that key's powers, and signs out")
    func aBrowserSignsIn() async throws {
        guard let tools = Tools.require(.curl, .chromium, .chromedriver) else { return }
        let workspace = try Workspace()
        defer { workspace.remove() }
        let data = workspace.file("data")
        let server = try await TunerProcess.serve(
            data: data, arguments: ["--host", "0.0.0.0"], environment: ["TUNER_TOKEN": Self.token])
        let made = try await TunerProcess.run(["keys", "add", "tv", "--scope", "read", "--data", data])
        let key = try #require(made.output.split(separator: "\n").map(String.init).first { $0.hasPrefix("tuner_") })
        let result = try await HeadlessChromium.run(
            steps: Self.signInSteps, arguments: [server.baseURL, key], chromium: tools[.chromium],
            chromedriver: tools[.chromedriver], screenshots: HeadlessChromium.screenshotFolder(suite: "web-app"))
        #expect(result.succeeded, "\(result.transcript)\n\(server.log.suffix(2000))")
        #expect(HeadlessChromium.results(of: result)["done"] as? Bool == true, "\(result.transcript)")
        _ = await server.stop()
        #expect(!server.log.contains(key), "the key in the log")
    }
}
