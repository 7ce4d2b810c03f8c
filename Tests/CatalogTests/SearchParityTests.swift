import Foundation
import MediaFormats
import Testing
import TunerTesting

@testable import Catalog

/// PostgreSQL's search answers what SQLite's FTS5 answers: the same real playlists in both
/// engines, the same queries, the same totals and the same ids in the same order (bm25 ranking for
/// narrow searches, name matches before group matches for broad ones).
@Suite("Search parity: FTS5 and PostgreSQL full text")
struct SearchParityTests {
    /// Typed by hand: prefixes, accents either way, word order, punctuation, other scripts.
    static let handWritten = [
        "b", "bb", "bbc", "bbc n", "bbc news", "news bbc", "NEWS", "bbc one hd", "one bbc",
        "télé", "tele", "TÉLÉ", "télévision", "television", "españa", "espana", "españ", "canal+", "canal +",
        "c'est", "l'équipe", "equipe", "24/7", "24 7", "rtl-tv", "rtl tv", "tv rtl", "m6", "france 2", "2 france",
        "a", "z", "1", "9", "hd", "fhd", "4k", "ç", "ß", "straße", "strasse", "ü", "über", "uber", "öster",
        "москва", "россия", "росс", "первый", "日本", "テレビ", "العربية", "عرب", "नमस्ते", "ελλάδα", "ελλ",
        "türk", "turk", "polsat", "čt", "ct", "tv3", "tv 3", "news 24", "24 news", "sport", "sports", "sky sp",
        "al jazeera", "jazeera al", "cnn", "fox", "music", "kids", "radio", "live", "info", "-", "\"", "*", "...",
        "bbc*", "\"bbc\" OR", "NEAR(", "a b c", "the", "de", "la", "el", "x", "q", "hd hd", "ab", "abc",
    ]

    @Test(
        "About a hundred queries answer the same on SQLite and PostgreSQL",
        .enabled(if: TestPostgres.isAvailable, "needs a PostgreSQL server (TUNER_TEST_POSTGRES)"))
    func sameAnswers() async throws {
        let directory = Fixtures.sharedData.appendingPathComponent("iptv-org-iptv/streams")
        let files = try FileManager.default.contentsOfDirectory(atPath: directory.path).filter { $0.hasSuffix(".m3u") }
            .sorted()
        try #require(files.count > 300)
        try await TemporaryCatalog.with(.sqlite) { sqlite in
            try await TemporaryCatalog.with(.postgres) { postgres in
                for catalog in [sqlite, postgres] {
                    try await withImporter(catalog) { importer in
                        for file in files {
                            let path = directory.appendingPathComponent(file).path
                            let source = try await catalog.store.addSource(
                                CatalogSourceDraft(kind: .m3u, location: path))
                            _ = try? await importer.refresh(sourceID: source.id)
                        }
                    }
                }
                let queries = try await Self.queries(from: sqlite)
                #expect(queries.count >= 100)
                var compared = 0
                var ranked = 0
                var broad = 0
                for search in queries {
                    for query in [
                        CatalogItemQuery(search: search, limit: 50),
                        CatalogItemQuery(kind: .live, search: search, offset: 10, limit: 20),
                        CatalogItemQuery(sourceID: 3, search: search, limit: 20),
                    ] {
                        let expected = try await sqlite.store.items(query)
                        let answered = try await postgres.store.items(query)
                        #expect(answered.total == expected.total, "total of \(query)")
                        #expect(
                            answered.items.map(\.id) == expected.items.map(\.id),
                            "\(query): \(answered.items.map(\.name)) ≠ \(expected.items.map(\.name))")
                        compared += 1
                        if expected.total > SQLiteCatalogStore.rankedSearchLimit {
                            broad += 1
                        } else if expected.items.count > 1 {
                            ranked += 1
                        }
                    }
                }
                #expect(compared >= 300)
                // Both orders are exercised: bm25 over several matches, and the tiers of broad searches.
                #expect(ranked >= 50, "ranked answers: \(ranked)")
                #expect(broad >= 30, "broad answers: \(broad)")
            }
        }
    }

    /// The hand-written queries, and some made from the catalogue's own names: a word's first
    /// letters, two words in reverse order, a name as typed.
    static func queries(from catalog: TemporaryCatalog) async throws -> [String] {
        var queries = handWritten
        let sample = try await catalog.store.items(CatalogItemQuery(kind: .live, offset: 0, limit: 1000)).items
        for item in sample.enumerated().filter({ $0.offset % 50 == 7 }).map(\.element) {
            let words = FTSQuery.typedWords(item.name)
            if let first = words.first { queries.append(String(first.prefix(3))) }
            if words.count >= 2 { queries.append(words[1] + " " + String(words[0].prefix(2))) }
            queries.append(item.name)
        }
        return queries
    }
}
