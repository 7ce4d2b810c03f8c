import AsyncHTTPClient
import Foundation
import Testing
import TunerTesting

@testable import Catalog

@Suite("Xtream Codes import")
struct XtreamImportTests {
    static let responses: [String: String] = [
        "get_live_categories":
            #"[{"category_id":"1","category_name":"News","parent_id":0},{"category_id":2,"category_name":"Sport"}]"#,
        "get_live_streams": #"""
        [{"num":1,"name":"BBC One","stream_type":"live","stream_id":101,"stream_icon":"http://logo/bbc.png","epg_channel_id":"bbc1.uk","category_id":"1","tv_archive":1,"tv_archive_duration":"7"},
         {"num":"2","name":"Sky Sports","stream_id":"102","stream_icon":"","epg_channel_id":null,"category_id":2,"tv_archive":0,"tv_archive_duration":0},
         {"num":null,"name":"Broken","stream_id":null}]
        """#,
        "get_vod_categories": #"[{"category_id":"10","category_name":"Films"}]"#,
        "get_vod_streams":
            #"[{"num":1,"name":"The Matrix","stream_id":"9001","stream_icon":"http://logo/m.jpg","rating":7.5,"category_id":"10","container_extension":"mkv"}]"#,
        "get_series_categories": #"[{"category_id":"20","category_name":"Drama"}]"#,
        "get_series":
            #"[{"num":1,"name":"American Gods","series_id":77,"cover":"http://logo/ag.jpg","category_id":"20"}]"#,
    ]

    static let guide = """
        <tv><channel id="bbc1.uk"><display-name>BBC One</display-name></channel>
        <programme channel="bbc1.uk" start="20240305060000 +0000" stop="20240305070000 +0000"><title>Breakfast</title></programme></tv>
        """

    @Test(
        "Live streams, movies and series import with their categories, URLs and catch-up, numbers as strings or ints",
        arguments: StorageEngine.underTest)
    func importsAccount(engine: StorageEngine) async throws {
        let fake = try await XtreamFake.start(responses: Self.responses, guide: Self.guide)
        defer { Task { try? await fake.shutdown() } }
        try await TemporaryCatalog.with(engine) { catalog in
            let source = try await catalog.store.addSource(
                CatalogSourceDraft(
                    kind: .xtream, location: fake.baseURL,
                    xtream: XtreamCredentials(server: fake.baseURL + "/", username: "user", password: "pass")
                ))
            try await withImporter(catalog) { importer in
                let counts = try await importer.refresh(sourceID: source.id)
                #expect(counts == CatalogImportCounts(live: 2, movies: 1, series: 1))
                let guide = try await importer.refreshGuide(sourceID: source.id, now: 0, retention: 0)
                #expect(guide.programmes == 1)
            }
            let live = try await catalog.store.items(CatalogItemQuery(kind: .live)).items
            #expect(live.map(\.name) == ["BBC One", "Sky Sports"])
            #expect(live[0].url == "\(fake.baseURL)/live/user/pass/101.ts")
            #expect(live[0].group == "News")
            #expect(live[0].tvgID == "bbc1.uk")
            #expect(live[0].catchup == CatalogCatchup(type: "xc", days: 7))
            #expect(live[1].group == "Sport")
            #expect(live[1].logo == nil)
            #expect(live[1].catchup == nil)
            let movie = try #require(try await catalog.store.items(CatalogItemQuery(kind: .movie)).items.first)
            #expect(movie.url == "\(fake.baseURL)/movie/user/pass/9001.mkv")
            #expect(movie.group == "Films")
            let series = try #require(try await catalog.store.items(CatalogItemQuery(kind: .series)).items.first)
            #expect(series.name == "American Gods")
            #expect(series.identity == "id:series:77")

            let updated = try #require(try await catalog.store.source(id: source.id))
            #expect(updated.epgURLs == ["\(fake.baseURL)/xmltv.php?username=user&password=pass"])
            let nowNext = try await catalog.store.nowNext(itemIDs: [live[0].id], at: 1_709_618_400)
            #expect(nowNext.first?.now?.title == "Breakfast")
        }
    }

    @Test("Refused credentials fail the refresh and keep the previous items", arguments: StorageEngine.underTest)
    func refusedCredentials(engine: StorageEngine) async throws {
        let fake = try await XtreamFake.start(responses: Self.responses)
        defer { Task { try? await fake.shutdown() } }
        try await TemporaryCatalog.with(engine) { catalog in
            let source = try await catalog.store.addSource(
                CatalogSourceDraft(
                    kind: .xtream, location: fake.baseURL,
                    xtream: XtreamCredentials(server: fake.baseURL, username: "user", password: "pass")
                ))
            try await withImporter(catalog) { importer in
                _ = try await importer.refresh(sourceID: source.id)
                var wrong = try #require(try await catalog.store.source(id: source.id))
                wrong.xtream?.password = "wrong"
                try await catalog.store.updateSource(wrong)
                await #expect(throws: CatalogError.self) { try await importer.refresh(sourceID: source.id) }
            }
            #expect(try await catalog.store.items(CatalogItemQuery()).total == 4)
            #expect(try await catalog.store.source(id: source.id)?.status == .failed)
        }
    }
}

@Suite("Xtream Codes details")
struct XtreamDetailsTests {
    @Test(
        "Series episodes load on demand, and the short EPG's base64 text is decoded", arguments: StorageEngine.underTest
    )
    func episodesAndShortEPG(engine: StorageEngine) async throws {
        var responses = XtreamImportTests.responses
        responses["get_series_info"] = #"""
            {"info":{"name":"American Gods"},"episodes":{"2":[{"id":"5002","episode_num":1,"title":"S2 E1","container_extension":"mkv","season":2,"info":{"duration_secs":3000}}],
             "1":[{"id":5001,"episode_num":"1","title":"S1 E1","container_extension":"mp4","season":"1","info":{}},{"id":"5003","episode_num":2,"title":"S1 E2","info":{"duration_secs":"2900"}}]}}
            """#
        // "Breakfast" and "News and weather." in base64.
        responses["get_short_epg"] =
            #"{"epg_listings":[{"id":"1","epg_id":"9","channel_id":"bbc1.uk","title":"QnJlYWtmYXN0","description":"TmV3cyBhbmQgd2VhdGhlci4=","start_timestamp":"1709618400","stop_timestamp":1709622000}]}"#
        let fake = try await XtreamFake.start(responses: responses)
        defer { Task { try? await fake.shutdown() } }
        try await TemporaryCatalog.with(engine) { catalog in
            let source = try await catalog.store.addSource(
                CatalogSourceDraft(
                    kind: .xtream, location: fake.baseURL,
                    xtream: XtreamCredentials(server: fake.baseURL, username: "user", password: "pass")
                ))
            try await withImporter(catalog) { importer in
                _ = try await importer.refresh(sourceID: source.id)
                let series = try #require(try await catalog.store.items(CatalogItemQuery(kind: .series)).items.first)
                let episodes = try await importer.loadXtreamEpisodes(seriesItemID: series.id)
                #expect(episodes.map(\.title) == ["S1 E1", "S1 E2", "S2 E1"])
                #expect(episodes.map(\.season) == [1, 1, 2])
                #expect(episodes[0].url == "\(fake.baseURL)/series/user/pass/5001.mp4")
                #expect(episodes[1].duration == 2900)
                #expect(fake.requests.contains { $0.contains("action=get_series_info") && $0.contains("series_id=77") })

                let live = try #require(try await catalog.store.items(CatalogItemQuery(kind: .live)).items.first)
                let epg = try await importer.xtreamShortEPG(channelItemID: live.id)
                #expect(epg.map(\.title) == ["Breakfast"])
                #expect(epg.first?.description == "News and weather.")
                #expect(epg.first?.start == 1_709_618_400)
                #expect(fake.requests.contains { $0.contains("action=get_short_epg") && $0.contains("stream_id=101") })

                await #expect(throws: CatalogError.self) {
                    try await importer.loadXtreamEpisodes(seriesItemID: live.id)
                }
            }
        }
    }

    @Test(
        """
        Movie details come from get_vod_info (numbers as strings or ints, info as [] when empty), once, and fix \
        the container
        """, arguments: StorageEngine.underTest)
    func movieDetails(engine: StorageEngine) async throws {
        var responses = XtreamImportTests.responses
        responses["get_vod_streams"] = #"""
            [{"num":1,"name":"The Matrix","stream_id":"9001","stream_icon":"http://logo/m.jpg","category_id":"10","container_extension":"mp4"},
             {"num":2,"name":"Bare Movie","stream_id":9002,"category_id":10,"container_extension":"avi"}]
            """#
        responses["get_vod_info:9001"] = #"""
            {"info":{"kinopoisk_url":"","tmdb_id":603,"name":"The Matrix","movie_image":"http://img/matrix.jpg","releasedate":"1999-03-31",
              "youtube_trailer":"vKQi3bBA1y8","director":"Lana Wachowski, Lilly Wachowski","actors":"Keanu Reeves, Laurence Fishburne",
              "cast":"Keanu Reeves, Laurence Fishburne, Carrie-Anne Moss","description":"A hacker learns the truth.","plot":"Neo learns the truth.",
              "genre":"Action, Science Fiction","backdrop_path":["http://img/b1.jpg","http://img/b2.jpg"],"duration_secs":"8160","duration":"02:16:00",
              "rating":"7.9","bitrate":0},
             "movie_data":{"stream_id":9001,"name":"The Matrix","added":"1600000000","category_id":"10","container_extension":"mkv","custom_sid":"","direct_source":""}}
            """#
        responses["get_vod_info:9002"] =
            #"{"info":[],"movie_data":{"stream_id":"9002","name":"Bare Movie","container_extension":"avi"}}"#
        let fake = try await XtreamFake.start(responses: responses)
        defer { Task { try? await fake.shutdown() } }
        try await TemporaryCatalog.with(engine) { catalog in
            let source = try await catalog.store.addSource(
                CatalogSourceDraft(
                    kind: .xtream, location: fake.baseURL,
                    xtream: XtreamCredentials(server: fake.baseURL, username: "user", password: "pass")
                ))
            try await withImporter(catalog) { importer in
                _ = try await importer.refresh(sourceID: source.id)
                let movies = try await catalog.store.items(CatalogItemQuery(kind: .movie)).items
                let matrix = try #require(movies.first { $0.name == "The Matrix" })
                let bare = try #require(movies.first { $0.name == "Bare Movie" })

                let details = try await importer.movieDetails(itemID: matrix.id)
                #expect(details.plot == "Neo learns the truth.")
                #expect(details.cast == "Keanu Reeves, Laurence Fishburne, Carrie-Anne Moss")
                #expect(details.director == "Lana Wachowski, Lilly Wachowski")
                #expect(details.genre == "Action, Science Fiction")
                #expect(details.releaseDate == "1999-03-31")
                #expect(details.durationSeconds == 8160)
                #expect(details.rating == 7.9)
                #expect(details.tmdbID == "603")
                #expect(details.backdrops == ["http://img/b1.jpg", "http://img/b2.jpg"])
                #expect(details.containerExtension == "mkv")
                // The listing said mp4; the panel's details say mkv, and the URL follows them.
                #expect(try await catalog.store.item(id: matrix.id)?.url == "\(fake.baseURL)/movie/user/pass/9001.mkv")
                // Asked again: from the database, not the panel.
                _ = try await importer.movieDetails(itemID: matrix.id)
                #expect(
                    fake.requests.filter { $0.contains("action=get_vod_info") && $0.contains("vod_id=9001") }.count == 1
                )

                let bareDetails = try await importer.movieDetails(itemID: bare.id)
                #expect(bareDetails.plot == nil)
                #expect(bareDetails.containerExtension == "avi")

                // Details survive a refresh (the movie keeps its row id).
                _ = try await importer.refresh(sourceID: source.id)
                #expect(try await catalog.store.movieDetails(itemID: matrix.id)?.durationSeconds == 8160)

                let live = try #require(try await catalog.store.items(CatalogItemQuery(kind: .live)).items.first)
                await #expect(throws: CatalogError.self) {
                    try await importer.loadXtreamMovieDetails(movieItemID: live.id)
                }
            }
        }
    }

    @Test("An import can fetch every movie's details at once", arguments: StorageEngine.underTest)
    func movieDetailsOnImport(engine: StorageEngine) async throws {
        var responses = XtreamImportTests.responses
        responses["get_vod_info:9001"] =
            #"{"info":{"plot":"Neo learns the truth.","duration_secs":8160},"movie_data":{"stream_id":9001,"container_extension":"mkv"}}"#
        let fake = try await XtreamFake.start(responses: responses)
        defer { Task { try? await fake.shutdown() } }
        try await TemporaryCatalog.with(engine) { catalog in
            let source = try await catalog.store.addSource(
                CatalogSourceDraft(
                    kind: .xtream, location: fake.baseURL,
                    xtream: XtreamCredentials(server: fake.baseURL, username: "user", password: "pass")
                ))
            let client = HTTPClient(eventLoopGroupProvider: .singleton)
            var configuration = CatalogImporter.Configuration(temporaryDirectory: catalog.directory)
            configuration.movieDetailsOnImport = true
            let importer = CatalogImporter(
                store: catalog.store, httpClient: client, configuration: configuration, logger: testLogger)
            do {
                _ = try await importer.refresh(sourceID: source.id)
                let movie = try #require(try await catalog.store.items(CatalogItemQuery(kind: .movie)).items.first)
                #expect(try await catalog.store.movieDetails(itemID: movie.id)?.plot == "Neo learns the truth.")
            } catch {
                try await client.shutdown()
                throw error
            }
            try await client.shutdown()
        }
    }
}
