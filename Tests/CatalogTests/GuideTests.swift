import Foundation
import GRDB
import MediaFormats
import Testing
import TunerTesting

@testable import Catalog

@Suite("Guide")
struct GuideTests {
    // 2024-03-05 06:00:00 UTC
    let six: Int64 = 1_709_618_400

    /// A playlist whose guide is the fixture guide, named by the user (a playlist may not name a
    /// local file), imported with its guide.
    func makeCatalog(guide: String = Fixtures.path("guide.xml")) async throws -> (
        TemporaryCatalog, CatalogSource, [CatalogItem]
    ) {
        let catalog = try TemporaryCatalog()
        let path = try catalog.write(
            """
            #EXTM3U
            #EXTINF:-1 tvg-id="bbc1.uk",BBC One HD
            http://example.com/1
            #EXTINF:-1,Télé Matin
            http://example.com/2
            #EXTINF:-1,Mystery Channel
            http://example.com/3
            """, to: "guide.m3u")
        let source = try await catalog.store.addSource(
            CatalogSourceDraft(kind: .m3u, location: path, epgURLs: [guide]))
        try await withImporter(catalog) { importer in
            _ = try await importer.refresh(sourceID: source.id)
            let counts = try await importer.refreshGuide(sourceID: source.id, now: six, retention: 86_400 * 365 * 100)
            #expect(counts == GuideImportCounts(channels: 3, programmes: 6, skipped: 0))
        }
        let items = try await catalog.store.items(CatalogItemQuery(kind: .live)).items
        return (catalog, source, items)
    }

    @Test("Now and next match channels by tvg-id (any case), then by normalized name")
    func nowNextMatching() async throws {
        let (catalog, _, items) = try await makeCatalog()
        let at = six + 30 * 60
        let result = try await catalog.store.nowNext(itemIDs: items.map(\.id), at: at)
        #expect(result.count == 2)
        let bbc = try #require(result.first { $0.itemID == items[0].id })
        #expect(bbc.now?.title == "Breakfast")
        #expect(bbc.now?.description == "News and weather.")
        #expect(bbc.now?.season == 2)
        #expect(bbc.now?.episode == 5)
        #expect(bbc.next?.title == "Morning Live")
        #expect(bbc.next?.catchupID == "b2")
        // Télé Matin matches "Télé-Matin"; its first programme had no stop and ends when the next starts.
        let tele = try #require(result.first { $0.itemID == items[1].id })
        #expect(tele.now?.title == "Télématin")
        #expect(tele.now?.stop == six + 2 * 3600)
        #expect(tele.next?.title == "Journal")
        #expect(tele.next?.stop == six + 3 * 3600)
    }

    @Test("In a gap of the guide there is nothing on now, and the next programme is known")
    func nowNextGap() async throws {
        let (catalog, _, items) = try await makeCatalog()
        let result = try await catalog.store.nowNext(itemIDs: [items[0].id], at: six + 2 * 3600 + 60)
        #expect(result.first?.now == nil)
        #expect(result.first?.next?.title == "After A Gap")
        let before = try await catalog.store.nowNext(itemIDs: [items[0].id], at: six - 3600)
        #expect(before.first?.now == nil)
        #expect(before.first?.next?.title == "Breakfast")
    }

    @Test("A manual mapping wins and survives a refresh of the playlist")
    func manualMapping() async throws {
        let (catalog, source, items) = try await makeCatalog()
        try await catalog.store.setGuideMapping(itemID: items[2].id, epgID: "other")
        try await withImporter(catalog) { _ = try await $0.refresh(sourceID: source.id) }
        let result = try await catalog.store.nowNext(itemIDs: [items[2].id], at: six + 60)
        #expect(result.first?.now?.title == "Long Show")
        try await catalog.store.setGuideMapping(itemID: items[2].id, epgID: nil)
        #expect(try await catalog.store.nowNext(itemIDs: [items[2].id], at: six + 60).isEmpty)
    }

    @Test("The grid lists programmes overlapping a window, including one that started before it")
    func grid() async throws {
        let (catalog, _, items) = try await makeCatalog()
        try await catalog.store.setGuideMapping(itemID: items[2].id, epgID: "other")
        let grid = try await catalog.store.guide(
            itemIDs: items.map(\.id), from: six + 3600 + 1800, to: six + 3 * 3600 + 1)
        #expect(grid[items[0].id]?.map(\.title) == ["Morning Live", "After A Gap"])
        #expect(grid[items[1].id]?.map(\.title) == ["Télématin", "Journal"])
        #expect(grid[items[2].id]?.map(\.title) == ["Long Show"])
    }

    @Test("Pruning removes programmes that ended, and old programmes are skipped on import")
    func pruning() async throws {
        let (catalog, source, items) = try await makeCatalog()
        let removed = try await catalog.store.pruneGuide(endingBefore: six + 3 * 3600)
        #expect(removed == 3)
        let grid = try await catalog.store.guide(itemIDs: [items[0].id], from: six, to: six + 5 * 3600)
        #expect(grid[items[0].id]?.map(\.title) == ["After A Gap"])

        try await withImporter(catalog) { importer in
            let counts = try await importer.refreshGuide(sourceID: source.id, now: six + 3 * 3600, retention: 0)
            #expect(counts.programmes == 3)
            #expect(counts.skipped == 3)
        }
    }

    @Test("A gzipped guide is read over HTTP on the fly, and a broken one keeps the previous guide")
    func gzipOverHTTP() async throws {
        let origin = try await TestOrigin.start()
        defer { Task { try? await origin.shutdown() } }
        let epg = Fixtures.sharedData.appendingPathComponent("iptv-org-epg/sites/epg.iptvx.one/__data__")
        origin.serveDirectory(epg.path)
        let catalog = try TemporaryCatalog()
        let source = try await catalog.store.addSource(
            CatalogSourceDraft(kind: .xmltv, location: "\(origin.baseURL)/static/content.xml.gz"))
        let plain = XMLTVCount(path: epg.appendingPathComponent("content.xml").path)
        try await withImporter(catalog) { importer in
            let counts = try await importer.refreshGuide(sourceID: source.id, now: 0, retention: 0)
            #expect(counts.programmes + counts.skipped == plain.programmes)
            #expect(counts.programmes > 0)

            var broken = try #require(try await catalog.store.source(id: source.id))
            broken.location += "?reset=200"
            try await catalog.store.updateSource(broken)
            await #expect(throws: (any Error).self) {
                try await importer.refreshGuide(sourceID: source.id, now: 0, retention: 0)
            }
            let failed = try #require(try await catalog.store.source(id: source.id))
            #expect(failed.status == .failed)
        }
        // The previous guide is still there.
        let count = try await catalog.integer("SELECT count(*) FROM guideProgramme")
        #expect(count ?? 0 > 0)
    }
}

/// Channels and programmes of a guide file, counted by the parser alone.
struct XMLTVCount {
    var programmes = 0
    init(path: String) {
        let guide = XMLTVParser.parse(FileManager.default.contents(atPath: path) ?? Data())
        programmes = guide.programmes.count
    }
}
