import Foundation
import Testing
import TunerTesting

/// Pages follow the API's scopes, and secrets shown once stay shown once, through the real
/// `tuner serve` beyond loopback and curl: a browser signed in with a read key finds no key,
/// token or keyed link on any page; a new API key's secret is in neither the SQLite files nor a
/// replay of its Idempotency-Key; `/login?next=` hands the page only a local path.
@Suite(.serialized) struct ScopedPagesEndToEndTests {
    static let token = "c4e1a9f07b3d52e86a1f0c9d7b2e4a6f8d3c1b5e9a7f0d2c4b6e8a1f3d5c7b9e"

    /// Every page path (`PagesController.pagePaths`, ids filled in) and the sign-in page.
    static let pages = [
        "/", "/tv", "/favourites", "/guide", "/films", "/films/1", "/shows", "/shows/1", "/search?q=a", "/downloads",
        "/downloads/new", "/uploads", "/sources", "/sources/1", "/outputs", "/streams", "/cache", "/settings",
        "/channel/1", "/channel/1/play", "/episode/1/play", "/no-such-page", "/login", "/outputs/default/lineup",
    ]

    /// `tuner serve` beyond loopback with the owner's `token`, and a new API key of `keyScope`.
    static func serve(data: String, keyScope: String, token: String = token) async throws -> (TunerProcess, String) {
        let server = try await TunerProcess.serve(
            data: data, arguments: ["--host", "0.0.0.0"], environment: ["TUNER_TOKEN": token])
        let made = try await TunerProcess.run(["keys", "add", "tv", "--scope", keyScope, "--data", data])
        let key = try #require(made.output.split(separator: "\n").map(String.init).first { $0.hasPrefix("tuner_") })
        return (server, key)
    }

    /// Browser steps' `sign_in(key, page)`: `/login?next=/page`, the key typed, Enter, and the page
    /// shown (steps that use it define `base`).
    static let signInSteps = #"""
        def sign_in(key, page="settings"):
            driver.get(base + "/login?next=/" + page)
            field = driver.find_element(By.ID, "signin-key")
            field.send_keys(key)
            field.send_keys(Keys.ENTER)
            wait_for("return document.body.dataset.page === '" + page + "'", 20)
        """#

    @Test("a read key's browser sees no key, token or keyed link on any page; an admin's sees the links")
    func pagesFollowScopes() async throws {
        guard let tools = Tools.require(.curl) else { return }
        let curl = tools[.curl]
        let workspace = try Workspace()
        defer { workspace.remove() }
        let data = workspace.file("data")
        let (server, read) = try await Self.serve(data: data, keyScope: "read")
        let listed = try await Curl.fetch(
            curl, server.baseURL + "/api/v1/outputs", options: ["-H", "Authorization: Bearer \(Self.token)"])
        let profiles = try JSONDecoder().decode([String: [[String: JSONValue]]].self, from: Data(listed.body))
        let profileKey = try #require(profiles["profiles"]?.first?["accessKey"]?.string)

        func signIn(_ secret: String) async throws -> String {
            let answer = try await Curl.fetch(
                curl, server.baseURL + "/api/v1/session",
                options: ["-X", "POST", "-H", "Content-Type: application/json", "--data", #"{"key":"\#(secret)"}"#])
            let cookie = answer.header("Set-Cookie")?.split(separator: ";").first?.split(separator: "=", maxSplits: 1)
                .last
            return String(try #require(cookie, "sign-in: \(answer.status)"))
        }
        func page(_ path: String, cookie: String) async throws -> (Int, String) {
            let answer = try await Curl.fetch(
                curl, server.baseURL + path,
                options: ["-H", "Cookie: tuner_session=\(cookie)", "-H", "Accept: text/html"])
            return (answer.status, String(decoding: answer.body, as: UTF8.self))
        }

        let reader = try await signIn(read)
        for path in Self.pages {
            let (status, html) = try await page(path, cookie: reader)
            // The lineup editor is the owner's: a read key gets a page saying so, and no list.
            #expect((path.hasSuffix("/lineup") ? [403] : [200, 404]).contains(status), "\(path): \(status)")
            #expect(html.contains("<html"), "\(path) is a page")
            for secret in [profileKey, Self.token, read, "key=", "tuner_"] {
                #expect(!html.contains(secret), "\(path) shows '\(secret.prefix(12))…' to a read key")
            }
            // The owner's panels (logins, keys, backups) are not on a read key's pages at all.
            for panel in ["login-list", "key-list", "backup-now", "lineup-list"] {
                #expect(!html.contains(panel), "\(path) shows \(panel) to a read key")
            }
        }
        // The same page for the owner carries the links: the check above can see them.
        let owner = try await signIn(Self.token)
        let (_, outputs) = try await page("/outputs", cookie: owner)
        #expect(outputs.contains("key=\(profileKey)"))
        #expect(outputs.contains("login-list"))
        let (_, settings) = try await page("/settings", cookie: owner)
        #expect(settings.contains("key-list") && settings.contains("backup-now"))
        let (lineupStatus, lineup) = try await page("/outputs/default/lineup", cookie: owner)
        #expect(lineupStatus == 200 && lineup.contains("lineup-list"))
        await server.stop()
    }

    @Test("lineup editor and logos: admin only, images told by their bytes, served inert, bad changes refused")
    func lineupAndLogos() async throws {
        guard let tools = Tools.require(.curl) else { return }
        let curl = tools[.curl]
        let workspace = try Workspace()
        defer { workspace.remove() }
        let data = workspace.file("data")
        let (server, manage) = try await Self.serve(data: data, keyScope: "manage")
        let owner = ["-H", "Authorization: Bearer \(Self.token)"]
        func post(_ path: String, _ body: Data, type: String, as credential: [String]) async throws -> CurlResponse {
            let file = workspace.file(UUID().uuidString)
            try body.write(to: URL(fileURLWithPath: file))
            return try await Curl.fetch(
                curl, server.baseURL + path,
                options: credential + ["-X", "POST", "-H", "Content-Type: \(type)", "--data-binary", "@" + file])
        }
        let png = Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] + Array(repeating: 7, count: 64))

        // Below admin: neither the list nor an upload.
        let managed = ["-H", "Authorization: Bearer \(manage)"]
        let list = try await Curl.fetch(curl, server.baseURL + "/api/v1/outputs/default/lineup", options: managed)
        #expect(list.status == 403)
        #expect(try await post("/api/v1/logos", png, type: "image/png", as: managed).status == 403)

        // What is not a raster image, or too large, or sent as a form could send it, is refused.
        let svg = Data(#"<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>"#.utf8)
        let refused = try await post("/api/v1/logos", svg, type: "image/png", as: owner)
        #expect(
            refused.status == 400 && String(decoding: refused.body, as: UTF8.self).contains("PNG, JPEG, GIF or WebP"))
        #expect(
            try await post("/api/v1/logos", png + Data(count: 1_048_576), type: "image/png", as: owner).status == 413)
        #expect(try await post("/api/v1/logos", png, type: "text/plain", as: owner).status == 415)

        // A PNG: kept once, served to anyone as an inert image.
        let uploaded = try await post("/api/v1/logos", png, type: "image/png", as: owner)
        #expect(uploaded.status == 201, "\(String(decoding: uploaded.body, as: UTF8.self))")
        #expect(try await post("/api/v1/logos", png, type: "application/octet-stream", as: owner).status == 200)
        let answer = try JSONDecoder().decode([String: String].self, from: Data(uploaded.body))
        let url = try #require(answer["url"])
        let served = try await Curl.fetch(curl, server.baseURL + url)
        #expect(served.status == 200 && Data(served.body) == png)
        #expect(served.header("Content-Type") == "image/png" && served.header("X-Content-Type-Options") == "nosniff")
        #expect(served.header("Content-Security-Policy")?.contains("sandbox") == true)
        let digest = String(url.dropFirst("/logos/".count).prefix(64))
        for path in [
            "/logos/\(digest).svg", "/logos/..%2F..%2Fetc%2Fpasswd", "/logos/\(String(repeating: "0", count: 64)).png",
        ] {
            // Not an uploaded logo's name: nothing (an encoded slash is refused before any route).
            let status = try await Curl.fetch(curl, server.baseURL + path).status
            #expect([400, 404].contains(status), "\(path): \(status)")
        }

        // Changes that name what cannot be are refused whole.
        let identity = "tvg:nothing.here"
        for (body, words) in [
            (#"{"edits":[{"identity":"\#(identity)","logo":"javascript:alert(1)"}]}"#, "a logo must be"),
            (
                #"{"edits":[{"identity":"\#(identity)","logo":"upload:\#(String(repeating: "a", count: 64)).png"}]}"#,
                "upload it first"
            ),
            (#"{"renumber":{"identities":["\#(identity)"],"from":0}}"#, "renumber.from"),
            (#"{"place":{"identity":"\#(identity)","number":5}}"#, "not in the lineup"),
            ("{}", "asks for nothing"),
        ] {
            let changed = try await post(
                "/api/v1/outputs/default/lineup", Data(body.utf8), type: "application/json", as: owner)
            let text = String(decoding: changed.body, as: UTF8.self)
            #expect([400, 404].contains(changed.status) && text.contains(words), "\(body): \(changed.status) \(text)")
        }
        await server.stop()
    }

    @Test("a new key's secret is kept in no receipt: not in the SQLite files, not in a replay")
    func receiptsHoldNoSecret() async throws {
        guard !EndToEndDatabase.skipsSQLiteFileTest("it reads the data folder's SQLite files") else { return }
        guard let tools = Tools.require(.curl) else { return }
        let curl = tools[.curl]
        let workspace = try Workspace()
        defer { workspace.remove() }
        let data = workspace.file("data")
        let server = try await TunerProcess.serve(data: data)
        func create() async throws -> CurlResponse {
            try await Curl.fetch(
                curl, server.baseURL + "/api/v1/keys",
                options: [
                    "-X", "POST", "-H", "Content-Type: application/json", "-H", "Idempotency-Key: make-tv-key-1",
                    "--data", #"{"name":"tv","scope":"read"}"#,
                ])
        }
        let first = try await create()
        #expect(first.status == 201)
        let answer = try JSONDecoder().decode([String: JSONValue].self, from: Data(first.body))
        let secret = try #require(answer["secret"]?.string)
        #expect(secret.hasPrefix("tuner_"))

        // The receipt is there (marked), the secret is nowhere in the database files.
        var stored = Data()
        for name in try FileManager.default.contentsOfDirectory(atPath: data) where name.hasPrefix("tuner.sqlite") {
            stored += FileManager.default.contents(atPath: data + "/" + name) ?? Data()
        }
        #expect(stored.range(of: Data("secretShownOnce".utf8)) != nil, "the receipt was written")
        #expect(stored.range(of: Data(secret.utf8)) == nil, "the secret is in the SQLite files")

        let replay = try await create()
        let replayed = String(decoding: replay.body, as: UTF8.self)
        #expect(replay.status == 201 && replay.header("Idempotent-Replayed") == "true")
        #expect(!replayed.contains(secret) && !replayed.contains(#""secret""#), "\(replayed)")
        #expect(replayed.contains(#""secretShownOnce":true"#), "\(replayed)")
        await server.stop()
    }

    @Test("/login hands its page only a local next")
    func signInNextIsChecked() async throws {
        guard let tools = Tools.require(.curl) else { return }
        let workspace = try Workspace()
        defer { workspace.remove() }
        let server = try await TunerProcess.serve(data: workspace.file("data"))
        let cases = [
            ("/%09/host/page", "/"), ("//evil.example", "/"), ("/%5Cevil.example", "/"),
            ("/%252F%252Fevil.example", "/"), ("https://evil.example", "/"), ("/guide", "/guide"),
        ]
        for (next, expected) in cases {
            let html = String(
                decoding: try await Curl.fetch(tools[.curl], server.baseURL + "/login?next=" + next).body,
                as: UTF8.self)
            #expect(html.contains(#"data-next="\#(expected)""#), "\(next)")
        }
        await server.stop()
    }

    static let hostileNextSteps = #"""
        base, key = args[0], args[1]
        home = "return location.origin === '%s' && location.pathname === '/' && document.body.dataset.page !== 'sign-in'"
        def sign_in():
            field = driver.find_element(By.ID, "signin-key")
            field.send_keys(key)
            field.send_keys(Keys.ENTER)
            wait_for(home % base, 20)
        # What the server hands the page: hostile values become '/'.
        for hostile in ["/%09/evil.example/page", "/%5Cevil.example", "//evil.example/x", "/%2F%2Fevil.example"]:
            driver.delete_all_cookies()
            driver.get(base + "/login?next=" + hostile)
            wait_for("return document.body.dataset.page === 'sign-in'")
            sign_in()
        # The module's own check, should a hostile value reach the form anyway.
        for hostile in ["/	/evil.example/page", "/%09/evil.example", "/\\evil.example", "//evil.example", "/%5C%5Cx"]:
            driver.delete_all_cookies()
            driver.get(base + "/login")
            wait_for("return document.body.dataset.page === 'sign-in'")
            js("document.getElementById('signin').dataset.next = arguments[0]", hostile)
            sign_in()
        # A local next is followed.
        driver.delete_all_cookies()
        driver.get(base + "/login?next=/guide")
        wait_for("return document.body.dataset.page === 'sign-in'")
        field = driver.find_element(By.ID, "signin-key")
        field.send_keys(key)
        field.send_keys(Keys.ENTER)
        wait_for("return document.body.dataset.page === 'guide'", 20)
        report(done=True)
        """#

    @Test("Chromium signs in from /login with hostile next values and stays on Tuner")
    func aBrowserStaysHome() async throws {
        guard let tools = Tools.require(.chromium, .chromedriver) else { return }
        let workspace = try Workspace()
        defer { workspace.remove() }
        let data = workspace.file("data")
        let (server, key) = try await Self.serve(data: data, keyScope: "read")
        let result = try await HeadlessChromium.run(
            steps: Self.hostileNextSteps, arguments: [server.baseURL, key], chromium: tools[.chromium],
            chromedriver: tools[.chromedriver])
        #expect(result.succeeded, "\(result.transcript)")
        #expect(HeadlessChromium.results(of: result)["done"] as? Bool == true, "\(result.transcript)")
        await server.stop()
    }
}
