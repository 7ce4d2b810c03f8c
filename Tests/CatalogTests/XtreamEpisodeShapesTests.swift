import Foundation
import Testing
import TunerTesting

@testable import Catalog

@Suite("Xtream series episodes in every shape panels send")
struct XtreamEpisodeShapesTests {
    /// The same four episodes (S1E1, S1E2, S2E1, S2E2) as panels write them.
    static let shapes: [(name: String, episodes: String)] = [
        (
            "keyed by season, out of order",
            #"""
            {"2":[{"id":"201","episode_num":"1","title":"S2E1","season":2,"container_extension":"mkv","info":[]},{"id":202,"episode_num":2,"title":"S2E2","season":"2"}],
             "1":[{"id":"102","episode_num":2,"title":"S1E2","season":1},{"id":"101","episode_num":1,"title":"S1E1","season":1,"info":{"duration_secs":"1500"}}]}
            """#
        ),
        (
            "keyed by season, each season keyed by index (PHP's sparse arrays)",
            #"""
            {"1":{"0":{"id":"101","episode_num":1,"title":"S1E1","info":{"duration_secs":1500}},"1":{"id":"102","episode_num":2,"title":"S1E2"}},
             "2":{"0":{"id":"201","episode_num":1,"title":"S2E1","container_extension":"mkv"},"3":{"id":"202","episode_num":2,"title":"S2E2"}}}
            """#
        ),
        (
            "a list of seasons' lists, seasons unnamed",
            #"""
            [[{"id":"101","episode_num":1,"title":"S1E1","info":{"duration_secs":1500}},{"id":"102","episode_num":2,"title":"S1E2"}],
             [{"id":"201","episode_num":1,"title":"S2E1","container_extension":"mkv"},{"id":"202","episode_num":"2","title":"S2E2"}]]
            """#
        ),
        (
            "one flat list, each episode naming its season",
            #"""
            [{"id":"202","episode_num":2,"title":"S2E2","season":"2"},{"id":"101","episode_num":1,"title":"S1E1","season":1,"info":{"duration_secs":1500}},
             {"id":"201","episode_num":1,"title":"S2E1","season":2,"container_extension":"mkv"},{"id":"102","episode_num":"2","title":"S1E2","season":"1"}]
            """#
        ),
    ]

    @Test("Every shape gives the same seasons and episodes, with their URLs", arguments: StorageEngine.underTest, 0..<4)
    func shape(engine: StorageEngine, _ index: Int) async throws {
        let shape = Self.shapes[index]
        var responses = XtreamImportTests.responses
        responses["get_series_info"] = #"{"seasons":[],"info":{"name":"American Gods"},"episodes":\#(shape.episodes)}"#
        let fake = try await XtreamFake.start(responses: responses)
        defer { Task { try? await fake.shutdown() } }
        try await TemporaryCatalog.with(engine) { catalog in
            let source = try await catalog.store.addSource(
                CatalogSourceDraft(
                    kind: .xtream, location: fake.baseURL,
                    xtream: XtreamCredentials(server: fake.baseURL, username: "user", password: "pass")))
            try await withImporter(catalog) { importer in
                _ = try await importer.refresh(sourceID: source.id)
                let series = try #require(try await catalog.store.items(CatalogItemQuery(kind: .series)).items.first)
                let episodes = try await importer.episodes(seriesItemID: series.id)
                #expect(episodes.map(\.title) == ["S1E1", "S1E2", "S2E1", "S2E2"], "\(shape.name)")
                #expect(episodes.map(\.season) == [1, 1, 2, 2], "\(shape.name)")
                #expect(episodes.map(\.episode) == [1, 2, 1, 2], "\(shape.name)")
                #expect(episodes.first?.duration == 1500, "\(shape.name)")
                #expect(episodes[2].url == "\(fake.baseURL)/series/user/pass/201.mkv", "\(shape.name)")
                #expect(episodes[3].url == "\(fake.baseURL)/series/user/pass/202.mp4", "\(shape.name)")
            }
        }
    }

    @Test(
        "Episodes load from the panel once, again after a refresh or when asked, and a series without any gives none",
        arguments: StorageEngine.underTest)
    func loadedOnceThenStored(engine: StorageEngine) async throws {
        var responses = XtreamImportTests.responses
        responses["get_series_info"] = #"{"info":{},"episodes":{"1":[{"id":"101","episode_num":1,"title":"Pilot"}]}}"#
        let fake = try await XtreamFake.start(responses: responses)
        defer { Task { try? await fake.shutdown() } }
        try await TemporaryCatalog.with(engine) { catalog in
            let source = try await catalog.store.addSource(
                CatalogSourceDraft(
                    kind: .xtream, location: fake.baseURL,
                    xtream: XtreamCredentials(server: fake.baseURL, username: "user", password: "pass")))
            func fetches() -> Int { fake.requests.filter { $0.contains("action=get_series_info") }.count }
            try await withImporter(catalog) { importer in
                _ = try await importer.refresh(sourceID: source.id)
                let series = try #require(try await catalog.store.items(CatalogItemQuery(kind: .series)).items.first)
                #expect(try await importer.episodes(seriesItemID: series.id).map(\.title) == ["Pilot"])
                #expect(try await importer.episodes(seriesItemID: series.id).count == 1)
                #expect(fetches() == 1, "stored after the first time")
                let stored = try #require(try await catalog.store.episodes(ofSeries: series.id).first)
                #expect(try await catalog.store.episode(id: stored.id)?.title == "Pilot")

                fake.setResponse(
                    #"{"info":{},"episodes":{"1":[{"id":"101","episode_num":1,"title":"Pilot"},{"id":"102","episode_num":2,"title":"Second"}]}}"#,
                    for: "get_series_info")
                #expect(
                    try await importer.episodes(seriesItemID: series.id, reload: true).map(\.title) == [
                        "Pilot", "Second",
                    ])
                #expect(fetches() == 2)
                _ = try await importer.refresh(sourceID: source.id)
                #expect(try await importer.episodes(seriesItemID: series.id).count == 2)
                #expect(fetches() == 3, "a refresh replaces the episodes, so they are fetched again")

                fake.setResponse(#"{"info":[],"episodes":[]}"#, for: "get_series_info")
                #expect(try await importer.episodes(seriesItemID: series.id, reload: true).isEmpty)

                let live = try #require(try await catalog.store.items(CatalogItemQuery(kind: .live)).items.first)
                let notSeries = await #expect(throws: CatalogError.self) {
                    try await importer.episodes(seriesItemID: live.id)
                }
                #expect(notSeries?.isUnsupported == true)
            }
        }
    }
}
