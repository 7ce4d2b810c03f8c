import Foundation
import Testing
import TunerTesting

/// Tuner as other players see it: SiliconDust's `hdhomerun_config` finds it by UDP, the lineup
/// streams MPEG-TS that ffprobe reads (extra query parameters and all), the M3U and XMLTV outputs
/// agree on one number per channel, and no provider secret reaches a player.
@Suite(.serialized) struct OutputsEndToEndTests {
    struct Fixture {
        let workspace: Workspace
        let origin: TestOrigin
        let playlistURL: String
    }

    /// A TS channel, a channel whose URL carries credentials, and a guide for the first.
    static func fixture(ffmpeg: String) async throws -> Fixture {
        let workspace = try Workspace()
        let served = workspace.file("served")
        try FileManager.default.createDirectory(atPath: served, withIntermediateDirectories: true)
        let made = try await Subprocess.run(
            ffmpeg,
            [
                "-v", "error", "-y", "-f", "lavfi", "-i", "testsrc=duration=3:size=320x240:rate=25", "-c:v",
                "libx264", "-preset", "ultrafast", "-f", "mpegts", served + "/news.ts",
            ])
        #expect(made.succeeded, "\(made.transcript)")
        let origin = try await TestOrigin.start()
        origin.serveDirectory(served)
        let now = Date()
        let format = DateFormatter()
        format.locale = Locale(identifier: "en_US_POSIX")
        format.timeZone = TimeZone(identifier: "UTC")
        format.dateFormat = "yyyyMMddHHmmss"
        let guide = """
            <?xml version="1.0" encoding="UTF-8"?>
            <tv><channel id="news.uk"><display-name>News</display-name></channel>
            <programme start="\(format.string(from: now.addingTimeInterval(-1800))) +0000" \
            stop="\(format.string(from: now.addingTimeInterval(1800))) +0000" channel="news.uk">\
            <title>Evening &amp; News</title><desc>Headlines</desc></programme></tv>
            """
        try Data(guide.utf8).write(to: URL(fileURLWithPath: served + "/guide.xml"))
        let playlist = """
            #EXTM3U
            #EXTINF:-1 tvg-id="news.uk" tvg-logo="\(origin.baseURL)/static/logo.png" group-title="News" \
            catchup="default" catchup-days="3" catchup-source="\(origin.baseURL)/static/news.ts?start={utc}",News HD
            \(origin.baseURL)/static/news.ts
            #EXTINF:-1 group-title="Sport",Sport
            http://viewer:hunter2@127.0.0.1:9/live/viewer/hunter2/7.ts
            """
        try Data(playlist.utf8).write(to: URL(fileURLWithPath: served + "/list.m3u"))
        return Fixture(workspace: workspace, origin: origin, playlistURL: origin.baseURL + "/static/list.m3u")
    }

    static func addSource(_ fixture: Fixture, server: TunerProcess, curl: String, token: String? = nil) async throws {
        let body = #"{"location":"\#(fixture.playlistURL)","epgURLs":["\#(fixture.origin.baseURL)/static/guide.xml"]}"#
        var options = ["-X", "POST", "-H", "Content-Type: application/json", "--data", body]
        if let token { options += ["-H", "Authorization: Bearer \(token)"] }
        let added = try await Curl.fetch(curl, server.baseURL + "/api/v1/sources", options: options)
        #expect(added.status == 201, "\(String(decoding: added.body, as: UTF8.self))")
        let source = try JSONDecoder().decode([String: JSONValue].self, from: Data(added.body))
        let id = Int(try #require(source["id"]?.number))
        var refresh = ["-X", "POST"]
        if let token { refresh += ["-H", "Authorization: Bearer \(token)"] }
        let refreshed = try await Curl.fetch(curl, server.baseURL + "/api/v1/sources/\(id)/refresh", options: refresh)
        #expect(refreshed.status == 200, "\(String(decoding: refreshed.body, as: UTF8.self))")
    }

    @Test("hdhomerun_config discovers Tuner; the lineup, M3U and XMLTV agree and play")
    func playersSeeOneLineup() async throws {
        guard let tools = Tools.require(.curl, .ffmpeg, .ffprobe, .hdhomerunConfig, .tvValidateFile) else { return }
        let fixture = try await Self.fixture(ffmpeg: tools[.ffmpeg])
        defer { fixture.workspace.remove() }
        let server = try await TunerProcess.serve(
            data: fixture.workspace.file("data"),
            arguments: ["--hdhomerun-discovery-port", "65001", Self.smallTranscode])
        try await Self.addSource(fixture, server: server, curl: tools[.curl])

        // HDHomeRun, as Plex and Jellyfin read it.
        let discover = try await Curl.fetch(tools[.curl], server.baseURL + "/discover.json")
        let device = try JSONDecoder().decode([String: JSONValue].self, from: Data(discover.body))
        let deviceID = try #require(device["DeviceID"]?.string)
        #expect(deviceID.count == 8 && UInt32(deviceID, radix: 16) != nil)
        #expect(device["ModelNumber"]?.string == "HDTC-2US")
        #expect(device["LineupURL"]?.string == server.baseURL + "/output/default/lineup.json")

        let status = try await Curl.fetch(tools[.curl], server.baseURL + "/lineup_status.json")
        #expect(String(decoding: status.body, as: UTF8.self).contains(#""ScanInProgress":0"#))
        #expect(
            try await Curl.fetch(tools[.curl], server.baseURL + "/lineup.post", options: ["-X", "POST"]).status == 200)
        let description = try await Curl.fetch(tools[.curl], server.baseURL + "/device.xml")
        #expect(String(decoding: description.body, as: UTF8.self).contains("<serialNumber>\(deviceID)</serialNumber>"))

        // SiliconDust's own client finds it by UDP.
        let found = try await Subprocess.run(tools[.hdhomerunConfig], ["discover", "127.0.0.1"], timeout: .seconds(20))
        #expect(
            found.output.contains("hdhomerun device \(deviceID) found at 127.0.0.1"),
            "discovery: \(found.transcript)")

        let lineupResponse = try await Curl.fetch(tools[.curl], server.baseURL + "/lineup.json")
        let lineup = try JSONDecoder().decode([[String: JSONValue]].self, from: Data(lineupResponse.body))
        #expect(lineup.map { $0["GuideNumber"]?.string } == ["1", "2"])
        #expect(lineup.first?["GuideName"]?.string == "News HD" && lineup.first?["HD"]?.number == 1)
        let newsURL = try #require(lineup.first?["URL"]?.string)
        #expect(newsURL == server.baseURL + "/play/default/1")

        // The stream is MPEG-TS, also when the player asks for a size (the transcode profile).
        let probe = try await Subprocess.run(
            tools[.ffprobe],
            ["-v", "error", "-show_entries", "format=format_name", "-of", "csv=p=0", newsURL + "?transcode=heavy"],
            timeout: .seconds(60))
        #expect(probe.output.trimmingCharacters(in: .whitespacesAndNewlines) == "mpegts", "\(probe.transcript)")

        // The M3U: tvg-chno = GuideNumber, tvg-id = the XMLTV id, Tuner's URLs only.
        let m3u = String(
            decoding: try await Curl.fetch(tools[.curl], server.baseURL + "/output/default.m3u").body, as: UTF8.self)
        #expect(m3u.hasPrefix("#EXTM3U"))
        #expect(
            m3u.contains(#"tvg-id="1.tuner""#) && m3u.contains(#"tvg-chno="1""#) && m3u.contains(#"group-title="News""#)
        )
        #expect(m3u.contains("\n" + server.baseURL + "/play/default/2\n"))
        #expect(m3u.contains(#"url-tvg="\#(server.baseURL)/output/default.xml""#))
        // Catch-up through Tuner: the player fills in the template; Tuner asks the provider its way.
        let template = #"catchup-source="\#(server.baseURL)/play/default/1?utc={utc}&duration={duration}""#
        #expect(m3u.contains(#"catchup="default""#) && m3u.contains(template), "\(m3u)")
        let start = Int(Date().timeIntervalSince1970) - 1800
        let past = try await Subprocess.run(
            tools[.ffprobe],
            [
                "-v", "error", "-show_entries", "format=format_name", "-of", "csv=p=0",
                server.baseURL + "/play/default/1?utc=\(start)&duration=1800",
            ], timeout: .seconds(60))
        #expect(past.output.trimmingCharacters(in: .whitespacesAndNewlines) == "mpegts", "\(past.transcript)")
        // Any of the requests: the live session of the first probe may reconnect after this one.
        #expect(fixture.origin.requestURIs(path: "/static/news.ts").contains { $0.contains("start=\(start)") })
        #expect(try await Curl.fetch(tools[.curl], server.baseURL + "/play/default/1?utc=soon").status == 400)
        #expect(try await Curl.fetch(tools[.curl], server.baseURL + "/play/default/2?utc=\(start)").status == 409)

        // The XMLTV: valid by the XMLTV project's own validator; channel ids are made of the numbers.
        let guide = try await Curl.fetch(tools[.curl], server.baseURL + "/output/default.xml")
        let guidePath = fixture.workspace.file("out.xml")
        try Data(guide.body).write(to: URL(fileURLWithPath: guidePath))
        let text = String(decoding: guide.body, as: UTF8.self)
        #expect(text.contains(#"<channel id="1.tuner">"#) && text.contains("<title>Evening &amp; News</title>"))
        #expect(text.contains(#"channel="2.tuner""#), "a channel without a guide gets placeholder programmes")
        let validated = try await Subprocess.run(
            tools[.tvValidateFile], [guidePath],
            environment: Subprocess.childEnvironment().merging(["XMLTV_SUPPLEMENT": "/usr/share/xmltv"]) { $1 })
        #expect(validated.succeeded, "tv_validate_file: \(validated.transcript)")
        let ownCheck = try await TunerProcess.run(["xmltv", "check", guidePath])
        #expect(ownCheck.succeeded, "tuner xmltv check: \(ownCheck.transcript)")
        // Gzipped when the player asks; the same document once inflated. The document moves
        // with the clock (placeholders start on the hour before now), so it is compared with a
        // plain fetch made right after; fetches that straddle the hour are made again.
        var gzipped = try await Curl.fetch(
            tools[.curl], server.baseURL + "/output/default.xml", options: ["--compressed"])
        var plain = try await Curl.fetch(tools[.curl], server.baseURL + "/output/default.xml")
        for _ in 0..<2 where gzipped.body != plain.body {
            gzipped = try await Curl.fetch(
                tools[.curl], server.baseURL + "/output/default.xml", options: ["--compressed"])
            plain = try await Curl.fetch(tools[.curl], server.baseURL + "/output/default.xml")
        }
        #expect(gzipped.header("Content-Encoding") == "gzip")
        #expect(plain.header("Content-Encoding") == nil)
        #expect(gzipped.body == plain.body, "the gzipped guide inflates to the plain one")

        // No provider secret reaches a player.
        for (name, body) in [
            ("m3u", m3u), ("xml", text), ("lineup", String(decoding: lineupResponse.body, as: UTF8.self)),
        ] {
            #expect(!body.contains("hunter2") && !body.contains(fixture.origin.baseURL), "\(name) leaks the provider")
        }

        // Unknown profiles and channels are 404.
        #expect(try await Curl.fetch(tools[.curl], server.baseURL + "/output/nope.m3u").status == 404)
        #expect(try await Curl.fetch(tools[.curl], server.baseURL + "/play/default/99").status == 404)
        #expect(try await Curl.fetch(tools[.curl], server.baseURL + "/play/default/x").status == 404)
        _ = await server.stop()
    }

    @Test("Beyond loopback an output needs the profile's key, and its URLs carry it")
    func outputsNeedTheKeyBeyondLoopback() async throws {
        guard let tools = Tools.require(.curl, .ffmpeg) else { return }
        let fixture = try await Self.fixture(ffmpeg: tools[.ffmpeg])
        defer { fixture.workspace.remove() }
        let data = fixture.workspace.file("data")
        let token = "outputs-test-token-0123456789"
        // The provider is on this machine, which the default beyond loopback (`remote`) refuses.
        let server = try await TunerProcess.serve(
            data: data, arguments: ["--host", "0.0.0.0", "--allow-fetch", "loopback"],
            environment: ["TUNER_TOKEN": token])
        try await Self.addSource(fixture, server: server, curl: tools[.curl], token: token)

        #expect(try await Curl.fetch(tools[.curl], server.baseURL + "/output/default.m3u").status == 401)
        #expect(try await Curl.fetch(tools[.curl], server.baseURL + "/discover.json").status == 401)
        #expect(try await Curl.fetch(tools[.curl], server.baseURL + "/play/default/1").status == 401)
        #expect(try await Curl.fetch(tools[.curl], server.baseURL + "/output/default.m3u?key=wrong").status == 401)

        let listed = try await Curl.fetch(
            tools[.curl], server.baseURL + "/api/v1/outputs", options: ["-H", "Authorization: Bearer \(token)"])
        let profiles = try JSONDecoder().decode([String: [[String: JSONValue]]].self, from: Data(listed.body))
        let profile = try #require(profiles["profiles"]?.first)
        let key = try #require(profile["accessKey"]?.string)
        let playlistURL = try #require(profile["playlistURL"]?.string)
        #expect(playlistURL.hasSuffix("/output/default.m3u?key=\(key)"))

        let m3u = try await Curl.fetch(tools[.curl], playlistURL)
        #expect(m3u.status == 200)
        #expect(String(decoding: m3u.body, as: UTF8.self).contains("/play/default/1?key=\(key)\n"))
        let hdhomerun = try #require(profile["hdhomerunURL"]?.string)
        let discover = try await Curl.fetch(tools[.curl], hdhomerun + "/discover.json")
        #expect(discover.status == 200)
        #expect(String(decoding: discover.body, as: UTF8.self).contains("/output/default/key/\(key)/lineup.json"))
        // A key that players extended with their own query still opens the stream.
        let stream = try await Curl.fetch(
            tools[.curl], server.baseURL + "/play/default/1?key=\(key)?transcode=internet540", options: ["-r", "0-187"])
        #expect([200, 206].contains(stream.status))
        _ = await server.stop()
    }
}

extension OutputsEndToEndTests {
    @Test("Profiles are added, changed and removed through the API and the CLI, with their own numbers")
    func profilesThroughTheAPIAndTheCLI() async throws {
        guard let tools = Tools.require(.curl, .ffmpeg) else { return }
        let fixture = try await Self.fixture(ffmpeg: tools[.ffmpeg])
        defer { fixture.workspace.remove() }
        let data = fixture.workspace.file("data")
        let server = try await TunerProcess.serve(data: data)
        try await Self.addSource(fixture, server: server, curl: tools[.curl])
        let json = ["-H", "Content-Type: application/json"]

        let added = try await Curl.fetch(
            tools[.curl], server.baseURL + "/api/v1/outputs",
            options: json + ["-X", "POST", "--data", #"{"id":"sport","groups":["Sport"],"start":100,"name":"Sports"}"#])
        #expect(added.status == 201, "\(String(decoding: added.body, as: UTF8.self))")
        let profile = try JSONDecoder().decode([String: JSONValue].self, from: Data(added.body))
        #expect(profile["channelCount"]?.number == 1 && profile["name"]?.string == "Sports")
        let m3u = String(
            decoding: try await Curl.fetch(tools[.curl], server.baseURL + "/output/sport.m3u").body, as: UTF8.self)
        #expect(m3u.contains(#"tvg-chno="100""#) && m3u.contains(",Sport\n") && !m3u.contains("News HD"))

        let renamed = try await Curl.fetch(
            tools[.curl], server.baseURL + "/api/v1/outputs/sport",
            options: json + ["-X", "PATCH", "--data", #"{"name":"Sport only","start":500}"#])
        #expect(renamed.status == 200)
        let lineup = try await Curl.fetch(tools[.curl], server.baseURL + "/api/v1/outputs/sport/channels")
        #expect(
            String(decoding: lineup.body, as: UTF8.self).contains(#""number":100"#),
            "a new start leaves given numbers where they are")

        for (body, status) in [
            (#"{"id":"Bad/Id"}"#, 400), (#"{"id":"sport"}"#, 409), (#"{"id":"x","start":0}"#, 400),
            (#"{"id":"y","order":"random"}"#, 400), (#"{"id":"z","kinds":["radio"]}"#, 400), ("not json", 400),
        ] {
            let refused = try await Curl.fetch(
                tools[.curl], server.baseURL + "/api/v1/outputs", options: json + ["-X", "POST", "--data", body])
            #expect(refused.status == status, "\(body): \(String(decoding: refused.body, as: UTF8.self))")
        }
        let removeDefault = try await Curl.fetch(
            tools[.curl], server.baseURL + "/api/v1/outputs/default", options: ["-X", "DELETE"])
        #expect(removeDefault.status == 409)

        // The CLI works on the same data folder beside the server.
        let cliAdd = try await TunerProcess.run(["outputs", "add", "news", "--group", "News", "--data", data])
        #expect(cliAdd.succeeded, "\(cliAdd.transcript)")
        #expect(cliAdd.output.contains("/output/news.m3u?key="))
        let shown = try await TunerProcess.run(["outputs", "show", "news", "--data", data])
        #expect(shown.output == "1\tNews HD\tNews\n", "\(shown.transcript)")
        // The lineup editor's changes from the command line, by identity, all in one.
        let identities = try await TunerProcess.run(["outputs", "show", "news", "--identities", "--data", data])
        let identity = try #require(
            identities.output.split(separator: "\t").last.map { $0.trimmingCharacters(in: .whitespacesAndNewlines) })
        let edited = try await TunerProcess.run([
            "outputs", "edit", "news", "--renumber-from", "50", "--rename", identity + "=Headlines", "--group",
            identity + "=Talk", "--data", data,
        ])
        #expect(edited.output == "50\tHeadlines\tTalk\n", "\(edited.transcript)")
        let badLogo = try await TunerProcess.run([
            "outputs", "edit", "news", "--logo", identity + "=javascript:alert(1)", "--disable", identity, "--data",
            data,
        ])
        #expect(!badLogo.succeeded && badLogo.transcript.contains("a logo must be"), "\(badLogo.transcript)")
        #expect(
            try await TunerProcess.run(["outputs", "show", "news", "--data", data]).output == "50\tHeadlines\tTalk\n")
        // A picked profile starts empty; channels added and numbered in one command.
        let picked = try await TunerProcess.run(["outputs", "add", "picked", "--enable-picked-only", "--data", data])
        #expect(picked.succeeded && picked.output.contains("0 channels"), "\(picked.transcript)")
        let filled = try await TunerProcess.run([
            "outputs", "edit", "picked", "--add", identity, "--renumber-from", "7", "--data", data,
        ])
        #expect(filled.output == "7\tNews HD\tNews\n", "\(filled.transcript)")
        let listed = try await TunerProcess.run(["outputs", "--data", data])
        #expect(
            listed.output.contains("default\t") && listed.output.contains("sport\t") && listed.output.contains("news\t")
        )
        let cliRemove = try await TunerProcess.run(["outputs", "remove", "news", "--data", data])
        #expect(cliRemove.succeeded)
        let removed = try await Curl.fetch(
            tools[.curl], server.baseURL + "/api/v1/outputs/sport", options: ["-X", "DELETE"])
        #expect(removed.status == 204)
        #expect(try await Curl.fetch(tools[.curl], server.baseURL + "/output/sport.m3u").status == 404)
        #expect(try await Curl.fetch(tools[.curl], server.baseURL + "/output/news.xml").status == 404)
        _ = await server.stop()
    }
}

extension OutputsEndToEndTests {
    @Test("A second port serves the HDHomeRun files; a base URL puts every output URL behind a proxy")
    func hdhomerunPortAndBaseURL() async throws {
        guard let tools = Tools.require(.curl, .ffmpeg) else { return }
        let fixture = try await Self.fixture(ffmpeg: tools[.ffmpeg])
        defer { fixture.workspace.remove() }
        let extraPort = try Self.freePort()
        let server = try await TunerProcess.serve(
            data: fixture.workspace.file("data"), arguments: ["--hdhomerun-http-port", String(extraPort)])
        try await Self.addSource(fixture, server: server, curl: tools[.curl])
        let second = "http://127.0.0.1:\(extraPort)"
        let discover = try await Curl.fetch(tools[.curl], second + "/discover.json")
        #expect(discover.status == 200)
        #expect(
            String(decoding: discover.body, as: UTF8.self).contains(
                #""LineupURL":"\#(server.baseURL)/output/default/lineup.json""#),
            "the second port's answers point at the main port")
        let lineup = String(decoding: try await Curl.fetch(tools[.curl], second + "/lineup.json").body, as: UTF8.self)
        #expect(lineup.contains(#""URL":"\#(server.baseURL)/play/default/1""#), "\(lineup)")
        #expect(try await Curl.fetch(tools[.curl], second + "/output/default.m3u").status == 404)
        #expect(try await Curl.fetch(tools[.curl], second + "/api/v1/sources").status == 404)
        _ = await server.stop()

        let proxied = try await TunerProcess.serve(
            data: fixture.workspace.file("data"),
            arguments: ["--base-url", "https://tv.example/tuner/", "--guide-placeholders", "off"])
        let bare = String(
            decoding: try await Curl.fetch(tools[.curl], proxied.baseURL + "/output/default.xml").body, as: UTF8.self)
        #expect(bare.contains(#"<channel id="2.tuner">"#) && !bare.contains(#"channel="2.tuner""#), "no placeholders")
        let m3u = String(
            decoding: try await Curl.fetch(tools[.curl], proxied.baseURL + "/output/default.m3u").body, as: UTF8.self)
        #expect(m3u.contains("\nhttps://tv.example/tuner/play/default/1\n"), "\(m3u)")
        #expect(m3u.contains(#"url-tvg="https://tv.example/tuner/output/default.xml""#))
        _ = await proxied.stop()

        // SSDP: a unicast search gets the default profile's device description.
        let ssdpPort = try Self.freePort()
        let upnp = try await TunerProcess.serve(
            data: fixture.workspace.file("data"), arguments: ["--ssdp-port", String(ssdpPort)])
        let search = try await Subprocess.run(
            "/usr/bin/env",
            [
                "python3", "-c",
                """
                import socket, sys
                s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM); s.settimeout(10)
                s.sendto(b'M-SEARCH * HTTP/1.1\\r\\nHOST: 239.255.255.250:1900\\r\\nMAN: "ssdp:discover"\\r\\nMX: 1\\r\\n'
                         b'ST: urn:schemas-upnp-org:device:MediaServer:1\\r\\n\\r\\n', ('127.0.0.1', int(sys.argv[1])))
                print(s.recvfrom(4096)[0].decode())
                """, String(ssdpPort),
            ])
        #expect(search.output.contains("LOCATION: \(upnp.baseURL)/output/default/device.xml"), "\(search.transcript)")
        let description = try await Curl.fetch(tools[.curl], upnp.baseURL + "/output/default/device.xml")
        #expect(String(decoding: description.body, as: UTF8.self).contains("<modelNumber>HDTC-2US</modelNumber>"))
        _ = await upnp.stop()

        let refused = try await TunerProcess.run(
            ["serve", "--port", "0", "--data", fixture.workspace.file("data"), "--base-url", "ftp://x"])
        #expect(!refused.succeeded && refused.errorOutput.contains("--base-url"), "\(refused.transcript)")
        let badSwitch = try await TunerProcess.run(
            ["serve", "--port", "0", "--data", fixture.workspace.file("data"), "--guide-placeholders", "maybe"])
        #expect(!badSwitch.succeeded && badSwitch.errorOutput.contains("--guide-placeholders"))
    }

    /// A loopback port free a moment ago: TunerTesting's bound-but-silent port, let go.
    static func freePort() throws -> Int {
        try RefusingPort().port
    }
}

extension OutputsEndToEndTests {
    /// A transcode profile a loaded 2-core machine runs faster than real time: the default
    /// (720p, x264 veryfast) may not give its first bytes within the stall timeout while the
    /// rest of the suite runs, and these tests are about the outputs, not the encoder's speed.
    static let smallTranscode =
        "--transcode-args=-c:v libx264 -preset ultrafast -vf scale=160:90 -g 25 -c:a aac -b:a 32k"

    @Test("An HLS channel plays from the lineup as MPEG-TS, remuxed by ffmpeg")
    func hlsChannelsAreRemuxedToTS() async throws {
        guard let tools = Tools.require(.curl, .ffmpeg, .ffprobe) else { return }
        let fixtures = try await HLSFixtures.shared()
        let workspace = try Workspace()
        defer { workspace.remove() }
        let origin = try await TestOrigin.start()
        origin.serveDirectory(fixtures.directory)
        let playlist = workspace.file("list.m3u")
        try Data("#EXTM3U\n#EXTINF:-1,Movie channel\n\(origin.baseURL)/static/vod/master.m3u8\n".utf8)
            .write(to: URL(fileURLWithPath: playlist))
        let data = workspace.file("data")
        let added = try await TunerProcess.run(["sources", "add", playlist, "--data", data])
        #expect(added.succeeded, "\(added.transcript)")
        let server = try await TunerProcess.serve(data: data, arguments: [Self.smallTranscode])
        let head = try await Curl.fetch(tools[.curl], server.baseURL + "/play/default/1", options: ["-I"])
        #expect(head.status == 200 && head.header("Content-Type") == "video/mp2t")
        let probe = try await Subprocess.run(
            tools[.ffprobe],
            [
                "-v", "error", "-show_entries", "format=format_name:stream=codec_type", "-of", "csv=p=0",
                server.baseURL + "/play/default/1?transcode=internet540",
            ], timeout: .seconds(60))
        let lines = probe.output.split(separator: "\n").map(String.init)
        #expect(lines.contains("mpegts") && lines.contains("video"), "\(probe.transcript)")
        _ = await server.stop()
    }
}

/// Just enough JSON to read answers without `[String: Any]`.
enum JSONValue: Decodable, Equatable {
    case string(String)
    case number(Double)
    case bool(Bool)
    case null
    case array([JSONValue])
    case object([String: JSONValue])

    init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            self = .null
        } else if let value = try? container.decode(Bool.self) {
            self = .bool(value)
        } else if let value = try? container.decode(Double.self) {
            self = .number(value)
        } else if let value = try? container.decode(String.self) {
            self = .string(value)
        } else if let value = try? container.decode([JSONValue].self) {
            self = .array(value)
        } else {
            self = .object(try container.decode([String: JSONValue].self))
        }
    }

    var string: String? { if case .string(let value) = self { value } else { nil } }
    var number: Double? { if case .number(let value) = self { value } else { nil } }
    var array: [JSONValue]? { if case .array(let value) = self { value } else { nil } }
    var object: [String: JSONValue]? { if case .object(let value) = self { value } else { nil } }
    var bool: Bool? { if case .bool(let value) = self { value } else { nil } }
}
