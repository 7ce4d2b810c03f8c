import Foundation
import Testing
import TunerTesting

@Suite("Catalog API: favourites, groups, episodes, short EPG")
struct CatalogLibraryAPITests {
    static func errorMessage(_ fetched: Fetched) -> String {
        ((try? HTTP.json(fetched))?["error"] as? [String: Any])?["message"] as? String ?? ""
    }

    static func names(_ fetched: Fetched) throws -> [String] {
        (try HTTP.json(fetched)["items"] as? [[String: Any]] ?? []).compactMap { $0["name"] as? String }
    }

    static func playlist(_ origin: String, _ names: [String]) -> String {
        "#EXTM3U\n"
            + names.map { name in
                let id = name.lowercased().split(separator: " ").first ?? ""
                return
                    """
                    #EXTINF:-1 tvg-id=\"\(id).example\" \
                    group-title=\"\(name.hasPrefix("S") ? "Sport" : "News")\",\(name)\n\(origin)/files/\(id).ts?size=100&r=\(UUID().uuidString.prefix(6))
                    """
            }.joined(separator: "\n") + "\n"
    }

    @Test(
        """
        Favourites are added, moved and reordered over the API, bad input gets a 4xx with a reason, and the order \
        survives a refresh
        """
    )
    func favourites() async throws {
        let harness = try await ProxyHarness.start()
        let served = FileManager.default.temporaryDirectory.appendingPathComponent(
            "catalog-favourites-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: served, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: served) }
        let list = served.appendingPathComponent("list.m3u")
        try Data(Self.playlist(harness.origin.baseURL, ["Alpha", "Bravo", "Charlie", "Sierra"]).utf8).write(to: list)
        harness.origin.serveDirectory(served.path)
        let api = harness.api
        let added = try await HTTP.fetch(
            api + "/sources", method: "POST", json: #"{"location":"\#(harness.origin.baseURL)/static/list.m3u"}"#)
        let sourceID = try #require(try HTTP.json(added)["id"] as? Int)
        #expect(try await HTTP.fetch(api + "/sources/\(sourceID)/refresh", method: "POST").status == 200)
        let items = try #require(try HTTP.json(try await HTTP.fetch(api + "/channels"))["items"] as? [[String: Any]])
        var id: [String: Int] = [:]
        for item in items { id[item["name"] as? String ?? ""] = item["id"] as? Int }
        let alpha = try #require(id["Alpha"])
        let bravo = try #require(id["Bravo"])
        let charlie = try #require(id["Charlie"])
        let sierra = try #require(id["Sierra"])

        // Groups to filter by.
        let groups = try #require(
            try HTTP.json(try await HTTP.fetch(api + "/groups?kind=live"))["groups"] as? [[String: Any]])
        #expect(Set(groups.compactMap { $0["name"] as? String }) == ["News", "Sport"])
        #expect(groups.first { $0["name"] as? String == "News" }?["itemCount"] as? Int == 3)
        #expect(try Self.names(try await HTTP.fetch(api + "/channels?group=Sport")) == ["Sierra"])
        #expect(try await HTTP.fetch(api + "/groups?kind=radio").status == 400)

        for channel in [alpha, bravo, charlie] {
            #expect(try await HTTP.fetch(api + "/favourites/\(channel)", method: "PUT").status == 200)
        }
        let moved = try await HTTP.fetch(api + "/favourites/\(sierra)", method: "PUT", json: #"{"position":0}"#)
        #expect(moved.status == 200)
        #expect(try HTTP.json(moved)["position"] as? Int == 0)
        #expect(try Self.names(try await HTTP.fetch(api + "/favourites")) == ["Sierra", "Alpha", "Bravo", "Charlie"])

        let ordered = try await HTTP.fetch(
            api + "/favourites/order", method: "PUT", json: #"{"ids":[\#(charlie),\#(alpha)]}"#)
        #expect(ordered.status == 200)
        #expect(try Self.names(ordered) == ["Charlie", "Alpha", "Sierra", "Bravo"])
        #expect(
            try Self.names(try await HTTP.fetch(api + "/channels?favourites=true")) == [
                "Charlie", "Alpha", "Sierra", "Bravo",
            ])

        // Bad input: a clear 4xx, and the order stays as it was.
        let malformed = try await HTTP.fetch(api + "/favourites/order", method: "PUT", json: #"{"ids":[1,"#)
        #expect(malformed.status == 400)
        #expect(Self.errorMessage(malformed).contains("not the expected JSON"), "\(Self.errorMessage(malformed))")
        let unknown = try await HTTP.fetch(
            api + "/favourites/order", method: "PUT", json: #"{"ids":[\#(alpha),987654]}"#)
        #expect(unknown.status == 404)
        #expect(Self.errorMessage(unknown).contains("987654"))
        #expect(
            try await HTTP.fetch(api + "/favourites/order", method: "PUT", json: #"{"ids":[\#(alpha),\#(alpha)]}"#)
                .status == 400)
        #expect(try await HTTP.fetch(api + "/favourites/order", method: "PUT", json: #"{"ids":[]}"#).status == 400)
        #expect(
            try await HTTP.fetch(api + "/favourites/\(alpha)", method: "PUT", json: #"{"position":-1}"#).status == 400)
        #expect(
            try await HTTP.fetch(api + "/favourites/\(alpha)", method: "PUT", json: #"{"position":"first"}"#).status
                == 400)
        #expect(try await HTTP.fetch(api + "/favourites/987654", method: "PUT").status == 404)
        #expect(try await HTTP.fetch(api + "/favourites/not-a-number", method: "PUT").status == 400)
        #expect(try await HTTP.fetch(api + "/favourites/\(bravo)", method: "DELETE").status == 200)
        let notFavourite = try await HTTP.fetch(api + "/favourites/order", method: "PUT", json: #"{"ids":[\#(bravo)]}"#)
        #expect(notFavourite.status == 409)
        #expect(Self.errorMessage(notFavourite).contains("not a favourite"))
        #expect(try Self.names(try await HTTP.fetch(api + "/favourites")) == ["Charlie", "Alpha", "Sierra"])

        // The provider reorders and renames; favourites and their order follow the identities.
        try Data(Self.playlist(harness.origin.baseURL, ["Sierra", "Bravo", "Alpha Plus", "Delta", "Charlie"]).utf8)
            .write(to: list)
        #expect(try await HTTP.fetch(api + "/sources/\(sourceID)/refresh", method: "POST").status == 200)
        #expect(try Self.names(try await HTTP.fetch(api + "/favourites")) == ["Charlie", "Alpha Plus", "Sierra"])
        #expect(try Self.names(try await HTTP.fetch(api + "/favourites?limit=2")) == ["Charlie", "Alpha Plus"])
        try await harness.stop()
    }

    @Test("A playlist's series lists its seasons and episodes, and an episode plays through the proxy with its headers")
    func playlistEpisodes() async throws {
        let harness = try await ProxyHarness.start()
        let served = FileManager.default.temporaryDirectory.appendingPathComponent(
            "catalog-episodes-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: served, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: served) }
        let origin = harness.origin.baseURL
        try Data(
            """
            #EXTM3U
            #EXTINF:-1 group-title="Drama",The Show S01 E01
            #EXTVLCOPT:http-user-agent=EpisodePlayer/1.0
            \(origin)/files/series/u/p/101.mp4?size=700
            #EXTINF:-1 group-title="Drama",The Show S01 E02
            \(origin)/files/series/u/p/102.mp4?size=800
            #EXTINF:-1 group-title="Drama",The Show S02 E01
            \(origin)/files/series/u/p/201.mp4?size=900
            #EXTINF:-1,News
            \(origin)/files/news.ts?size=100
            """.utf8
        ).write(to: served.appendingPathComponent("list.m3u"))
        harness.origin.serveDirectory(served.path)
        let api = harness.api
        let added = try await HTTP.fetch(
            api + "/sources", method: "POST", json: #"{"location":"\#(origin)/static/list.m3u"}"#)
        let sourceID = try #require(try HTTP.json(added)["id"] as? Int)
        #expect(try await HTTP.fetch(api + "/sources/\(sourceID)/refresh", method: "POST").status == 200)
        let series = try #require(
            (try HTTP.json(try await HTTP.fetch(api + "/channels?kind=series"))["items"] as? [[String: Any]])?.first)
        let seriesID = try #require(series["id"] as? Int)

        let listed = try await HTTP.fetch(api + "/channels/\(seriesID)/episodes")
        #expect(listed.status == 200)
        let body = try HTTP.json(listed)
        #expect(body["total"] as? Int == 3)
        #expect((body["series"] as? [String: Any])?["name"] as? String == "The Show")
        let seasons = try #require(body["seasons"] as? [[String: Any]])
        #expect(seasons.map { $0["season"] as? Int } == [1, 2])
        let first = try #require((seasons.first?["episodes"] as? [[String: Any]]))
        #expect(first.map { $0["episode"] as? Int } == [1, 2])
        let episodeID = try #require(first.first?["id"] as? Int)

        let play = try await HTTP.fetch(api + "/episodes/\(episodeID)/play")
        #expect(play.status == 200)
        let proxyURL = try #require(try HTTP.json(play)["proxyURL"] as? String)
        let streamed = try await HTTP.fetch(proxyURL)
        #expect(streamed.status == 200)
        #expect(streamed.body.count == 700)
        let upstream = harness.origin.lastRequestHeaders(path: "/files/series/u/p/101.mp4") ?? []
        #expect(upstream.contains { $0.name.lowercased() == "user-agent" && $0.value == "EpisodePlayer/1.0" })

        let news = try #require(
            (try HTTP.json(try await HTTP.fetch(api + "/channels"))["items"] as? [[String: Any]])?.first?["id"] as? Int)
        #expect(try await HTTP.fetch(api + "/channels/\(news)/episodes").status == 409)
        #expect(try await HTTP.fetch(api + "/channels/987654/episodes").status == 404)
        let gone = try await HTTP.fetch(api + "/episodes/987654/play")
        #expect(gone.status == 404)
        #expect(Self.errorMessage(gone).contains("list them again"))
        try await harness.stop()
    }

    static let xtreamResponses: [String: String] = [
        "get_live_categories": #"[{"category_id":"1","category_name":"News"}]"#,
        "get_live_streams":
            #"[{"num":1,"name":"BBC One","stream_id":101,"epg_channel_id":"bbc1.uk","category_id":"1"},{"num":"2","name":"No Guide","stream_id":"102","category_id":1}]"#,
        "get_vod_categories": "[]",
        "get_vod_streams": "[]",
        "get_series_categories": #"[{"category_id":"20","category_name":"Drama"}]"#,
        "get_series": #"[{"num":1,"name":"American Gods","series_id":77,"category_id":"20"}]"#,
        // Seasons as a list of lists, one episode with `info: []`.
        "get_series_info": #"""
        {"seasons":[],"info":{"name":"American Gods"},"episodes":[[{"id":"5001","episode_num":"1","title":"The Bone Orchard","container_extension":"mkv","info":[]},
         {"id":5002,"episode_num":2,"title":"The Secret of Spoons","info":{"duration_secs":"3300"}}],[{"id":"5101","episode_num":1,"title":"House on the Rock","season":"2"}]]}
        """#,
        // What panels answer for a channel without guide data.
        "get_short_epg": #"{"epg_listings":[]}"#,
        // Titles and descriptions in base64, numbers as strings or ints, as panels send them.
        "get_short_epg:101": #"""
        {"epg_listings":[
         {"id":"1","epg_id":"9","title":"QnJlYWtmYXN0","lang":"en","start":"2024-03-05 06:00:00","end":"2024-03-05 09:00:00","description":"TmV3cyBhbmQgd2VhdGhlci4=","channel_id":"bbc1.uk","start_timestamp":"1709618400","stop_timestamp":"1709629200"},
         {"id":2,"epg_id":"9","title":"QkJDIE5ld3MgYXQgT25l","lang":"en","start":"2024-03-05 13:00:00","end":"2024-03-05 13:30:00","description":"","channel_id":"bbc1.uk","start_timestamp":1709643600,"stop_timestamp":1709645400},
         {"id":"3","epg_id":"9","title":"TmV3c25pZ2h0","lang":"en","description":"","channel_id":"bbc1.uk","start_timestamp":"1709672400","stop_timestamp":"1709675100"}]}
        """#,
    ]

    @Test(
        """
        An Xtream account added as a pasted URL: a series' episodes from get_series_info play, and a channel's \
        short EPG comes decoded
        """
    )
    func xtreamEpisodesAndShortEPG() async throws {
        let fake = try await XtreamFake.start(responses: Self.xtreamResponses)
        defer { Task { try? await fake.shutdown() } }
        let harness = try await ProxyHarness.start { $0.catalogDefaultRefreshSeconds = 7200 }
        let api = harness.api
        let added = try await HTTP.fetch(
            api + "/sources", method: "POST",
            json: #"{"location":"\#(fake.baseURL)/player_api.php?username=user&password=pass"}"#)
        #expect(added.status == 201)
        let source = try HTTP.json(added)
        #expect(source["kind"] as? String == "xtream")
        #expect(
            source["location"] as? String == fake.baseURL,
            "the pasted query (with the password) is not kept as the location")
        #expect(source["refreshInterval"] as? Double == 7200, "the configured default refresh interval")
        let sourceID = try #require(source["id"] as? Int)
        #expect((source["xtream"] as? [String: Any])?["username"] as? String == "user")
        #expect(
            (source["xtream"] as? [String: Any])?["password"] as? String == "", "the API never sends the password back")
        let listedSources = try await HTTP.fetch(api + "/sources")
        #expect(
            !String(decoding: listedSources.body, as: UTF8.self).contains("pass\""), "no password in the source list")
        // The stored password still works: the refresh below and the episodes' streams need it.
        #expect(try await HTTP.fetch(api + "/sources/\(sourceID)/refresh", method: "POST").status == 200)

        let series = try #require(
            (try HTTP.json(try await HTTP.fetch(api + "/channels?kind=series"))["items"] as? [[String: Any]])?.first)
        let seriesID = try #require(series["id"] as? Int)
        let listed = try await HTTP.fetch(api + "/channels/\(seriesID)/episodes")
        #expect(listed.status == 200, "\(Self.errorMessage(listed))")
        let seasons = try #require(try HTTP.json(listed)["seasons"] as? [[String: Any]])
        #expect(seasons.map { $0["season"] as? Int } == [1, 2])
        let episodes = seasons.flatMap { $0["episodes"] as? [[String: Any]] ?? [] }
        #expect(
            episodes.map { $0["title"] as? String } == [
                "The Bone Orchard", "The Secret of Spoons", "House on the Rock",
            ])
        #expect(episodes[1]["duration"] as? Double == 3300)
        let episodeID = try #require(episodes.first?["id"] as? Int)
        let play = try await HTTP.fetch(api + "/episodes/\(episodeID)/play")
        let proxyURL = try #require(try HTTP.json(play)["proxyURL"] as? String)
        let streamed = try await HTTP.fetch(proxyURL)
        #expect(streamed.status == 200)
        #expect(
            streamed.body.elementsEqual(XtreamFake.streamBody(kind: "series", file: "5001.mkv").utf8),
            "the episode's own stream, through the proxy")
        // Stored now: listing again does not ask the panel.
        #expect(try await HTTP.fetch(api + "/channels/\(seriesID)/episodes").status == 200)
        #expect(fake.requests.filter { $0.contains("action=get_series_info") }.count == 1)

        let live = try #require(try HTTP.json(try await HTTP.fetch(api + "/channels"))["items"] as? [[String: Any]])
        let bbc = try #require(live.first { $0["name"] as? String == "BBC One" }?["id"] as? Int)
        let short = try await HTTP.fetch(api + "/channels/\(bbc)/short-epg")
        #expect(short.status == 200, "\(Self.errorMessage(short))")
        let programmes = try #require(try HTTP.json(short)["programmes"] as? [[String: Any]])
        #expect(programmes.map { $0["title"] as? String } == ["Breakfast", "BBC News at One", "Newsnight"])
        #expect(programmes.first?["description"] as? String == "News and weather.")
        #expect(programmes.first?["start"] as? Int == 1_709_618_400)
        #expect(programmes.first?["stop"] as? Int == 1_709_629_200)
        #expect(
            fake.requests.contains {
                $0.contains("action=get_short_epg") && $0.contains("stream_id=101") && $0.contains("limit=4")
            })
        let limited = try #require(
            try HTTP.json(try await HTTP.fetch(api + "/channels/\(bbc)/short-epg?limit=1"))["programmes"]
                as? [[String: Any]])
        #expect(limited.map { $0["title"] as? String } == ["Breakfast"])
        let other = try #require(live.first { $0["name"] as? String == "No Guide" }?["id"] as? Int)
        let empty = try await HTTP.fetch(api + "/channels/\(other)/short-epg")
        #expect(empty.status == 200)
        #expect((try HTTP.json(empty)["programmes"] as? [Any])?.isEmpty == true)
        #expect(try await HTTP.fetch(api + "/channels/\(bbc)/short-epg?limit=0").status == 400)
        #expect(try await HTTP.fetch(api + "/channels/\(seriesID)/short-epg").status == 409)
        #expect(try await HTTP.fetch(api + "/channels/987654/short-epg").status == 404)

        // A panel answering an error page: 502 with the reason; the stored episodes stay listed.
        fake.setResponse("<html><body>Service Unavailable</body></html>", for: "get_short_epg:101")
        fake.setResponse("<html><body>Service Unavailable</body></html>", for: "get_series_info")
        let down = try await HTTP.fetch(api + "/channels/\(bbc)/short-epg")
        #expect(down.status == 502)
        #expect(Self.errorMessage(down).contains("unexpected answer to get_short_epg"), "\(Self.errorMessage(down))")
        #expect(try await HTTP.fetch(api + "/channels/\(seriesID)/episodes?reload=true").status == 502)
        #expect(try HTTP.json(try await HTTP.fetch(api + "/channels/\(seriesID)/episodes"))["total"] as? Int == 3)
        try await harness.stop()
    }

    @Test("An Xtream source needs its credentials, given apart or in a pasted URL")
    func xtreamCredentialsRequired() async throws {
        let harness = try await ProxyHarness.start()
        let missing = try await HTTP.fetch(
            harness.api + "/sources", method: "POST",
            json: #"{"location":"http://127.0.0.1:9/","kind":"xtream","username":"u"}"#)
        #expect(missing.status == 400)
        #expect(Self.errorMessage(missing).contains("'username' and 'password'"))
        let given = try await HTTP.fetch(
            harness.api + "/sources", method: "POST",
            json:
                #"{"location":"http://127.0.0.1:9/","kind":"xtream","username":"u","password":"p","refreshInterval":600}"#
        )
        #expect(given.status == 201)
        #expect(try HTTP.json(given)["location"] as? String == "http://127.0.0.1:9")
        #expect(try HTTP.json(given)["refreshInterval"] as? Double == 600)
        try await harness.stop()
    }
}
