import Foundation
import Testing
import TunerTesting

@testable import Catalog

@Suite("Favourites in the user's order")
struct FavouriteOrderTests {
    static func playlist(_ entries: [(tvgID: String, name: String)]) -> String {
        "#EXTM3U\n"
            + entries.map {
                """
                #EXTINF:-1 \
                tvg-id=\"\($0.tvgID)\",\($0.name)\nhttp://example.com/\($0.tvgID).ts?v=\(UUID().uuidString.prefix(4))
                """
            }
            .joined(separator: "\n") + "\n"
    }

    static func favourites(_ catalog: TemporaryCatalog) async throws -> [String] {
        try await catalog.store.items(CatalogItemQuery(kind: nil, favouritesOnly: true)).items.map(\.name)
    }

    @Test(
        """
        A custom order of favourites is kept across refreshes that reorder, rename and drop channels, and across \
        removing the source
        """, arguments: StorageEngine.underTest)
    func orderSurvivesRefresh(engine: StorageEngine) async throws {
        try await TemporaryCatalog.with(engine) { catalog in
            let path = try catalog.write(
                Self.playlist([("a", "Alpha"), ("b", "Bravo"), ("c", "Charlie"), ("d", "Delta")]), to: "list.m3u")
            let source = try await catalog.store.addSource(CatalogSourceDraft(kind: .m3u, location: path))
            try await withImporter(catalog) { _ = try await $0.refresh(sourceID: source.id) }
            let items = try await catalog.store.items(CatalogItemQuery(kind: .live)).items
            let id = Dictionary(uniqueKeysWithValues: items.map { ($0.name, $0.id) })
            for name in ["Alpha", "Bravo", "Charlie", "Delta"] {
                try await catalog.store.setFavourite(itemID: try #require(id[name]), true)
            }

            // Listed first in the given order; the rest follow in their previous order.
            try await catalog.store.setFavouriteOrder(itemIDs: [try #require(id["Charlie"]), try #require(id["Alpha"])])
            #expect(try await Self.favourites(catalog) == ["Charlie", "Alpha", "Bravo", "Delta"])

            // The provider reorders its playlist, renames Bravo, changes every URL and drops Delta.
            try Data(Self.playlist([("b", "Bravo HD"), ("e", "Echo"), ("a", "Alpha"), ("c", "Charlie")]).utf8)
                .write(to: URL(fileURLWithPath: path))
            try await withImporter(catalog) { _ = try await $0.refresh(sourceID: source.id) }
            #expect(try await Self.favourites(catalog) == ["Charlie", "Alpha", "Bravo HD"])
            #expect(
                try await catalog.store.item(id: try #require(id["Charlie"]))?.isFavourite == true,
                "row ids follow identities")

            // Delta comes back: still a favourite, in its old place.
            try Data(Self.playlist([("a", "Alpha"), ("b", "Bravo"), ("c", "Charlie"), ("d", "Delta")]).utf8).write(
                to: URL(fileURLWithPath: path))
            try await withImporter(catalog) { _ = try await $0.refresh(sourceID: source.id) }
            #expect(try await Self.favourites(catalog) == ["Charlie", "Alpha", "Bravo", "Delta"])

            // Removing the source and adding it again brings the favourites back in the same order.
            try await catalog.store.removeSource(id: source.id)
            #expect(try await Self.favourites(catalog).isEmpty)
            let again = try await catalog.store.addSource(CatalogSourceDraft(kind: .m3u, location: path))
            try await withImporter(catalog) { _ = try await $0.refresh(sourceID: again.id) }
            #expect(try await Self.favourites(catalog) == ["Charlie", "Alpha", "Bravo", "Delta"])
        }
    }

    @Test(
        "Reordering refuses unknown ids and channels that are not favourites, and changes nothing then",
        arguments: StorageEngine.underTest)
    func reorderRefusesBadIDs(engine: StorageEngine) async throws {
        try await TemporaryCatalog.with(engine) { catalog in
            let path = try catalog.write(
                Self.playlist([("a", "Alpha"), ("b", "Bravo"), ("c", "Charlie")]), to: "list.m3u")
            let source = try await catalog.store.addSource(CatalogSourceDraft(kind: .m3u, location: path))
            try await withImporter(catalog) { _ = try await $0.refresh(sourceID: source.id) }
            let items = try await catalog.store.items(CatalogItemQuery(kind: .live)).items
            try await catalog.store.setFavourite(itemID: items[0].id, true)
            try await catalog.store.setFavourite(itemID: items[1].id, true)

            let unknown = await #expect(throws: CatalogError.self) {
                try await catalog.store.setFavouriteOrder(itemIDs: [items[1].id, 999_999])
            }
            #expect(unknown?.isNotFound == true)
            let notFavourite = await #expect(throws: CatalogError.self) {
                try await catalog.store.setFavouriteOrder(itemIDs: [items[1].id, items[2].id])
            }
            #expect(notFavourite?.isUnsupported == true)
            #expect(notFavourite?.description.contains("not a favourite") == true)
            #expect(try await Self.favourites(catalog) == ["Alpha", "Bravo"], "a refused reorder changes nothing")

            try await catalog.store.setFavouriteOrder(itemIDs: [items[1].id])
            #expect(try await Self.favourites(catalog) == ["Bravo", "Alpha"])
        }
    }
}
