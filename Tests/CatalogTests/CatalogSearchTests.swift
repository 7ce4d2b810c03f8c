import Foundation
import Testing
import TunerTesting

@testable import Catalog

@Suite("Search and listing")
struct CatalogSearchTests {
    /// A catalog with a handful of channels in two groups and a movie.
    func makeCatalog(_ catalog: TemporaryCatalog) async throws -> CatalogSource {
        let path = try catalog.write(
            """
            #EXTM3U
            #EXTINF:-1 group-title="News",BBC News
            http://example.com/1
            #EXTINF:-1 group-title="News",CNN International
            http://example.com/2
            #EXTINF:-1 group-title="Français",Télé Matin
            http://example.com/3
            #EXTINF:-1 group-title="Français",France 24 News
            http://example.com/4
            #EXTINF:-1 group-title="Kids",Cartoon Network
            http://example.com/5
            #EXTINF:-1 group-title="Films",Newsies
            http://example.com/movie/u/p/6.mp4
            """, to: "search.m3u")
        let source = try await catalog.store.addSource(CatalogSourceDraft(kind: .m3u, location: path))
        try await withImporter(catalog) { _ = try await $0.refresh(sourceID: source.id) }
        return source
    }

    @Test("Words match as prefixes, accents ignored either way", arguments: StorageEngine.underTest)
    func prefixAndAccents(engine: StorageEngine) async throws {
        try await TemporaryCatalog.with(engine) { catalog in
            _ = try await makeCatalog(catalog)
            #expect(try await names(catalog, CatalogItemQuery(search: "tele")) == ["Télé Matin"])
            #expect(try await names(catalog, CatalogItemQuery(search: "TÉLÉ mat")) == ["Télé Matin"])
            #expect(try await names(catalog, CatalogItemQuery(search: "franc")) == ["France 24 News", "Télé Matin"])
            #expect(try await names(catalog, CatalogItemQuery(search: "cart net")) == ["Cartoon Network"])
        }
    }

    @Test("Names rank above groups", arguments: StorageEngine.underTest)
    func ranking(engine: StorageEngine) async throws {
        try await TemporaryCatalog.with(engine) { catalog in
            _ = try await makeCatalog(catalog)
            let page = try await catalog.store.items(CatalogItemQuery(kind: .live, search: "news"))
            #expect(page.total == 3)
            // "CNN International" matches only through its group.
            #expect(page.items.last?.name == "CNN International")
            #expect(Set(page.items.prefix(2).map(\.name)) == ["BBC News", "France 24 News"])
        }
    }

    @Test(
        "FTS syntax in the query is plain text, and punctuation alone matches nothing",
        arguments: StorageEngine.underTest)
    func hostileQueries(engine: StorageEngine) async throws {
        try await TemporaryCatalog.with(engine) { catalog in
            _ = try await makeCatalog(catalog)
            #expect(try await names(catalog, CatalogItemQuery(search: "\"bbc\" OR NEAR(")) == [])
            #expect(try await names(catalog, CatalogItemQuery(search: "bbc*")) == ["BBC News"])
            #expect(try await names(catalog, CatalogItemQuery(search: "-:*")) == [])
        }
    }

    @Test("Listing filters by kind, group and favourites, and pages", arguments: StorageEngine.underTest)
    func filtersAndPages(engine: StorageEngine) async throws {
        try await TemporaryCatalog.with(engine) { catalog in
            let source = try await makeCatalog(catalog)
            #expect(
                try await names(catalog, CatalogItemQuery(kind: .live, group: "News")) == [
                    "BBC News", "CNN International",
                ])
            #expect(try await names(catalog, CatalogItemQuery(kind: .movie)) == ["Newsies"])
            #expect(
                try await names(catalog, CatalogItemQuery(kind: .live, search: "news", offset: 0, limit: 1)).count == 1)

            let first = try await catalog.store.items(
                CatalogItemQuery(kind: .live, sourceID: source.id, offset: 0, limit: 2))
            let second = try await catalog.store.items(
                CatalogItemQuery(kind: .live, sourceID: source.id, offset: 2, limit: 2))
            let third = try await catalog.store.items(
                CatalogItemQuery(kind: .live, sourceID: source.id, offset: 4, limit: 2))
            #expect(first.total == 5)
            #expect(
                (first.items + second.items + third.items).map(\.name) == [
                    "BBC News", "CNN International", "Télé Matin", "France 24 News", "Cartoon Network",
                ])

            let all = try await catalog.store.items(CatalogItemQuery(kind: .live)).items
            try await catalog.store.setFavourite(itemID: all[4].id, true)
            try await catalog.store.setFavourite(itemID: all[0].id, true)
            try await catalog.store.setFavourite(itemID: all[2].id, true)
            #expect(
                try await names(catalog, CatalogItemQuery(favouritesOnly: true)) == [
                    "Cartoon Network", "BBC News", "Télé Matin",
                ])
            try await catalog.store.moveFavourite(itemID: all[2].id, to: 0)
            #expect(
                try await names(catalog, CatalogItemQuery(favouritesOnly: true)) == [
                    "Télé Matin", "Cartoon Network", "BBC News",
                ])
            #expect(try await names(catalog, CatalogItemQuery(favouritesOnly: true, search: "news")) == ["BBC News"])
            try await catalog.store.setFavourite(itemID: all[4].id, false)
            #expect(try await names(catalog, CatalogItemQuery(favouritesOnly: true)) == ["Télé Matin", "BBC News"])
        }
    }

    @Test(
        "Removing a source removes its items and search entries but not favourites", arguments: StorageEngine.underTest)
    func removeSource(engine: StorageEngine) async throws {
        try await TemporaryCatalog.with(engine) { catalog in
            let source = try await makeCatalog(catalog)
            let bbc = try #require(try await catalog.store.items(CatalogItemQuery(search: "bbc")).items.first)
            try await catalog.store.setFavourite(itemID: bbc.id, true)
            try await catalog.store.removeSource(id: source.id)
            #expect(try await catalog.store.items(CatalogItemQuery()).total == 0)
            #expect(try await catalog.store.items(CatalogItemQuery(search: "bbc")).total == 0)
            await #expect(throws: CatalogError.sourceNotFound(source.id)) {
                try await catalog.store.removeSource(id: source.id)
            }

            // Added again: the favourite is back.
            let again = try await catalog.store.addSource(CatalogSourceDraft(kind: .m3u, location: source.location))
            try await withImporter(catalog) { _ = try await $0.refresh(sourceID: again.id) }
            #expect(try await names(catalog, CatalogItemQuery(favouritesOnly: true)) == ["BBC News"])
        }
    }

    @Test("The schema refuses inconsistent rows", arguments: StorageEngine.underTest)
    func constraints(engine: StorageEngine) async throws {
        try await TemporaryCatalog.with(engine) { catalog in
            await #expect(throws: (any Error).self) {
                _ = try await catalog.store.addSource(CatalogSourceDraft(kind: .xtream, location: "http://x"))
            }
            await #expect(throws: (any Error).self) {
                _ = try await catalog.store.addSource(
                    CatalogSourceDraft(kind: CatalogSourceKind(rawValue: "ftp"), location: "x"))
            }
        }
    }

    func names(_ catalog: TemporaryCatalog, _ query: CatalogItemQuery) async throws -> [String] {
        try await catalog.store.items(query).items.map(\.name)
    }

    @Test(
        "A broad search lists name matches before group-only matches, in catalogue order, paged and filtered",
        arguments: StorageEngine.underTest)
    func broadSearch(engine: StorageEngine) async throws {
        try await TemporaryCatalog.with(engine) { catalog in
            var lines = ["#EXTM3U"]
            // More group-only matches than a search ranks one by one, then two name matches.
            for index in 0..<(SQLiteCatalogStore.rankedSearchLimit + 20) {
                lines.append("#EXTINF:-1 group-title=\"Sport\",Channel \(index)")
                lines.append("http://example.com/\(index)")
            }
            lines += [
                "#EXTINF:-1 group-title=\"Other\",Sporting Life", "http://example.com/life",
                "#EXTINF:-1 group-title=\"Sport\",Sport One", "http://example.com/one",
                "#EXTINF:-1 group-title=\"Films\",Sport Movie", "http://example.com/movie/u/p/9.mp4",
            ]
            let path = try catalog.write(lines.joined(separator: "\n"), to: "broad.m3u")
            let source = try await catalog.store.addSource(CatalogSourceDraft(kind: .m3u, location: path))
            try await withImporter(catalog) { _ = try await $0.refresh(sourceID: source.id) }

            let first = try await catalog.store.items(CatalogItemQuery(search: "sport", limit: 4))
            #expect(first.total == SQLiteCatalogStore.rankedSearchLimit + 23)
            #expect(first.items.map(\.name) == ["Sporting Life", "Sport One", "Sport Movie", "Channel 0"])
            let next = try await catalog.store.items(CatalogItemQuery(search: "sport", offset: 4, limit: 2))
            #expect(next.items.map(\.name) == ["Channel 1", "Channel 2"])
            let live = try await catalog.store.items(CatalogItemQuery(kind: .live, search: "sport", limit: 3))
            #expect(live.total == SQLiteCatalogStore.rankedSearchLimit + 22)
            #expect(live.items.map(\.name) == ["Sporting Life", "Sport One", "Channel 0"])
        }
    }
}
