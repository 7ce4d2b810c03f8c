import AsyncHTTPClient
import Foundation
import Testing
import TunerTesting
@testable import Catalog

@Suite("M3U import")
struct M3UImportTests {
    @Test("A local playlist imports channels, movies, series with episodes, groups and headers")
    func importsLocalPlaylist() async throws {
        let catalog = try TemporaryCatalog()
        let source = try await catalog.store.addSource(CatalogSourceDraft(kind: .m3u, location: Fixtures.path("small.m3u")))
        #expect(source.name == "small")
        let counts = try await withImporter(catalog) { try await $0.refresh(sourceID: source.id) }
        #expect(counts == CatalogImportCounts(live: 4, movies: 1, series: 1, episodes: 3))

        let live = try await catalog.store.items(CatalogItemQuery(kind: .live))
        #expect(live.total == 4)
        #expect(live.items.map(\.name) == ["BBC One HD", "BBC One (backup)", "Télé Matin", "Sky Sports News"])
        let bbc = live.items[0]
        #expect(bbc.identity == "tvg:bbc1.uk")
        #expect(live.items[1].identity == "tvg:bbc1.uk#2")
        #expect(bbc.group == "UK News")
        #expect(bbc.logo == "http://logo/bbc1.png")
        #expect(bbc.catchup == CatalogCatchup(type: "shift", days: 3, source: nil))

        let tele = live.items[2]
        // Without a tvg-id: the normalized name ("tele matin") and the URL.
        #expect(tele.identity == CatalogIdentity.identity(kind: .live, tvgID: nil, providerID: nil, name: "TELE-matin!", url: tele.url))
        #expect(tele.identity.hasPrefix("url:"))
        #expect(tele.url == "http://example.com/live/telematin.ts")
        #expect(Set(tele.headers) == [
            CatalogHeader(name: "User-Agent", value: "SmartTV/1.0"),
            CatalogHeader(name: "Referer", value: "http://portal.example.com/"),
            CatalogHeader(name: "Origin", value: "http://portal.example.com"),
        ])
        let sky = live.items[3]
        #expect(sky.catchup == CatalogCatchup(type: "flussonic", days: 3, source: "http://example.com/arch/{utc}"))
        #expect(sky.headers == [CatalogHeader(name: "User-Agent", value: "Kodi")])

        let series = try await catalog.store.items(CatalogItemQuery(kind: .series))
        #expect(series.items.map(\.name) == ["American Gods | EN"])
        let episodes = try await catalog.store.episodes(ofSeries: series.items[0].id)
        #expect(episodes.map { [$0.season, $0.episode] } == [[1, 1], [1, 2], [2, 1]])

        let groups = try await catalog.store.groups(kind: .live, sourceID: source.id)
        #expect(groups.map(\.name) == ["UK News", "Français", "Sport"])
        #expect(groups.map(\.itemCount) == [2, 1, 1])

        let refreshed = try #require(try await catalog.store.source(id: source.id))
        #expect(refreshed.status == .ok)
        #expect(refreshed.lastRefresh != nil)
        #expect(refreshed.epgURLs == ["http://example.com/guide.xml.gz"])
    }

    @Test("A refresh keeps row ids and favourites of items that are still there, and drops the rest")
    func refreshKeepsIdentity() async throws {
        let catalog = try TemporaryCatalog()
        let path = try catalog.write("""
            #EXTM3U
            #EXTINF:-1 tvg-id="a",Alpha
            http://example.com/a
            #EXTINF:-1,Bravo
            http://example.com/b
            #EXTINF:-1,Charlie
            http://example.com/c
            """, to: "list.m3u")
        let source = try await catalog.store.addSource(CatalogSourceDraft(kind: .m3u, location: path))
        try await withImporter(catalog) { _ = try await $0.refresh(sourceID: source.id) }
        let before = try await catalog.store.items(CatalogItemQuery(kind: .live)).items
        try await catalog.store.setFavourite(itemID: before[0].id, true)
        try await catalog.store.setFavourite(itemID: before[1].id, true)

        // Alpha renamed (same tvg-id), Bravo gone, Charlie moved, Delta new.
        _ = try catalog.write("""
            #EXTM3U
            #EXTINF:-1,Delta
            http://example.com/d
            #EXTINF:-1,Charlie
            http://example.com/c
            #EXTINF:-1 tvg-id="a",Alpha HD
            http://example.com/a2
            """, to: "list.m3u")
        try await withImporter(catalog) { _ = try await $0.refresh(sourceID: source.id) }
        let after = try await catalog.store.items(CatalogItemQuery(kind: .live)).items
        #expect(after.map(\.name) == ["Delta", "Charlie", "Alpha HD"])
        #expect(after[2].id == before[0].id)
        #expect(after[1].id == before[2].id)
        #expect(after[2].isFavourite)
        #expect(!after[1].isFavourite)

        // Bravo's favourite is remembered by identity and comes back with it.
        let favourites = try await catalog.store.items(CatalogItemQuery(favouritesOnly: true))
        #expect(favourites.items.map(\.name) == ["Alpha HD"])
        let search = try await catalog.store.items(CatalogItemQuery(search: "bravo"))
        #expect(search.total == 0)
    }

    @Test("Failed, truncated and empty fetches keep the previous items and record the error", arguments: [
        "status=500", "reset=100", "badlength=50", "empty",
    ])
    func failedFetchKeepsPreviousItems(fault: String) async throws {
        let catalog = try TemporaryCatalog()
        let origin = try await TestOrigin.start()
        let served = catalog.directory.appendingPathComponent("served")
        try FileManager.default.createDirectory(at: served, withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: Fixtures.path("small.m3u"), toPath: served.appendingPathComponent("list.m3u").path)
        try Data().write(to: served.appendingPathComponent("empty.m3u"))
        origin.serveDirectory(served.path)
        defer { Task { try? await origin.shutdown() } }

        let good = "\(origin.baseURL)/static/list.m3u"
        let source = try await catalog.store.addSource(CatalogSourceDraft(kind: .m3u, location: good))
        try await withImporter(catalog) { _ = try await $0.refresh(sourceID: source.id) }
        let before = try await catalog.store.items(CatalogItemQuery())
        #expect(before.total == 6)

        var broken = try #require(try await catalog.store.source(id: source.id))
        broken.location = fault == "empty" ? "\(origin.baseURL)/static/empty.m3u" : "\(good)?\(fault)"
        try await catalog.store.updateSource(broken)
        await #expect(throws: (any Error).self) {
            try await withImporter(catalog) { _ = try await $0.refresh(sourceID: source.id) }
        }
        let after = try await catalog.store.items(CatalogItemQuery())
        #expect(after == before)
        let recorded = try #require(try await catalog.store.source(id: source.id))
        #expect(recorded.status == .failed)
        #expect(recorded.lastError != nil)
        #expect(recorded.lastRefresh != nil)
    }

    @Test("Progress is reported while downloading and importing")
    func reportsProgress() async throws {
        let catalog = try TemporaryCatalog()
        let source = try await catalog.store.addSource(CatalogSourceDraft(kind: .m3u, location: Fixtures.path("small.m3u")))
        let phases = PhaseRecorder()
        try await withImporter(catalog, progressInterval: 1) {
            _ = try await $0.refresh(sourceID: source.id) { phases.record($0) }
        }
        let seen = phases.all
        #expect(seen.contains { $0.phase == .importing && $0.entries == 1 })
        #expect(seen.last?.phase == .finished)
        #expect(seen.last?.entries == 9)
    }
}

final class PhaseRecorder: @unchecked Sendable {
    private let lock = NSLock()
    private var progress: [CatalogImportProgress] = []
    func record(_ value: CatalogImportProgress) { lock.withLock { progress.append(value) } }
    var all: [CatalogImportProgress] { lock.withLock { progress } }
}

/// Runs `body` with an importer over the catalog's store and a client that is shut down after.
func withImporter<T>(
    _ catalog: TemporaryCatalog,
    progressInterval: Int = 10_000,
    _ body: (CatalogImporter) async throws -> T
) async throws -> T {
    let client = HTTPClient(eventLoopGroupProvider: .singleton)
    let configuration = CatalogImporter.Configuration(temporaryDirectory: catalog.directory, progressInterval: progressInterval)
    let importer = CatalogImporter(store: catalog.store, httpClient: client, configuration: configuration, logger: testLogger)
    do {
        let result = try await body(importer)
        try await client.shutdown()
        return result
    } catch {
        try await client.shutdown()
        throw error
    }
}
