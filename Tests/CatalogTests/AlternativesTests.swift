import Foundation
import Testing
import TunerTesting

@testable import Catalog

@Suite("A channel's alternatives")
struct AlternativesTests {
    /// Three playlists; the first's BBC One has alternatives by tvg-id (any case) and by name.
    static let playlists = [
        """
        #EXTM3U
        #EXTINF:-1 tvg-id="bbc1.uk",UK: BBC One HD
        http://a.example/bbc1
        #EXTINF:-1,Sky News
        http://a.example/sky
        """,
        """
        #EXTM3U
        #EXTINF:-1 tvg-id="BBC1.UK",BBC 1 Backup
        http://b.example/bbc1
        #EXTINF:-1,BBC ONE FHD
        http://b.example/bbc1-fhd
        #EXTINF:-1,BBC One Extra
        http://b.example/extra
        """,
        """
        #EXTM3U
        #EXTINF:-1 tvg-id="bbc1.uk",BBC One
        http://c.example/bbc1
        #EXTINF:-1,Sky News HD
        http://c.example/sky
        """,
    ]

    /// Runs `body` with the three playlists imported, and their live channels by name.
    func withChannels(
        _ engine: StorageEngine, _ body: (TemporaryCatalog, [String: Int64]) async throws -> Void
    ) async throws {
        try await TemporaryCatalog.with(engine) { catalog in
            try await withImporter(catalog) { importer in
                for (index, playlist) in Self.playlists.enumerated() {
                    let path = try catalog.write(playlist, to: "list\(index).m3u")
                    let source = try await catalog.store.addSource(CatalogSourceDraft(kind: .m3u, location: path))
                    _ = try await importer.refresh(sourceID: source.id)
                }
            }
            let items = try await catalog.store.items(CatalogItemQuery(kind: .live)).items
            try await body(catalog, Dictionary(uniqueKeysWithValues: items.map { ($0.name, $0.id) }))
        }
    }

    @Test(
        "Alternatives come from other sources: same tvg-id (any case) first, then the same name without prefix or quality",
        arguments: StorageEngine.underTest)
    func automatic(engine: StorageEngine) async throws {
        try await withChannels(engine) { catalog, id in
            let bbc = try #require(id["UK: BBC One HD"])
            let found = try await catalog.store.alternatives(of: bbc)
            #expect(found.map(\.name) == ["BBC 1 Backup", "BBC One", "BBC ONE FHD"])
            #expect(try await catalog.store.alternatives(of: bbc, limit: 2).map(\.name) == ["BBC 1 Backup", "BBC One"])
            let sky = try #require(id["Sky News"])
            #expect(try await catalog.store.alternatives(of: sky).map(\.name) == ["Sky News HD"])
            #expect(try await catalog.store.chosenAlternatives(of: bbc).isEmpty)
            await #expect(throws: CatalogError.itemNotFound(999_999)) {
                try await catalog.store.alternatives(of: 999_999)
            }
        }
    }

    @Test(
        "The user's alternatives replace the automatic ones in the user's order; a bad id changes nothing",
        arguments: StorageEngine.underTest)
    func chosen(engine: StorageEngine) async throws {
        try await withChannels(engine) { catalog, id in
            let bbc = try #require(id["UK: BBC One HD"])
            let fhd = try #require(id["BBC ONE FHD"])
            let sky = try #require(id["Sky News HD"])
            try await catalog.store.setAlternatives(of: bbc, to: [sky, fhd, sky])
            #expect(try await catalog.store.chosenAlternatives(of: bbc).map(\.id) == [sky, fhd])
            #expect(try await catalog.store.alternatives(of: bbc).map(\.id) == [sky, fhd])
            #expect(try await catalog.store.alternatives(of: bbc, limit: 1).map(\.id) == [sky])

            await #expect(throws: CatalogError.itemNotFound(bbc)) {
                try await catalog.store.setAlternatives(of: bbc, to: [fhd, bbc])
            }
            await #expect(throws: CatalogError.itemNotFound(999_999)) {
                try await catalog.store.setAlternatives(of: bbc, to: [999_999])
            }
            await #expect(throws: CatalogError.itemNotFound(999_999)) {
                try await catalog.store.setAlternatives(of: 999_999, to: [fhd])
            }
            #expect(try await catalog.store.chosenAlternatives(of: bbc).map(\.id) == [sky, fhd])

            try await catalog.store.setAlternatives(of: bbc, to: [])
            #expect(try await catalog.store.chosenAlternatives(of: bbc).isEmpty)
            #expect(
                try await catalog.store.alternatives(of: bbc).map(\.name) == ["BBC 1 Backup", "BBC One", "BBC ONE FHD"])
        }
    }
}
