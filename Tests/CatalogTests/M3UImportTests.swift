import AsyncHTTPClient
import Foundation
import GRDB
import MediaFormats
import Testing
import TunerTesting

@testable import Catalog

@Suite("M3U import")
struct M3UImportTests {
    @Test(
        "A local playlist imports channels, movies, series with episodes, groups and headers",
        arguments: StorageEngine.underTest)
    func importsLocalPlaylist(engine: StorageEngine) async throws {
        try await TemporaryCatalog.with(engine) { catalog in
            let source = try await catalog.store.addSource(
                CatalogSourceDraft(kind: .m3u, location: Fixtures.path("small.m3u")))
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
            #expect(
                tele.identity
                    == CatalogIdentity.identity(
                        kind: .live, tvgID: nil, providerID: nil, name: "TELE-matin!", url: tele.url))
            #expect(tele.identity.hasPrefix("url:"))
            #expect(tele.url == "http://example.com/live/telematin.ts")
            #expect(
                Set(tele.headers) == [
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
    }

    @Test(
        "A refresh keeps row ids and favourites of items that are still there, and drops the rest",
        arguments: StorageEngine.underTest)
    func refreshKeepsIdentity(engine: StorageEngine) async throws {
        try await TemporaryCatalog.with(engine) { catalog in
            let path = try catalog.write(
                """
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
            _ = try catalog.write(
                """
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
    }

    /// An origin serving the small fixture as `/static/list.m3u` and an empty `/static/empty.m3u`.
    static func originServingSmallList(for catalog: TemporaryCatalog) async throws -> TestOrigin {
        let origin = try await TestOrigin.start()
        let served = catalog.directory.appendingPathComponent("served")
        try FileManager.default.createDirectory(at: served, withIntermediateDirectories: true)
        try FileManager.default.copyItem(
            atPath: Fixtures.path("small.m3u"), toPath: served.appendingPathComponent("list.m3u").path)
        try Data().write(to: served.appendingPathComponent("empty.m3u"))
        origin.serveDirectory(served.path)
        return origin
    }

    @Test("A provider's passing failure is tried again; a refusal is not", arguments: StorageEngine.underTest)
    func transientFetchFailuresAreRetriedByTheSharedPolicy(engine: StorageEngine) async throws {
        try await TemporaryCatalog.with(engine) { catalog in
            let origin = try await Self.originServingSmallList(for: catalog)
            defer { Task { try? await origin.shutdown() } }

            // 503 twice, then the playlist: the third try imports it.
            let flaky = try await catalog.store.addSource(
                CatalogSourceDraft(kind: .m3u, location: "\(origin.baseURL)/static/list.m3u?status=503&failfirst=2"))
            try await withImporter(catalog) { _ = try await $0.refresh(sourceID: flaky.id) }
            #expect(try await catalog.store.items(CatalogItemQuery()).total == 6)
            #expect(origin.requests(path: "/static/list.m3u") == 3)

            // A 404 will not pass: one request, then the error.
            let gone = try await catalog.store.addSource(
                CatalogSourceDraft(kind: .m3u, location: "\(origin.baseURL)/static/missing.m3u"))
            await #expect(throws: CatalogError.self) {
                try await withImporter(catalog) { _ = try await $0.refresh(sourceID: gone.id) }
            }
            #expect(origin.requests(path: "/static/missing.m3u") == 1)
        }
    }

    @Test(
        "Failed, truncated and empty fetches keep the previous items and record the error",
        arguments: StorageEngine.underTest,
        [
            "status=500", "reset=100", "badlength=50", "empty",
        ])
    func failedFetchKeepsPreviousItems(engine: StorageEngine, fault: String) async throws {
        try await TemporaryCatalog.with(engine) { catalog in
            let origin = try await Self.originServingSmallList(for: catalog)
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
    }

    @Test("Progress is reported while downloading and importing", arguments: StorageEngine.underTest)
    func reportsProgress(engine: StorageEngine) async throws {
        try await TemporaryCatalog.with(engine) { catalog in
            let source = try await catalog.store.addSource(
                CatalogSourceDraft(kind: .m3u, location: Fixtures.path("small.m3u")))
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
}

@Suite("M3U import in batches")
struct M3UBatchImportTests {
    /// Entries in runs that cross the writer's batches (1,024 rows): channels in three groups,
    /// eight of each tvg-id, some with headers; movies; and three episodes at a time of series
    /// that span batches and come back later. `dropMovies` leaves out a third of the movies.
    static func mixedPlaylist(entries: Int, dropMovies: Bool = false, extraChannel: Bool = false) -> String {
        var text = "#EXTM3U\n"
        if extraChannel { text += "#EXTINF:-1 tvg-id=\"new.tv\",Brand New\nhttp://example.com/live/new\n" }
        for index in 0..<entries {
            switch index % 10 {
            case 0..<4:
                let headers = index % 40 == 0 ? "|User-Agent=Agent\(index)" : ""
                text += "#EXTINF:-1 tvg-id=\"ch\(index / 20).tv\" group-title=\"Group \(index % 3)\",Chaîne \(index)\n"
                text += "http://example.com/live/\(index)\(headers)\n"
            case 4..<7:
                if dropMovies, index % 10 == 4 { continue }
                text += "#EXTINF:-1 group-title=\"Films\",Movie \(index)\nhttp://example.com/movie/u/p/\(index).mkv\n"
            default:
                text +=
                    """
                    #EXTINF:-1,Show \((index / 300) % 7) | EN | S01 \
                    E\(index)\nhttp://example.com/series/u/p/\(index).mkv\n
                    """
            }
        }
        return text
    }

    /// What each item should be, in order, worked out entry by entry with the mapper.
    static func expectedItems(_ playlist: String) -> [String] {
        let mapper = M3UItemMapper()
        var seen: [String: Int] = [:]
        var series: Set<String> = []
        var rows: [String] = []
        func add(_ item: CatalogItemDraft) {
            var identity = item.identity
            let key = item.kind.rawValue + " " + identity
            seen[key, default: 0] += 1
            if seen[key]! > 1 { identity += "#\(seen[key]!)" }
            let headers = item.headers.map { "\($0.name)=\($0.value)" }.joined(separator: ",")
            rows.append(
                [item.kind.rawValue, identity, item.name, item.group ?? "-", item.url ?? "-", headers].joined(
                    separator: "|"))
        }
        for entry in M3UParser.parse(Data(playlist.utf8)).entries {
            switch mapper.map(entry) {
            case .item(let item): add(item)
            case .episode(_, let show):
                if series.insert(show.identity).inserted { add(show) }
            }
        }
        return rows
    }

    /// The items as stored, in the order of their positions.
    static func storedItems(_ catalog: TemporaryCatalog) async throws -> (rows: [String], ids: [Int64]) {
        var rows: [String] = []
        var ids: [Int64] = []
        let stored = try await catalog.texts(
            "SELECT CAST(id AS TEXT), kind, identity, name, groupName, url, headers FROM catalogItem ORDER BY position")
        for row in stored {
            let headers = try SQLiteCatalogStore.decodeHeaders(row[6]).map { "\($0.name)=\($0.value)" }
                .joined(separator: ",")
            let fields: [String] = [row[1] ?? "", row[2] ?? "", row[3] ?? "", row[4] ?? "-", row[5] ?? "-", headers]
            rows.append(fields.joined(separator: "|"))
            ids.append(Int64(row[0] ?? "") ?? -1)
        }
        return (rows, ids)
    }

    @Test(
        "Entries across batches are stored as the mapper reads them, with groups, series and episodes linked",
        arguments: StorageEngine.underTest)
    func batchesMatchEntries(engine: StorageEngine) async throws {
        try await TemporaryCatalog.with(engine) { catalog in
            let playlist = Self.mixedPlaylist(entries: 3_000)
            let path = try catalog.write(playlist, to: "mixed.m3u")
            let source = try await catalog.store.addSource(CatalogSourceDraft(kind: .m3u, location: path))
            let counts = try await withImporter(catalog) { try await $0.refresh(sourceID: source.id) }
            #expect(counts == CatalogImportCounts(live: 1_200, movies: 900, series: 7, episodes: 900))

            let expected = Self.expectedItems(playlist)
            let stored = try await Self.storedItems(catalog)
            #expect(stored.rows.count == expected.count)
            #expect(zip(stored.rows, expected).filter { $0 != $1 }.count == 0)
            // Row ids follow the order of appearance, as search relies on.
            #expect(stored.ids == stored.ids.sorted())
            #expect(stored.rows.contains { $0.hasPrefix("live|tvg:ch0.tv#8|") })

            let problems = [
                // Every item with a group points at the group of that name.
                try await catalog.integer(
                    """
                    SELECT count(*) FROM catalogItem i LEFT JOIN catalogGroup g ON g.id = i.groupID
                    WHERE (i.groupName IS NULL) <> (i.groupID IS NULL) OR (i.groupID IS NOT NULL AND (g.name IS
                        DISTINCT FROM i.groupName OR g.kind IS DISTINCT FROM i.kind))
                    """),
                // Every episode belongs to the series its title names.
                try await catalog.integer(
                    """
                    SELECT count(*) FROM catalogEpisode e JOIN catalogItem s ON s.id = e.seriesID
                    WHERE s.kind <> 'series' OR substr(e.title, 1, length(s.name)) <> s.name
                    """),
                // Episodes in order of appearance, positions counting from zero.
                try await catalog.integer(
                    "SELECT count(*) FROM catalogEpisode WHERE position <> episode / 10 * 3 + episode % 10 - 7"),
            ]
            #expect(problems == [0, 0, 0])
            let groups = try await catalog.store.groups(kind: .live, sourceID: source.id)
            #expect(groups.map(\.name) == ["Group 0", "Group 1", "Group 2"])
            #expect(groups.map(\.itemCount) == [400, 400, 400])
            let shows = try await catalog.store.items(CatalogItemQuery(kind: .series, search: "show 0")).items
            let show = try #require(shows.first { $0.name == "Show 0 | EN" })
            let episodes = try await catalog.store.episodes(ofSeries: show.id)
            // Its episodes come in two stretches, 2,100 entries apart.
            #expect(episodes.count == 180)
            #expect(episodes.map(\.episode) == episodes.map(\.episode).sorted { ($0 ?? 0) < ($1 ?? 0) })
            let accented = try await catalog.store.items(CatalogItemQuery(search: "chaine 2990"))
            #expect(accented.items.map(\.name) == ["Chaîne 2990"])
        }
    }

    @Test("A refresh across batches keeps the row id of every item still there", arguments: StorageEngine.underTest)
    func refreshAcrossBatchesKeepsIDs(engine: StorageEngine) async throws {
        try await TemporaryCatalog.with(engine) { catalog in
            let path = try catalog.write(Self.mixedPlaylist(entries: 3_000), to: "mixed.m3u")
            let source = try await catalog.store.addSource(CatalogSourceDraft(kind: .m3u, location: path))
            try await withImporter(catalog) { importer in
                _ = try await importer.refresh(sourceID: source.id)
                let first = try await Self.storedItems(catalog)
                _ = try await importer.refresh(sourceID: source.id)
                let again = try await Self.storedItems(catalog)
                #expect(again.ids == first.ids)
                #expect(again.rows == first.rows)

                // A third of the movies gone and a channel in front: the rest keep their ids.
                let changed = Self.mixedPlaylist(entries: 3_000, dropMovies: true, extraChannel: true)
                _ = try catalog.write(changed, to: "mixed.m3u")
                let counts = try await importer.refresh(sourceID: source.id)
                #expect(counts.movies == 600)
                let after = try await Self.storedItems(catalog)
                #expect(zip(after.rows, Self.expectedItems(changed)).filter { $0 != $1 }.count == 0)
                let idsBefore = Dictionary(
                    uniqueKeysWithValues: zip(first.rows.map { $0.split(separator: "|")[1] }, first.ids))
                var kept = 0
                for (row, id) in zip(after.rows, after.ids) {
                    if let before = idsBefore[row.split(separator: "|")[1]] {
                        #expect(before == id)
                        kept += 1
                    } else {
                        #expect(row.hasPrefix("live|tvg:new.tv|"))
                        #expect(id > first.ids.max()!)
                    }
                }
                #expect(kept == after.rows.count - 1)
            }
            let gone = try await catalog.store.items(CatalogItemQuery(search: "movie 2994"))
            #expect(gone.total == 0)
        }
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
    let configuration = CatalogImporter.Configuration(
        temporaryDirectory: catalog.directory, progressInterval: progressInterval)
    let importer = CatalogImporter(
        store: catalog.store, httpClient: client, configuration: configuration, logger: testLogger)
    do {
        let result = try await body(importer)
        try await client.shutdown()
        return result
    } catch {
        try await client.shutdown()
        throw error
    }
}
