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

    /// Runs `body` with a playlist whose guide is the fixture guide, named by the user (a playlist
    /// may not name a local file), imported with its guide, on `engine`.
    func withCatalog(
        _ engine: StorageEngine, guide: String = Fixtures.path("guide.xml"),
        _ body: (TemporaryCatalog, CatalogSource, [CatalogItem]) async throws -> Void
    ) async throws {
        try await TemporaryCatalog.with(engine) { catalog in
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
                let counts = try await importer.refreshGuide(
                    sourceID: source.id, now: six, retention: 86_400 * 365 * 100)
                #expect(counts == GuideImportCounts(channels: 3, programmes: 6, skipped: 0))
            }
            let items = try await catalog.store.items(CatalogItemQuery(kind: .live)).items
            try await body(catalog, source, items)
        }
    }

    @Test(
        "Now and next match channels by tvg-id (any case), then by normalized name", arguments: StorageEngine.underTest)
    func nowNextMatching(engine: StorageEngine) async throws {
        try await withCatalog(engine) { catalog, _, items in
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
    }

    @Test(
        "In a gap of the guide there is nothing on now, and the next programme is known",
        arguments: StorageEngine.underTest)
    func nowNextGap(engine: StorageEngine) async throws {
        try await withCatalog(engine) { catalog, _, items in
            let result = try await catalog.store.nowNext(itemIDs: [items[0].id], at: six + 2 * 3600 + 60)
            #expect(result.first?.now == nil)
            #expect(result.first?.next?.title == "After A Gap")
            let before = try await catalog.store.nowNext(itemIDs: [items[0].id], at: six - 3600)
            #expect(before.first?.now == nil)
            #expect(before.first?.next?.title == "Breakfast")
        }
    }

    @Test("A manual mapping wins and survives a refresh of the playlist", arguments: StorageEngine.underTest)
    func manualMapping(engine: StorageEngine) async throws {
        try await withCatalog(engine) { catalog, source, items in
            try await catalog.store.setGuideMapping(itemID: items[2].id, epgID: "other")
            try await withImporter(catalog) { _ = try await $0.refresh(sourceID: source.id) }
            let result = try await catalog.store.nowNext(itemIDs: [items[2].id], at: six + 60)
            #expect(result.first?.now?.title == "Long Show")
            try await catalog.store.setGuideMapping(itemID: items[2].id, epgID: nil)
            #expect(try await catalog.store.nowNext(itemIDs: [items[2].id], at: six + 60).isEmpty)
        }
    }

    @Test(
        "A channel without a tvg-id finds its guide channel by name on its own; a manual choice wins; refreshes keep both",
        arguments: StorageEngine.underTest)
    func automaticMatchByName(engine: StorageEngine) async throws {
        try await TemporaryCatalog.with(engine) { catalog in
            let guide = try catalog.write(
                """
                <?xml version="1.0" encoding="UTF-8"?>
                <tv>
                  <channel id="BBCOne.uk"><display-name>BBC One</display-name></channel>
                  <channel id="Channel4.uk"><display-name>Channel 4</display-name></channel>
                  <channel id="Channel4Plus1.uk"><display-name>Channel 4 +1</display-name></channel>
                  <programme channel="BBCOne.uk" start="20240305060000 +0000" stop="20240305070000 +0000">
                    <title>Breakfast</title></programme>
                  <programme channel="Channel4.uk" start="20240305060000 +0000" stop="20240305070000 +0000">
                    <title>Countdown</title></programme>
                  <programme channel="Channel4Plus1.uk" start="20240305060000 +0000" stop="20240305070000 +0000">
                    <title>Countdown an hour later</title></programme>
                </tv>
                """, to: "names.xml")
            // No tvg-id and no exact name: only the matcher can find these.
            let path = try catalog.write(
                """
                #EXTM3U
                #EXTINF:-1 group-title="UK | General",UK: BBC One FHD
                http://example.com/1
                #EXTINF:-1,Channel 4 +1 HD
                http://example.com/2
                #EXTINF:-1,Mystery Channel
                http://example.com/3
                """, to: "names.m3u")
            let source = try await catalog.store.addSource(
                CatalogSourceDraft(kind: .m3u, location: path, epgURLs: [guide]))
            try await withImporter(catalog) { importer in
                _ = try await importer.refresh(sourceID: source.id)
                _ = try await importer.refreshGuide(sourceID: source.id, now: six, retention: 86_400 * 365 * 100)
            }
            let items = try await catalog.store.items(CatalogItemQuery(kind: .live)).items
            func now(_ item: CatalogItem) async throws -> String? {
                try await catalog.store.nowNext(itemIDs: [item.id], at: six + 60).first?.now?.title
            }
            #expect(try await now(items[0]) == "Breakfast")
            #expect(try await now(items[1]) == "Countdown an hour later", "a +1 channel is not its +0")
            #expect(try await now(items[2]) == nil, "a name like no guide channel gets no guide")
            let automatic = try #require(try await catalog.store.automaticGuideMatch(itemID: items[0].id))
            #expect(automatic.epgID == "BBCOne.uk" && automatic.score >= GuideMatcher.automaticScore)

            // The user's choice wins and survives a refresh; forgetting it brings the match back.
            try await catalog.store.setGuideMapping(itemID: items[0].id, epgID: "Channel4.uk")
            try await withImporter(catalog) { _ = try await $0.refresh(sourceID: source.id) }
            let refreshed = try await catalog.store.items(CatalogItemQuery(kind: .live)).items
            #expect(refreshed.map(\.id) == items.map(\.id))
            #expect(try await now(items[0]) == "Countdown")
            #expect(try await now(items[1]) == "Countdown an hour later", "the match survives the refresh")
            try await catalog.store.setGuideMapping(itemID: items[0].id, epgID: nil)
            try await withImporter(catalog) { _ = try await $0.matchGuide() }
            #expect(try await now(items[0]) == "Breakfast")

            // "No guide" wins over the name, the match and a refresh.
            try await catalog.store.setGuideMapping(itemID: items[0].id, epgID: "")
            try await withImporter(catalog) { _ = try await $0.refresh(sourceID: source.id) }
            #expect(try await now(items[0]) == nil)
            #expect(try await catalog.store.automaticGuideMatch(itemID: items[0].id) == nil)

            // A refused match goes at once, and the next import does not choose it again.
            try await catalog.store.refuseGuideMatch(itemID: items[1].id, epgID: "channel4plus1.UK")
            #expect(try await now(items[1]) == nil)
            #expect(try await catalog.store.refusedGuideMatches(itemID: items[1].id) == ["channel4plus1.uk"])
            try await withImporter(catalog) { _ = try await $0.refresh(sourceID: source.id) }
            #expect(try await now(items[1]) == nil, "a refused match stays refused, and the +0 is no match for a +1")
        }
    }

    @Test(
        "The grid lists programmes overlapping a window, including one that started before it",
        arguments: StorageEngine.underTest)
    func grid(engine: StorageEngine) async throws {
        try await withCatalog(engine) { catalog, _, items in
            try await catalog.store.setGuideMapping(itemID: items[2].id, epgID: "other")
            let grid = try await catalog.store.guide(
                itemIDs: items.map(\.id), from: six + 3600 + 1800, to: six + 3 * 3600 + 1)
            #expect(grid[items[0].id]?.map(\.title) == ["Morning Live", "After A Gap"])
            #expect(grid[items[1].id]?.map(\.title) == ["Télématin", "Journal"])
            #expect(grid[items[2].id]?.map(\.title) == ["Long Show"])
        }
    }

    @Test(
        "Pruning removes programmes that ended, and old programmes are skipped on import",
        arguments: StorageEngine.underTest)
    func pruning(engine: StorageEngine) async throws {
        try await withCatalog(engine) { catalog, source, items in
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
    }

    @Test(
        "A channel of the item's own source wins; otherwise the guide channel stored first",
        arguments: StorageEngine.underTest)
    func matchingPrefersOwnSourceThenOldest(engine: StorageEngine) async throws {
        try await withCatalog(engine) { catalog, source, items in
            let other = try await catalog.store.addSource(
                CatalogSourceDraft(kind: .xmltv, location: catalog.directory.appendingPathComponent("other.xml").path))
            _ = try await catalog.store.replaceGuide(ofSource: other.id) { sink in
                try sink.addChannel(epgID: "BBC1.UK", name: "BBC One", icon: nil)
                try sink.addProgramme(
                    GuideProgramme(id: 0, epgID: "BBC1.UK", start: six, stop: six + 3600, title: "Elsewhere"))
            }
            func nowTitle(_ itemID: Int64) async throws -> String? {
                try await catalog.store.nowNext(itemIDs: [itemID], at: six + 60).first?.now?.title
            }
            #expect(try await nowTitle(items[0].id) == "Breakfast")
            let path = try catalog.write(
                "#EXTM3U\n#EXTINF:-1 tvg-id=\"Bbc1.Uk\",Copy\nhttp://example.com/c\n", to: "c.m3u")
            let third = try await catalog.store.addSource(CatalogSourceDraft(kind: .m3u, location: path))
            try await withImporter(catalog) { _ = try await $0.refresh(sourceID: third.id) }
            let copy = try #require(
                try await catalog.store.items(CatalogItemQuery(kind: .live, sourceID: third.id)).items.first)
            #expect(try await nowTitle(copy.id) == "Breakfast")
            // Re-imported, the first source's channels are stored after the other guide's.
            try await withImporter(catalog) { importer in
                _ = try await importer.refreshGuide(sourceID: source.id, now: six, retention: 86_400 * 365 * 100)
            }
            #expect(try await nowTitle(copy.id) == "Elsewhere")
            #expect(try await nowTitle(items[0].id) == "Breakfast")
        }
    }

    @Test(
        "A guide that fails midway, adds nothing or names no source leaves the previous guide whole",
        arguments: StorageEngine.underTest)
    func failedImportKeepsGuide(engine: StorageEngine) async throws {
        try await withCatalog(engine) { catalog, source, items in
            let ids = items.map(\.id)
            let before = try await catalog.store.guide(itemIDs: ids, from: six - 86_400, to: six + 86_400)
            struct Broken: Error {}
            // Several batches reach the database before the failure.
            await #expect(throws: Broken.self) {
                try await catalog.store.replaceGuide(ofSource: source.id) { sink in
                    try sink.addChannel(epgID: "bbc1.uk", name: "Replaced", icon: nil)
                    for minute in 0..<Int64(20_000) {
                        try sink.addProgramme(
                            GuideProgramme(
                                id: 0, epgID: "bbc1.uk", start: six + minute * 60, stop: six + minute * 60 + 60,
                                title: "Filler", description: String(repeating: "x", count: 300)))
                    }
                    throw Broken()
                }
            }
            await #expect(throws: CatalogError.emptyImport) {
                try await catalog.store.replaceGuide(ofSource: source.id) { _ in }
            }
            await #expect(throws: CatalogError.sourceNotFound(999_999)) {
                try await catalog.store.replaceGuide(ofSource: 999_999) { sink in
                    try sink.addChannel(epgID: "x", name: nil, icon: nil)
                }
            }
            #expect(try await catalog.store.guide(itemIDs: ids, from: six - 86_400, to: six + 86_400) == before)
            #expect(try await catalog.integer("SELECT count(*) FROM guideProgramme") == 6)
            #expect(try await catalog.integer("SELECT count(*) FROM guideChannel") == 3)
        }
    }

    @Test(
        """
        A guide of many batches arrives whole and in order: programmes starting together keep the guide's order, \
        text keeps tabs, newlines and backslashes, an id keeps its first spelling
        """, arguments: StorageEngine.underTest)
    func largeGuideInOrder(engine: StorageEngine) async throws {
        try await withCatalog(engine) { catalog, source, items in
            let text = String(repeating: "é\t\\\n\r ", count: 40)
            let counts = try await catalog.store.replaceGuide(ofSource: source.id) { sink in
                try sink.addChannel(epgID: "BBC1.uk", name: nil, icon: nil)
                try sink.addChannel(epgID: "bbc1.UK", name: "BBC One", icon: "http://icon/bbc1.png")
                for index in 0..<30_000 {
                    // Two programmes start each minute.
                    let start = six + Int64(index / 2) * 60
                    try sink.addProgramme(
                        GuideProgramme(
                            id: 0, epgID: "bbc1.uk", start: start, stop: start + 60, title: "P\(index)",
                            subtitle: index == 0 ? text : nil, description: text, season: index, episode: -index))
                }
                // A channel the guide never declares, and a programme without a length.
                try sink.addProgramme(
                    GuideProgramme(id: 0, epgID: "undeclared", start: six, stop: six + 60, title: "O"))
                try sink.addProgramme(GuideProgramme(id: 0, epgID: "bbc1.uk", start: six, stop: six, title: "Z"))
            }
            #expect(counts == GuideImportCounts(channels: 2, programmes: 30_001, skipped: 1))
            let grid = try await catalog.store.guide(itemIDs: [items[0].id], from: six, to: six + 15_000 * 60)
            let programmes = try #require(grid[items[0].id])
            #expect(programmes.map(\.title) == (0..<30_000).map { "P\($0)" })
            #expect(programmes.allSatisfy { $0.description == text && $0.epgID == "BBC1.uk" })
            #expect(programmes.first?.subtitle == text)
            #expect(programmes.last?.season == 29_999)
            #expect(programmes.last?.episode == -29_999)
            let first = try #require(programmes.first)
            #expect(try await catalog.store.programme(id: first.id) == first)
            let nowNext = try await catalog.store.nowNext(itemIDs: [items[0].id], at: six + 30)
            #expect(nowNext.first?.now?.title == "P0")
            #expect(nowNext.first?.next?.title == "P1")
            #expect(try await catalog.integer("SELECT count(*) FROM guideChannel") == 2)
        }
    }

    @Test(
        "A gzipped guide is read over HTTP on the fly, and a broken one keeps the previous guide",
        arguments: StorageEngine.underTest)
    func gzipOverHTTP(engine: StorageEngine) async throws {
        let origin = try await TestOrigin.start()
        defer { Task { try? await origin.shutdown() } }
        let epg = Fixtures.sharedData.appendingPathComponent("iptv-org-epg/sites/epg.iptvx.one/__data__")
        origin.serveDirectory(epg.path)
        try await TemporaryCatalog.with(engine) { catalog in
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
}

/// Channels and programmes of a guide file, counted by the parser alone.
struct XMLTVCount {
    var programmes = 0
    init(path: String) {
        let guide = XMLTVParser.parse(FileManager.default.contents(atPath: path) ?? Data())
        programmes = guide.programmes.count
    }
}
