import Foundation
import Testing
import TunerTesting

/// The Xtream output as panels speak it, read by a Python Xtream client (pyxtream, from PyPI) and
/// by the request sequence of TiviMate-style apps, for a login with two profiles (live channels;
/// films and series) plus one that repeats the first.
@Suite(.serialized) struct XtreamPanelEndToEndTests {
    /// A running Tuner with an M3U source (a real TS channel with a guide, and one more), an Xtream
    /// provider (a live channel, a film, a series of two seasons), profiles `tv` (live) and
    /// `films` (films and series), and logins: `viewer` (tv, films, default; expires in 30 days),
    /// `forever` (no expiry) and `old` (expired).
    struct Setup {
        let fixture: OutputsEndToEndTests.Fixture
        let fake: XtreamFake
        let server: TunerProcess
        let curl: String
        var login: String { server.baseURL + "/player_api.php?username=viewer&password=correct-horse" }

        func get(_ url: String) async throws -> CurlResponse { try await Curl.fetch(curl, url) }

        func json(_ url: String) async throws -> JSONValue {
            let answer = try await get(url)
            #expect(answer.status == 200, "\(url): \(answer.status) \(String(decoding: answer.body, as: UTF8.self))")
            return try JSONDecoder().decode(JSONValue.self, from: Data(answer.body))
        }

        func stop() async throws {
            _ = await server.stop()
            try await fake.shutdown()
            fixture.workspace.remove()
        }
    }

    static func setUp(curl: String, ffmpeg: String) async throws -> Setup {
        let fixture = try await OutputsEndToEndTests.fixture(ffmpeg: ffmpeg)
        let fake = try await XtreamFake.start(responses: XtreamOutputEndToEndTests.provider)
        let server = try await TunerProcess.serve(data: fixture.workspace.file("data"))
        try await OutputsEndToEndTests.addSource(fixture, server: server, curl: curl)
        let json = ["-H", "Content-Type: application/json", "-X", "POST"]
        func post(_ path: String, _ body: String) async throws -> [String: JSONValue] {
            let answer = try await Curl.fetch(curl, server.baseURL + path, options: json + ["--data", body])
            #expect([200, 201].contains(answer.status), "\(path): \(String(decoding: answer.body, as: UTF8.self))")
            return try JSONDecoder().decode([String: JSONValue].self, from: Data(answer.body))
        }
        let provider = Int(
            try #require(
                try await post(
                    "/api/v1/sources",
                    #"{"location":"\#(fake.baseURL)","kind":"xtream","username":"user","password":"pass"}"#
                )["id"]?.number))
        _ = try await post("/api/v1/sources/\(provider)/refresh", "{}")
        _ = try await post("/api/v1/outputs", #"{"id":"tv","kinds":["live"]}"#)
        _ = try await post("/api/v1/outputs", #"{"id":"films","kinds":["movie","series"]}"#)
        let expiry = Int64(Date().timeIntervalSince1970) + 30 * 86_400
        let viewer = try await post(
            "/api/v1/users",
            #"{"username":"viewer","password":"correct-horse","profiles":["tv","films","default"],"#
                + #""maxConnections":2,"expiresAt":\#(expiry)}"#)
        #expect(viewer["expiresAt"]?.number == Double(expiry), "\(viewer)")
        _ = try await post("/api/v1/users", #"{"username":"forever","password":"correct-horse"}"#)
        _ = try await post(
            "/api/v1/users", #"{"username":"old","password":"correct-horse","expiresAt":1000000000}"#)
        return Setup(fixture: fixture, fake: fake, server: server, curl: curl)
    }

    @Test("pyxtream logs in, lists live channels, films and series, and builds a series' seasons")
    func pyxtreamReadsTheLogin() async throws {
        guard let tools = Tools.require(.curl, .ffmpeg), let python = Self.python(with: "pyxtream") else { return }
        let setup = try await Self.setUp(curl: tools[.curl], ffmpeg: tools[.ffmpeg])
        let script = setup.fixture.workspace.file("client.py")
        let cache = setup.fixture.workspace.file("pyxtream-cache")
        try FileManager.default.createDirectory(atPath: cache, withIntermediateDirectories: true)
        try Data(Self.pyxtreamScript.utf8).write(to: URL(fileURLWithPath: script))
        let run = try await Subprocess.run(
            python, [script, setup.server.baseURL, "viewer", "correct-horse", cache],
            environment: ProcessInfo.processInfo.environment.merging(["HOME": setup.fixture.workspace.path]) { $1 },
            timeout: .seconds(120))
        let line = run.output.split(separator: "\n").last { $0.hasPrefix("RESULT ") }
        let result = try JSONDecoder().decode(
            JSONValue.self, from: Data(try #require(line, "\(run.transcript)").dropFirst(7).utf8))
        let got = try #require(result.object)
        #expect(got["live"]?.array?.compactMap(\.string) == ["BBC One", "News HD", "Sport"], "\(got)")
        #expect(got["movies"]?.array?.compactMap(\.string) == ["A Film"])
        #expect(got["series"]?.array?.compactMap(\.string) == ["American Gods"])
        let seasons = try #require(got["seasons"]?.object, "\(got)")
        #expect(seasons["Season 1"]?.array?.compactMap(\.string) == ["The Bone Orchard", "The Secret of Spoons"])
        #expect(seasons["Season 2"]?.array?.compactMap(\.string) == ["House on the Rock"])
        #expect(got["expires_in_days"]?.number.map { (28...30).contains($0) } == true, "\(got)")
        // pyxtream's stream URLs are Tuner's own, with the login's ids, unique across the login.
        let epgIDs = got["epg_ids"]?.array?.compactMap(\.string) ?? []
        #expect(epgIDs.count == 3 && Set(epgIDs).count == 3, "\(epgIDs)")
        let urls = got["urls"]?.array?.compactMap(\.string) ?? []
        #expect(urls.count == 4 && urls.allSatisfy { $0.hasPrefix(setup.server.baseURL + "/") }, "\(urls)")
        #expect(urls.contains { $0.contains("/movie/viewer/correct-horse/") && $0.hasSuffix(".mkv") })
        try await setup.stop()
    }

    @Test("A TiviMate-style sequence: login, lists, series, short EPG, XMLTV and a played .ts, ids unique")
    func panelSequenceWithTwoProfiles() async throws {
        guard let tools = Tools.require(.curl, .ffmpeg, .ffprobe) else { return }
        let setup = try await Self.setUp(curl: tools[.curl], ffmpeg: tools[.ffmpeg])
        let base = setup.server.baseURL

        // The login as panels answer it: every field, with the types panels use.
        let account = try #require(try await setup.json(setup.login).object)
        let user = try #require(account["user_info"]?.object)
        #expect(user["auth"]?.number == 1 && user["status"]?.string == "Active" && user["is_trial"]?.string == "0")
        #expect(user["exp_date"]?.string.flatMap { Int64($0) } != nil, "\(user)")
        for key in ["username", "password", "message", "active_cons", "created_at", "max_connections"] {
            #expect(user[key]?.string != nil, "\(key): \(user)")
        }
        #expect(user["allowed_output_formats"]?.array?.compactMap(\.string) == ["m3u8", "ts"])
        let server = try #require(account["server_info"]?.object)
        for key in ["url", "port", "https_port", "server_protocol", "rtmp_port", "timezone", "time_now"] {
            #expect(server[key]?.string != nil, "\(key): \(server)")
        }
        #expect(server["timestamp_now"]?.number != nil)
        // A login without expiry sends the key with null; an expired one says so and gets nothing else.
        let forever = try await setup.get(base + "/player_api.php?username=forever&password=correct-horse")
        #expect(String(decoding: forever.body, as: UTF8.self).contains(#""exp_date":null"#))
        let old = try #require(
            try await setup.json(base + "/player_api.php?username=old&password=correct-horse").object?["user_info"]?
                .object)
        #expect(old["status"]?.string == "Expired" && old["exp_date"]?.string == "1000000000", "\(old)")
        for path in [
            "/player_api.php?username=old&password=correct-horse&action=get_live_streams",
            "/get.php?username=old&password=correct-horse&type=m3u_plus", "/live/old/correct-horse/1.ts",
        ] {
            let refused = try await setup.get(base + path)
            #expect(refused.status == 403, "\(path)")
        }

        // Categories and lists of each kind.
        for kind in ["live", "vod", "series"] {
            let categories = try await setup.json(setup.login + "&action=get_\(kind)_categories").array ?? []
            #expect(!categories.isEmpty, "\(kind)")
        }
        let live = try await setup.json(setup.login + "&action=get_live_streams").array?.compactMap(\.object) ?? []
        let films = try await setup.json(setup.login + "&action=get_vod_streams").array?.compactMap(\.object) ?? []
        let series = try await setup.json(setup.login + "&action=get_series").array?.compactMap(\.object) ?? []
        #expect(live.map { $0["name"]?.string } == ["News HD", "Sport", "BBC One"], "the default profile adds none")
        #expect(
            films.map { $0["name"]?.string } == ["A Film"] && series.map { $0["name"]?.string } == ["American Gods"])
        // One numbering for the login: no number, stream id or guide id twice across its profiles.
        let numbers = (live + films + series).compactMap { $0["num"]?.number }
        #expect(numbers.count == 5 && Set(numbers).count == 5, "\(numbers)")
        let streamIDs = (live + films).compactMap { $0["stream_id"]?.number }
        #expect(Set(streamIDs).count == 4)
        let epgIDs = live.compactMap { $0["epg_channel_id"]?.string }
        #expect(Set(epgIDs).count == 3, "\(epgIDs)")

        // The series: seasons built from the answer match the episodes keyed by season.
        let seriesID = Int(try #require(series.first?["series_id"]?.number))
        let info = try #require(
            try await setup.json(setup.login + "&action=get_series_info&series_id=\(seriesID)").object)
        let seasons = info["seasons"]?.array?.compactMap(\.object) ?? []
        #expect(seasons.map { $0["season_number"]?.number } == [1, 2], "\(info)")
        #expect(seasons.map { $0["name"]?.string } == ["Season 1", "Season 2"])
        let episodes = try #require(info["episodes"]?.object)
        for season in seasons {
            let key = String(Int(try #require(season["season_number"]?.number)))
            #expect((episodes[key]?.array?.count).map { Double($0) } == season["episode_count"]?.number, "\(key)")
        }
        let firstEpisode = try #require(episodes["1"]?.array?.first?.object?["id"]?.string)

        // The short EPG of the channel with a guide.
        let news = try #require(live.first { $0["name"]?.string == "News HD" })
        let newsID = Int(try #require(news["stream_id"]?.number))
        let epg = try await setup.get(setup.login + "&action=get_short_epg&stream_id=\(newsID)")
        #expect(String(decoding: epg.body, as: UTF8.self).contains(Data("Evening & News".utf8).base64EncodedString()))

        // XMLTV: one channel per id, each programme on its own channel (placeholders carry the name).
        let xmltv = String(
            decoding: try await setup.get(base + "/xmltv.php?username=viewer&password=correct-horse").body,
            as: UTF8.self)
        let channelIDs = Self.values(in: xmltv, after: "<channel id=\"", until: "\"")
        #expect(channelIDs.count == 4 && Set(channelIDs).count == 4, "\(channelIDs)")
        #expect(Set(epgIDs).isSubset(of: Set(channelIDs)))
        // The first entry wins an id listed twice (which the counts above already refuse).
        let names = Dictionary(
            (live + films).compactMap { entry -> (String, String)? in
                guard let name = entry["name"]?.string, let number = entry["num"]?.number else { return nil }
                return ("\(Int(number)).tuner", name)
            },
            uniquingKeysWith: { first, _ in first })
        #expect(Set(names.keys) == Set(channelIDs), "\(names) \(channelIDs)")
        let newsGuideID = try #require(news["epg_channel_id"]?.string)
        for programme in xmltv.components(separatedBy: "<programme ").dropFirst() {
            let channel = Self.values(in: programme, after: "channel=\"", until: "\"").first ?? ""
            let title = Self.values(in: programme, after: "<title>", until: "</title>").first ?? ""
            let expected = channel == newsGuideID ? "Evening &amp; News" : names[channel]
            #expect(title == expected, "\(title) on \(channel)")
        }

        // get.php: films and episodes as panels list them, one tvg-id per entry with a guide.
        let m3u = String(
            decoding: try await setup.get(base + "/get.php?username=viewer&password=correct-horse&type=m3u_plus").body,
            as: UTF8.self)
        let tvgIDs = Self.values(in: m3u, after: "tvg-id=\"", until: "\"").filter { !$0.isEmpty }
        #expect(tvgIDs.count == 4 && Set(tvgIDs) == Set(channelIDs), "\(tvgIDs)")
        let filmID = Int(try #require(films.first?["stream_id"]?.number))
        #expect(m3u.contains("\n\(base)/movie/viewer/correct-horse/\(filmID).mkv\n"), "\(m3u)")
        #expect(m3u.contains("\n\(base)/series/viewer/correct-horse/\(firstEpisode).mkv\n"), "\(m3u)")
        #expect(m3u.contains(#"group-title="Drama",American Gods S01 E01"#))
        #expect(m3u.contains("\n\(base)/live/viewer/correct-horse/\(newsID).ts\n"))
        let ts = try await setup.get(base + "/get.php?username=viewer&password=correct-horse&type=m3u_plus&output=ts")
        // Logo URLs are sealed afresh on every answer, so compare the stream lines.
        let streamLines = { (text: String) in text.split(separator: "\n").filter { $0.hasPrefix(base) } }
        #expect(ts.status == 200 && streamLines(String(decoding: ts.body, as: UTF8.self)) == streamLines(m3u))
        // output=m3u8 (or hls) lists live channels as .m3u8; films and episodes keep their files.
        for output in ["m3u8", "hls"] {
            let hls = String(
                decoding: try await setup.get(
                    base + "/get.php?username=viewer&password=correct-horse&type=m3u_plus&output=\(output)"
                ).body, as: UTF8.self)
            #expect(hls.contains("\n\(base)/live/viewer/correct-horse/\(newsID).m3u8\n"), "\(hls)")
            #expect(!hls.contains("/live/viewer/correct-horse/\(newsID).ts"))
            #expect(hls.contains("\n\(base)/movie/viewer/correct-horse/\(filmID).mkv\n"))
        }
        let unknown = try await setup.get(base + "/get.php?username=viewer&password=correct-horse&output=rtmp")
        #expect(unknown.status == 400)

        // The player plays the channel's .ts URL.
        let probe = try await Subprocess.run(
            tools[.ffprobe],
            [
                "-v", "error", "-show_entries", "format=format_name", "-of", "csv=p=0",
                "\(base)/live/viewer/correct-horse/\(newsID).ts",
            ],
            timeout: .seconds(60))
        #expect(probe.output.trimmingCharacters(in: .whitespacesAndNewlines) == "mpegts", "\(probe.transcript)")
        try await setup.stop()
    }

    @Test("A live channel's .m3u8 is HLS with MPEG-TS segments: ffprobe and ffmpeg play it, logins guard it")
    func liveChannelAsHLS() async throws {
        guard let tools = Tools.require(.curl, .ffmpeg, .ffprobe) else { return }
        let setup = try await Self.setUp(curl: tools[.curl], ffmpeg: tools[.ffmpeg])
        let base = setup.server.baseURL
        let (provider, loop) = try await Self.addLoopChannel(setup)
        let live = try await setup.json(setup.login + "&action=get_live_streams").array?.compactMap(\.object) ?? []
        let news = Int(try #require(live.first { $0["name"]?.string == "News HD" }?["stream_id"]?.number))
        let url = "\(base)/live/viewer/correct-horse/\(loop).m3u8"

        // The playlist: a live sliding window of .ts segments named relative to it, no secret in it.
        let playlist = try await setup.get(url)
        let text = String(decoding: playlist.body, as: UTF8.self)
        #expect(playlist.status == 200 && playlist.header("content-type") == "application/vnd.apple.mpegurl", "\(text)")
        #expect(text.hasPrefix("#EXTM3U") && text.contains("#EXT-X-TARGETDURATION") && !text.contains("#EXT-X-ENDLIST"))
        let segments = text.split(separator: "\n").filter { !$0.hasPrefix("#") && !$0.isEmpty }
        #expect(
            segments.count >= 3 && segments.allSatisfy { $0.hasPrefix("\(loop)/") && $0.hasSuffix(".ts") }, "\(text)")
        #expect(!text.contains("correct-horse"), "the playlist repeats no password")
        let segmentURL = "\(base)/live/viewer/correct-horse/\(try #require(segments.first))"
        let segment = try await setup.get(segmentURL)
        #expect(segment.status == 200 && segment.header("content-type") == "video/mp2t")
        #expect(segment.body.first == 0x47 && segment.body.count % 188 == 0, "MPEG-TS packets")
        // Segments need the login, and name nothing but the session's own files.
        let stranger = try await setup.get(segmentURL.replacingOccurrences(of: "correct-horse", with: "wrong"))
        #expect([401, 403].contains(stranger.status), "\(stranger.status)")
        let sessionPath = segmentURL.split(separator: "/").dropLast().joined(separator: "/")
        for name in ["index.m3u8.bak", "seg-1.m4s", "..%2F..%2Fetc%2Fpasswd", "seg-.ts", "init.mp4"] {
            let refused = try await setup.get(sessionPath + "/" + name)
            // 400: the server refuses an encoded slash in any path before routing.
            #expect([400, 404].contains(refused.status), "\(name): \(refused.status)")
        }

        // ffprobe sees HLS carrying MPEG-TS video; ffmpeg decodes several segments' worth of frames.
        let probe = try await Subprocess.run(
            tools[.ffprobe],
            ["-v", "error", "-show_entries", "format=format_name:stream=codec_type", "-of", "csv=p=0", url],
            timeout: .seconds(60))
        #expect(probe.output.contains("hls") && probe.output.contains("video"), "\(probe.transcript)")
        let play = try await Subprocess.run(
            tools[.ffmpeg],
            ["-hide_banner", "-v", "error", "-i", url, "-t", "6", "-map", "0:v:0", "-f", "framemd5", "-"],
            timeout: .seconds(90))
        let frames = play.output.split(separator: "\n").filter { !$0.hasPrefix("#") }.count
        #expect(play.succeeded && frames >= 100, "\(frames) frames: \(play.transcript.suffix(2_000))")

        // One session for everyone, listed with the login that plays it.
        let streams =
            try await setup.json(base + "/api/v1/streams").object?["streams"]?.array?.compactMap(\.object) ?? []
        let hls = streams.filter { $0["profile"]?.string == "hls-ts" }
        #expect(hls.count == 1, "\(streams)")
        let users = hls.first?["viewers"]?.array?.compactMap { $0.object?["user"]?.string } ?? []
        #expect(users.contains("viewer"), "\(hls)")

        // An HLS viewer counts against the login's streams: with one allowed, a .ts of another
        // channel is refused while the playlist is being read.
        let patch = ["-H", "Content-Type: application/json", "-X", "PATCH", "--data", #"{"maxConnections":1}"#]
        let changed = try await Curl.fetch(setup.curl, base + "/api/v1/users/viewer", options: patch)
        #expect(changed.status == 200, "\(String(decoding: changed.body, as: UTF8.self))")
        _ = try await setup.get(url)
        let second = try await Curl.fetch(
            setup.curl, "\(base)/live/viewer/correct-horse/\(news).ts", options: ["--max-time", "5"])
        #expect(
            second.status == 503 && String(decoding: second.body, as: UTF8.self).contains("already has 1 stream"),
            "\(second.status) \(String(decoding: second.body, as: UTF8.self))")
        try await setup.stop()
        await provider.shutdown()
    }

    /// Every text between `after` and the next `until` in `text`.
    /// Adds a channel that plays as providers' do (endless MPEG-TS in real time, a 4 s file
    /// looped) in a source of its own; answers its origin and its stream id for `viewer`.
    static func addLoopChannel(_ setup: Setup) async throws -> (provider: LiveTSOrigin, streamID: Int) {
        let base = setup.server.baseURL
        let provider = try await LiveTSOrigin.start()
        let file = setup.fixture.workspace.file("loop.ts")
        try await LiveTSOrigin.makeStream(at: file, seconds: 4, firstPID: 0x100, serviceID: 1)
        try provider.serve("loop", file: file, seconds: 4)
        let list = "#EXTM3U\n#EXTINF:-1 tvg-id=\"loop.uk\",Loop\n\(provider.url("loop"))\n"
        try Data(list.utf8).write(to: URL(fileURLWithPath: setup.fixture.workspace.file("served") + "/loop.m3u"))
        let json = ["-H", "Content-Type: application/json", "-X", "POST"]
        let added = try await Curl.fetch(
            setup.curl, base + "/api/v1/sources",
            options: json + ["--data", #"{"location":"\#(setup.fixture.origin.baseURL)/static/loop.m3u"}"#])
        let source = Int(
            try #require(try JSONDecoder().decode([String: JSONValue].self, from: Data(added.body))["id"]?.number))
        _ = try await Curl.fetch(setup.curl, base + "/api/v1/sources/\(source)/refresh", options: json)
        let live = try await setup.json(setup.login + "&action=get_live_streams").array?.compactMap(\.object) ?? []
        let loop = Int(try #require(live.first { $0["name"]?.string == "Loop" }?["stream_id"]?.number, "\(live)"))
        return (provider, loop)
    }

    static func values(in text: String, after: String, until: String) -> [String] {
        text.components(separatedBy: after).dropFirst().compactMap { piece in
            piece.range(of: until).map { String(piece[..<$0.lowerBound]) }
        }
    }

    /// python3 when it imports `module`; nil (a skip, or a failure on CI) otherwise.
    static func python(with module: String, sourceLocation: SourceLocation = #_sourceLocation) -> String? {
        if let python = ExternalCommand.path(of: "python3"), ExternalTool.imports(python, module) { return python }
        let message = "python3 with \(module) is missing: pip install \(module)"
        if ProcessInfo.processInfo.environment["CI"] == "true" {
            Issue.record(Comment(rawValue: message), sourceLocation: sourceLocation)
        } else {
            print("skipped: \(message)")
        }
        return nil
    }

    /// pyxtream as its README uses it: log in, load everything, then a series' seasons. Its cache
    /// goes to a fresh folder and is never reused (`reload_time_sec=-1`), so every answer is Tuner's.
    static let pyxtreamScript = #"""
        import json, sys
        from datetime import timedelta
        from pyxtream import XTream

        base, username, password, cache = sys.argv[1:5]
        x = XTream("tuner", username, password, base, cache_path=cache, reload_time_sec=-1)
        if not x.state["authenticated"]:
            sys.exit("login failed")
        x.load_iptv()
        serie = x.series[0]
        x.get_series_info_by_id(serie)
        result = {
            "live": sorted(c.name for c in x.channels),
            "movies": sorted(m.name for m in x.movies),
            "series": sorted(s.name for s in x.series),
            "epg_ids": [c.epg_channel_id for c in x.channels],
            "urls": [c.url for c in x.channels] + [m.url for m in x.movies],
            "seasons": {name: [e.title for e in season.episodes.values()] for name, season in serie.seasons.items()},
            "expires_in_days": x.account_expiration / timedelta(days=1),
        }
        print("RESULT " + json.dumps(result))
        """#
}
