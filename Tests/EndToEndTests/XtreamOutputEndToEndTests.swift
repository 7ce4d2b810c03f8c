import Foundation
import Testing
import TunerTesting

/// The Xtream Codes output, read by the most faithful client at hand: Tuner's own Xtream importer.
/// Tuner importing from Tuner must give the same channels and the same guide.
@Suite struct XtreamOutputEndToEndTests {
    @Test("Tuner imports its own Xtream output: same channels, same guide, playable streams")
    func tunerImportsItsOwnXtreamOutput() async throws {
        guard let tools = Tools.require(.curl, .ffmpeg, .ffprobe) else { return }
        let fixture = try await OutputsEndToEndTests.fixture(ffmpeg: tools[.ffmpeg])
        defer { fixture.workspace.remove() }
        // No scheduled refreshes: one of the new source between its adding and the refresh below
        // would import Tuner's lineup with that source's channels already in it (six, not four).
        let server = try await TunerProcess.serve(
            data: fixture.workspace.file("data"), arguments: ["--catalog-check-interval", "0"])
        try await OutputsEndToEndTests.addSource(fixture, server: server, curl: tools[.curl])
        let json = ["-H", "Content-Type: application/json", "-X", "POST"]

        let user = try await Curl.fetch(
            tools[.curl], server.baseURL + "/api/v1/users",
            options: json + ["--data", #"{"username":"viewer","password":"correct-horse","maxConnections":2}"#])
        #expect(user.status == 201, "\(String(decoding: user.body, as: UTF8.self))")
        #expect(!String(decoding: user.body, as: UTF8.self).contains("correct-horse"), "the API never sends a password")
        for bad in [
            #"{"username":"a/b","password":"correct-horse"}"#, #"{"username":"viewer","password":"correct-horse"}"#,
            #"{"username":"short","password":"1234"}"#,
            #"{"username":"other","password":"correct-horse","profiles":["none"]}"#,
        ] {
            let refused = try await Curl.fetch(
                tools[.curl], server.baseURL + "/api/v1/users", options: json + ["--data", bad])
            #expect([400, 409].contains(refused.status), "\(bad): \(refused.status)")
        }

        // A wrong login gets the panel's own refusal.
        let wrong = try await Curl.fetch(
            tools[.curl], server.baseURL + "/player_api.php?username=viewer&password=wrong")
        #expect(String(decoding: wrong.body, as: UTF8.self) == #"{"user_info":{"auth":0}}"#)
        #expect(try await Curl.fetch(tools[.curl], server.baseURL + "/live/viewer/wrong/1.ts").status == 401)

        let account = try await Curl.fetch(
            tools[.curl], server.baseURL + "/player_api.php?username=viewer&password=correct-horse")
        let info = try JSONDecoder().decode([String: [String: JSONValue]].self, from: Data(account.body))
        #expect(info["user_info"]?["auth"]?.number == 1 && info["user_info"]?["max_connections"]?.string == "2")

        // Tuner adds its own Xtream output as a source.
        let added = try await Curl.fetch(
            tools[.curl], server.baseURL + "/api/v1/sources",
            options: json + [
                "--data",
                #"{"location":"\#(server.baseURL)","kind":"xtream","username":"viewer","password":"correct-horse"}"#,
            ])
        #expect(added.status == 201, "\(String(decoding: added.body, as: UTF8.self))")
        let source = try JSONDecoder().decode([String: JSONValue].self, from: Data(added.body))
        let id = Int(try #require(source["id"]?.number))
        let refreshed = try await Curl.fetch(
            tools[.curl], server.baseURL + "/api/v1/sources/\(id)/refresh", options: ["-X", "POST"])
        #expect(refreshed.status == 200, "\(String(decoding: refreshed.body, as: UTF8.self))")

        // Same channels (names, groups) and the same guide, now twice in the default lineup.
        let lineup = try await Curl.fetch(tools[.curl], server.baseURL + "/api/v1/outputs/default/channels")
        let channels = try JSONDecoder().decode([String: [[String: JSONValue]]].self, from: Data(lineup.body))
        let rows = try #require(channels["channels"])
        #expect(rows.map { $0["name"]?.string } == ["News HD", "Sport", "News HD", "Sport"], "\(rows)")
        #expect(rows.map { $0["group"]?.string } == ["News", "Sport", "News", "Sport"])
        let guide = String(
            decoding: try await Curl.fetch(tools[.curl], server.baseURL + "/output/default.xml").body, as: UTF8.self)
        #expect(
            guide.components(separatedBy: "<title>Evening &amp; News</title>").count == 3,
            "the guide came through xmltv.php for the imported channel too")

        // The imported channel plays: through Tuner's /play, which reaches Tuner's own /live path.
        let probe = try await Subprocess.run(
            tools[.ffprobe],
            [
                "-v", "error", "-show_entries", "format=format_name", "-of", "csv=p=0",
                server.baseURL + "/play/default/3",
            ],
            timeout: .seconds(60))
        #expect(probe.output.trimmingCharacters(in: .whitespacesAndNewlines) == "mpegts", "\(probe.transcript)")

        // get.php: Tuner's Xtream URLs, no provider secret.
        let m3u = String(
            decoding: try await Curl.fetch(
                tools[.curl], server.baseURL + "/get.php?username=viewer&password=correct-horse&type=m3u_plus&output=ts"
            ).body, as: UTF8.self)
        #expect(m3u.contains(server.baseURL + "/live/viewer/correct-horse/"))
        #expect(!m3u.contains("hunter2") && !m3u.contains(fixture.origin.baseURL))
        // Short EPG as panels send it (base64 titles), for a channel of the login.
        let streams = try JSONDecoder().decode(
            [[String: JSONValue]].self,
            from: Data(
                try await Curl.fetch(
                    tools[.curl],
                    server.baseURL + "/player_api.php?username=viewer&password=correct-horse&action=get_live_streams"
                ).body))
        let newsID = Int(try #require(streams.first?["stream_id"]?.number))
        let epg = String(
            decoding: try await Curl.fetch(
                tools[.curl],
                server.baseURL
                    + "/player_api.php?username=viewer&password=correct-horse&action=get_short_epg&stream_id=\(newsID)"
            ).body, as: UTF8.self)
        #expect(epg.contains(Data("Evening & News".utf8).base64EncodedString()), "\(epg)")
        let other = try await Curl.fetch(
            tools[.curl],
            server.baseURL
                + "/player_api.php?username=viewer&password=correct-horse&action=get_short_epg&stream_id=999999")
        #expect(other.status == 404)
        // Hostile numbers and actions: refused, never a crash or a 5xx.
        let login = server.baseURL + "/player_api.php?username=viewer&password=correct-horse"
        for (query, status) in [
            ("&action=get_short_epg&stream_id=99999999999999999999", 400), ("&action=get_vod_info&vod_id=-1%27", 400),
            ("&action=get_series_info", 400), ("&action=drop_tables", 400),
            ("&action=get_short_epg&stream_id=\(newsID)&limit=-99999999999999999999", 200),
        ] {
            let answer = try await Curl.fetch(tools[.curl], login + query)
            #expect(answer.status == status, "\(query): \(answer.status)")
        }
        let traversal = try await Curl.fetch(tools[.curl], server.baseURL + "/live/viewer/correct-horse/..%2F1.ts")
        let nul = try await Curl.fetch(tools[.curl], server.baseURL + "/live/viewer/correct-horse/%00.ts")
        #expect(traversal.status == 400 && nul.status == 400, "\(traversal.status) \(nul.status)")

        // Repeated failures are counted in the log, without the password tried.
        for _ in 0..<3 {
            _ = try await Curl.fetch(tools[.curl], server.baseURL + "/player_api.php?username=viewer&password=guess1")
        }
        let log = (try? String(contentsOfFile: server.logPath, encoding: .utf8)) ?? ""
        #expect(log.contains("Xtream login refused") && !log.contains("guess1") && !log.contains("correct-horse"))
        _ = await server.stop()
    }
}

extension XtreamOutputEndToEndTests {
    static let provider: [String: String] = [
        "get_live_categories": #"[{"category_id":"1","category_name":"News"}]"#,
        "get_live_streams":
            #"[{"num":1,"name":"BBC One","stream_id":101,"epg_channel_id":"bbc1.uk","category_id":"1"}]"#,
        "get_vod_categories": #"[{"category_id":"30","category_name":"Films"}]"#,
        "get_vod_streams":
            #"[{"num":1,"name":"A Film","stream_id":301,"category_id":"30","container_extension":"mkv"}]"#,
        "get_vod_info:301":
            #"{"info":{"plot":"A plot.","genre":"Drama","duration_secs":"5400"},"movie_data":{"stream_id":301,"name":"A Film","container_extension":"mkv"}}"#,
        "get_series_categories": #"[{"category_id":"20","category_name":"Drama"}]"#,
        "get_series": #"[{"num":1,"name":"American Gods","series_id":77,"category_id":"20"}]"#,
        "get_series_info": #"""
        {"seasons":[],"info":{"name":"American Gods"},"episodes":{"1":[{"id":"5001","episode_num":"1","title":"The Bone Orchard","container_extension":"mkv","season":1},
         {"id":"5002","episode_num":"2","title":"The Secret of Spoons","container_extension":"mkv","season":1}],
         "2":[{"id":"5101","episode_num":"1","title":"House on the Rock","container_extension":"mkv","season":2}]}}
        """#,
    ]

    @Test("Films and series go through the Xtream output too: listed, detailed and played as the provider has them")
    func filmsAndSeriesThroughTheXtreamOutput() async throws {
        guard let tools = Tools.require(.curl) else { return }
        let workspace = try Workspace()
        defer { workspace.remove() }
        let fake = try await XtreamFake.start(responses: Self.provider)
        let server = try await TunerProcess.serve(data: workspace.file("data"))
        let json = ["-H", "Content-Type: application/json", "-X", "POST"]
        func post(_ path: String, _ body: String) async throws -> [String: JSONValue] {
            let answer = try await Curl.fetch(tools[.curl], server.baseURL + path, options: json + ["--data", body])
            #expect([200, 201].contains(answer.status), "\(path): \(String(decoding: answer.body, as: UTF8.self))")
            return try JSONDecoder().decode([String: JSONValue].self, from: Data(answer.body))
        }
        func items(_ kind: String, source: Int) async throws -> [[String: JSONValue]] {
            let page = try await Curl.fetch(
                tools[.curl], server.baseURL + "/api/v1/channels?kind=\(kind)&source=\(source)")
            return try JSONDecoder().decode([String: JSONValue].self, from: Data(page.body))["items"]?.array?
                .compactMap(\.object) ?? []
        }
        let provider = Int(
            try #require(
                try await post(
                    "/api/v1/sources",
                    #"{"location":"\#(fake.baseURL)","kind":"xtream","username":"user","password":"pass"}"#
                )["id"]?.number))
        _ = try await post("/api/v1/sources/\(provider)/refresh", "{}")
        // Only the provider's entries: Tuner reading back its own output must not also list what it
        // imported from itself (a scheduled refresh of that source would then import them twice).
        _ = try await post(
            "/api/v1/outputs", #"{"id":"all","kinds":["live","movie","series"],"sourceIDs":[\#(provider)]}"#)
        _ = try await post("/api/v1/users", #"{"username":"viewer","password":"correct-horse","profiles":["all"]}"#)
        let own = Int(
            try #require(
                try await post(
                    "/api/v1/sources",
                    #"{"location":"\#(server.baseURL)","kind":"xtream","username":"viewer","password":"correct-horse"}"#
                )["id"]?.number))
        _ = try await post("/api/v1/sources/\(own)/refresh", "{}")

        for kind in ["live", "movie", "series"] {
            let original = try await items(kind, source: provider).map { [$0["name"]?.string, $0["group"]?.string] }
            let copy = try await items(kind, source: own).map { [$0["name"]?.string, $0["group"]?.string] }
            #expect(!original.isEmpty && copy == original, "\(kind): \(copy) vs \(original)")
        }
        // The series' episodes come through get_series_info, and one plays as the provider's bytes.
        let series = Int(try #require(try await items("series", source: own).first?["id"]?.number))
        let listed = try await Curl.fetch(tools[.curl], server.baseURL + "/api/v1/channels/\(series)/episodes")
        let text = String(decoding: listed.body, as: UTF8.self)
        for title in ["The Bone Orchard", "The Secret of Spoons", "House on the Rock"] {
            #expect(text.contains(title), "\(text)")
        }
        let seasons = try JSONDecoder().decode([String: JSONValue].self, from: Data(listed.body))["seasons"]?.array
        let episode = seasons?.first?.object?["episodes"]?.array?.first?.object
        let episodeID = Int(try #require(episode?["id"]?.number))
        let play = try await Curl.fetch(tools[.curl], server.baseURL + "/api/v1/episodes/\(episodeID)/play")
        let proxyURL = try #require(
            try JSONDecoder().decode([String: JSONValue].self, from: Data(play.body))["proxyURL"]?.string)
        let streamed = try await Curl.fetch(tools[.curl], proxyURL)
        #expect(streamed.body.elementsEqual(XtreamFake.streamBody(kind: "series", file: "5001.mkv").utf8))
        // A film's details come through get_vod_info.
        let film = Int(try #require(try await items("movie", source: own).first?["id"]?.number))
        let details = try await Curl.fetch(tools[.curl], server.baseURL + "/api/v1/channels/\(film)/details")
        #expect(String(decoding: details.body, as: UTF8.self).contains("A plot."), "\(details.status)")
        _ = await server.stop()
        try await fake.shutdown()
    }
}
