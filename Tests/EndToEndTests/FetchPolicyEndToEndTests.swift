import Foundation
import Testing
import TunerTesting

/// One fetch policy for every outgoing connection, through the real `tuner serve`: an origin the
/// policy allows (`--allow-fetch 127.0.0.1:<port>`) redirects to a "secret" service on another
/// loopback port, spelled four ways; every path that connects out is refused and the secret
/// service gets no request at all.
@Suite(.serialized) struct FetchPolicyEndToEndTests {
    static let spellings = ["127.0.0.1", "[::ffff:127.0.0.1]", "0.0.0.0", "localhost"]

    static func escaped(_ text: String) -> String {
        text.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? text
    }

    static func call(
        _ curl: String, _ url: String, method: String = "GET", json: String? = nil, bearer: String? = nil,
        timeout: Duration = .seconds(60)
    ) async throws -> (status: Int, body: [String: Any], text: String) {
        var options = ["-X", method]
        if let json { options += ["-H", "Content-Type: application/json", "--data", json] }
        if let bearer { options += ["-H", "Authorization: Bearer \(bearer)"] }
        let answer = try await Curl.fetch(curl, url, options: options, timeout: timeout)
        let text = String(decoding: answer.body, as: UTF8.self)
        let object = (try? JSONSerialization.jsonObject(with: Data(answer.body)) as? [String: Any]) ?? [:]
        return (answer.status, object, text)
    }

    /// Waits for a transfer to end and returns it.
    static func finished(_ curl: String, _ base: String, id: Int) async throws -> [String: Any] {
        let deadline = ContinuousClock.now + .seconds(60)
        var task: [String: Any] = [:]
        while ContinuousClock.now < deadline {
            task = try await call(curl, base + "/api/v1/transfers/\(id)").body
            if let state = task["state"] as? String, state == "error" || state == "complete" { return task }
            try await Task.sleep(for: .milliseconds(200))
        }
        return task
    }

    @Test("a redirect to this machine is refused on every outgoing path, and the target gets no request")
    func everyPathRefusesARedirectToThisMachine() async throws {
        guard let tools = Tools.require(.curl) else { return }
        let curl = tools[.curl]
        let workspace = try Workspace()
        defer { workspace.remove() }
        let origin = try await TestOrigin.start()
        let secret = try await TestOrigin.start()
        let data = workspace.file("data")
        let server = try await TunerProcess.serve(
            data: data, arguments: ["--allow-fetch", "127.0.0.1:\(origin.port)"])
        let base = server.baseURL
        let api = base + "/api/v1"
        func away(_ host: String, _ path: String) -> String {
            "\(origin.baseURL)/redirect-to?url=" + Self.escaped("http://\(host):\(secret.port)\(path)")
        }
        // Playlists served by the allowed origin: their guide, logos and streams lead away.
        let site = workspace.file("site")
        try FileManager.default.createDirectory(atPath: site, withIntermediateDirectories: true)
        for (index, host) in Self.spellings.enumerated() {
            let list = """
                #EXTM3U x-tvg-url="\(away(host, "/static/guide.xml"))"
                #EXTINF:-1 tvg-id="c\(index)" tvg-logo="\(away(host, "/logo.png"))",Away \(index)
                \(away(host, "/live/\(index).ts"))
                """
            try Data(list.utf8).write(to: URL(fileURLWithPath: site + "/list\(index).m3u"))
        }
        origin.serveDirectory(site)
        try FileManager.default.createDirectory(atPath: data + "/files", withIntermediateDirectories: true)
        try Data(repeating: 7, count: 1000).write(to: URL(fileURLWithPath: data + "/files/up.bin"))

        for (index, host) in Self.spellings.enumerated() {
            // The proxy: a proxy URL for the allowed origin is made; its redirect is refused.
            let minted = try await Self.call(
                curl, api + "/proxy-urls", method: "POST", json: #"{"url":"\#(away(host, "/files/p.bin?size=10"))"}"#)
            #expect(minted.status == 201, "\(minted.text)")
            if let proxyURL = minted.body["proxyURL"] as? String {
                let played = try await Curl.fetch(curl, proxyURL)
                let text = String(decoding: played.body, as: UTF8.self)
                #expect(played.status == 403 && text.contains("--allow-fetch"), "\(host): \(played.status) \(text)")
            }

            // A playlist import whose URL redirects away.
            let direct = try await Self.call(
                curl, api + "/sources", method: "POST", json: #"{"location":"\#(away(host, "/static/list0.m3u"))"}"#)
            if let id = direct.body["id"] as? Int {
                let refreshed = try await Self.call(curl, api + "/sources/\(id)/refresh", method: "POST")
                #expect(refreshed.status >= 400 && refreshed.text.contains("--allow-fetch"), "\(refreshed.text)")
            } else {
                Issue.record("the source was not added: \(direct.text)")
            }

            // An allowed playlist whose guide, logo, stream check and live stream lead away.
            let listed = try await Self.call(
                curl, api + "/sources", method: "POST",
                json: #"{"location":"\#(origin.baseURL)/static/list\#(index).m3u"}"#)
            let source = try #require(listed.body["id"] as? Int, "\(listed.text)")
            _ = try await Self.call(curl, api + "/sources/\(source)/refresh", method: "POST")
            let page = try await Self.call(curl, api + "/channels?source=\(source)&limit=10")
            let item = (page.body["items"] as? [[String: Any]])?.first { $0["name"] as? String == "Away \(index)" }
            let channel = try #require(item?["id"] as? Int, "\(page.text)")
            let logo = try await Curl.fetch(curl, api + "/channels/\(channel)/logo")
            #expect(logo.status != 200, "\(host): the logo answered \(logo.status)")
            let checked = try await Self.call(
                curl, api + "/channels/check", method: "POST", json: #"{"ids":[\#(channel)]}"#)
            #expect(checked.status == 200 && checked.body["online"] as? Int == 0, "\(checked.text)")
            let link = try await Self.call(curl, api + "/channels/\(channel)/play")
            if let play = link.body["proxyURL"] as? String {
                let live = try await Curl.fetch(curl, play, timeout: .seconds(20))
                #expect(live.status != 200 || live.body.isEmpty, "\(host): the live stream answered \(live.status)")
            } else {
                Issue.record("no play link: \(link.text)")
            }

            // An Xtream panel whose API redirects away (the query keeps the rest of the URL inert).
            let xtream = try await Self.call(
                curl, api + "/sources", method: "POST",
                json: #"""
                    {"kind":"xtream","location":"\#(away(host, "/player_api.php"))&x=","username":"u","password":"p"}
                    """#)
            if let id = xtream.body["id"] as? Int {
                let refreshed = try await Self.call(curl, api + "/sources/\(id)/refresh", method: "POST")
                #expect(refreshed.status >= 400, "\(refreshed.text)")
            } else {
                #expect(xtream.status >= 400, "\(xtream.text)")
            }

            // A download and a plain upload.
            let download = try await Self.call(
                curl, api + "/transfers", method: "POST", json: #"{"url":"\#(away(host, "/files/d.bin?size=10"))"}"#)
            let downloadID = try #require(
                (download.body["transfers"] as? [[String: Any]])?.first?["id"] as? Int, "\(download.text)")
            let downloaded = try await Self.finished(curl, base, id: downloadID)
            #expect(downloaded["state"] as? String == "error", "\(downloaded)")
            let upload = try await Self.call(
                curl, api + "/transfers", method: "POST",
                json: #"""
                    {"url":"\#(data)/files/up.bin","kind":"upload-plain",\#
                    "properties":{"destinationURL":"\#(away(host, "/sink/up"))"}}
                    """#)
            let uploadID = try #require(
                (upload.body["transfers"] as? [[String: Any]])?.first?["id"] as? Int, "\(upload.text)")
            let uploaded = try await Self.finished(curl, base, id: uploadID)
            #expect(uploaded["state"] as? String == "error", "\(uploaded)")
        }
        // The settings page shows the policy in force.
        let settings = try await Curl.fetch(curl, base + "/settings")
        #expect(String(decoding: settings.body, as: UTF8.self).contains("127.0.0.1:\(origin.port)"))
        // The allowed origin was asked every time; the secret service never.
        #expect(origin.requests(path: "/redirect-to") >= Self.spellings.count * 8)
        let paths =
            [
                "/files/p.bin", "/static/list0.m3u", "/static/guide.xml", "/logo.png", "/player_api.php",
                "/files/d.bin", "/sink/up",
            ] + Self.spellings.indices.map { "/live/\($0).ts" }
        for path in paths {
            #expect(secret.requests(path: path) == 0, "the secret service was asked for \(path)")
        }
        #expect(secret.requestCount == 0)
        await server.stop()

        // The same download under `any` reaches the secret service: the test above can fail.
        let open = try await TunerProcess.serve(data: workspace.file("open"), arguments: ["--allow-fetch", "any"])
        let download = try await Self.call(
            curl, open.baseURL + "/api/v1/transfers", method: "POST",
            json: #"{"url":"\#(away("[::ffff:127.0.0.1]", "/files/d.bin?size=10"))"}"#)
        let id = try #require((download.body["transfers"] as? [[String: Any]])?.first?["id"] as? Int)
        let task = try await Self.finished(curl, open.baseURL, id: id)
        #expect(task["state"] as? String == "complete", "\(task)")
        #expect(secret.requests(path: "/files/d.bin") == 1)
        await open.stop()
        try await origin.shutdown()
        try await secret.shutdown()
    }

    @Test("a play key cannot make a proxy URL for any URL, and still gets play links for channels")
    func playKeysGetCatalogLinksOnly() async throws {
        guard let tools = Tools.require(.curl) else { return }
        let curl = tools[.curl]
        let workspace = try Workspace()
        defer { workspace.remove() }
        let origin = try await TestOrigin.start()
        let site = workspace.file("site")
        try FileManager.default.createDirectory(atPath: site, withIntermediateDirectories: true)
        let list = "#EXTM3U\n#EXTINF:-1,One\n\(origin.baseURL)/files/one.ts?size=1000\n"
        try Data(list.utf8).write(to: URL(fileURLWithPath: site + "/list.m3u"))
        origin.serveDirectory(site)
        let data = workspace.file("data")
        let token = "fetch-policy-e2e-" + UUID().uuidString.lowercased()
        let server = try await TunerProcess.serve(
            data: data, arguments: ["--host", "0.0.0.0", "--allow-fetch", "loopback"],
            environment: ["TUNER_TOKEN": token])
        let made = try await TunerProcess.run(["keys", "add", "phone", "--scope", "play", "--data", data])
        let play = try #require(
            made.output.split(separator: "\n").map(String.init).first { $0.hasPrefix("tuner_") }, "\(made.transcript)")
        let api = server.baseURL + "/api/v1"
        let added = try await Self.call(
            curl, api + "/sources", method: "POST", json: #"{"location":"\#(origin.baseURL)/static/list.m3u"}"#,
            bearer: token)
        let source = try #require(added.body["id"] as? Int, "\(added.text)")
        _ = try await Self.call(curl, api + "/sources/\(source)/refresh", method: "POST", bearer: token)
        let page = try await Self.call(curl, api + "/channels?limit=10", bearer: play)
        let channel = try #require((page.body["items"] as? [[String: Any]])?.first?["id"] as? Int, "\(page.text)")

        let arbitrary = #"{"url":"\#(origin.baseURL)/files/any.bin?size=10"}"#
        let refused = try await Self.call(curl, api + "/proxy-urls", method: "POST", json: arbitrary, bearer: play)
        #expect(refused.status == 403 && refused.text.contains("needs manage"), "\(refused.text)")
        let link = try await Self.call(curl, api + "/channels/\(channel)/play", bearer: play)
        #expect(link.status == 200 && link.body["proxyURL"] is String, "\(link.text)")
        let owner = try await Self.call(curl, api + "/proxy-urls", method: "POST", json: arbitrary, bearer: token)
        #expect(owner.status == 201, "\(owner.text)")
        await server.stop()
        try await origin.shutdown()
    }
}
