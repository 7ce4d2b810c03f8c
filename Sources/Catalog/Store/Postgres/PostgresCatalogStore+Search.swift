import Foundation
import Logging
import PostgresNIO

/// What bm25 needs besides the matching rows, cached per state of the catalogue: every search of
/// a library that did not change since reads them once.
struct SearchStatistics: Sendable {
    /// The sources and their generations when read: any import or removal changes it.
    var version = ""
    var rows: Int64 = 0
    var words: Int64 = 0
    /// Rows matching each term alone (its `tsquery`), for its inverse document frequency.
    var hits: [String: Int64] = [:]
}

/// What ranking a match needs: far less than the whole item.
struct SearchCandidate: Sendable {
    var id: Int64
    var sourceID: Int64
    var position: Int64
    var name: String
    var group: String?
    var length: Int64
}

/// Search: PostgreSQL full text over ``CatalogSearchTokenizer``'s words, answering what FTS5 answers
/// in ``SQLiteCatalogStore/items(_:)``: the same matches, and the same order. Up to
/// ``SQLiteCatalogStore/rankedSearchLimit`` matches are ranked by FTS5's bm25 (k1 = 1.2, b = 0.75,
/// names weighing 10 and groups 1), computed here from the same statistics FTS5 keeps (rows,
/// words, rows per term); more are listed name matches first, each tier in row id order.
extension PostgresCatalogStore {
    func searchItems(_ query: CatalogItemQuery, search: String, offset: Int, limit: Int) async throws -> CatalogPage<
        CatalogItem
    > {
        guard let match = CatalogSearchTokenizer.query(search),
            let nameMatch = CatalogSearchTokenizer.query(search, weights: "A")
        else {
            // Nothing searchable (only punctuation): no match rather than everything.
            return CatalogPage(items: [], total: 0, offset: offset, limit: limit)
        }
        let terms = FTSQuery.typedWords(search).compactMap { CatalogSearchTokenizer.query($0) }
        let baseFilter = ItemFilter(query)
        let logger = logger
        let from =
            query.favouritesOnly
            ? "catalogItem i JOIN catalogFavourite f ON f.kind = i.kind AND f.identity = i.identity" : "catalogItem i"
        // One statement, one pass over the matches: their count, and either all of them (few enough
        // to rank) or the requested page of a broad search (name matches first, then group-only
        // matches, each in row id order). Counting, then listing, then fetching scanned the matches
        // of a short prefix up to four times. Only what ranking needs comes back here; the whole
        // items of the one page follow by id (decoding three hundred whole items to keep fifty
        // was most of a search's time).
        let (total, candidates) = try await database.read { connection in
            var matches = baseFilter
            matches.conditions.append("i.searchVector @@ $\(matches.bind(match))::TSQUERY")
            var filter = matches
            let nameIndex = filter.bind(nameMatch)
            let limitIndex = filter.bind(Int64(limit))
            let offsetIndex = filter.bind(Int64(offset))
            let ranked = SQLiteCatalogStore.rankedSearchLimit
            let rows = try await connection.query(
                PostgresQuery(
                    unsafeSQL: """
                        WITH m AS MATERIALIZED (
                            SELECT i.id, i.searchVector @@ $\(nameIndex)::TSQUERY AS named
                            FROM \(from)\(filter.whereClause)
                        ),
                        total AS (SELECT count(*) AS n FROM m),
                        page AS (
                            SELECT id, named FROM m ORDER BY NOT named, id
                            LIMIT CASE WHEN (SELECT n FROM total) <= \(ranked) THEN NULL ELSE $\(limitIndex)::BIGINT END
                            OFFSET CASE WHEN (SELECT n FROM total) <= \(ranked) THEN 0 ELSE $\(offsetIndex)::BIGINT END
                        )
                        SELECT i.id, i.sourceID, i.position, i.name, i.groupName, i.searchLength,
                            (SELECT n FROM total)
                        FROM page p JOIN catalogItem i ON i.id = p.id
                        ORDER BY NOT p.named, p.id
                        """, binds: filter.binds), logger: logger
            ).collect()
            let candidates = try rows.map { row in
                let (id, sourceID, position, name, group, length, _) = try row.decode(
                    (Int64, Int64, Int64, String, String?, Int64?, Int64).self)
                return SearchCandidate(
                    id: id, sourceID: sourceID, position: position, name: name, group: group, length: length ?? 0)
            }
            if let first = rows.first {
                return (try Array(first).last?.decode(Int64.self) ?? 0, candidates)
            }
            // No row: no match at all, or a page past the end of a broad search.
            let total =
                try await connection.values(
                    PostgresQuery(
                        unsafeSQL: "SELECT count(*) FROM \(from)\(matches.whereClause)", binds: matches.binds),
                    as: Int64.self, logger: logger
                ).first ?? 0
            return (total, candidates)
        }
        guard !candidates.isEmpty else {
            return CatalogPage(items: [], total: Int(total), offset: offset, limit: limit)
        }
        guard total <= SQLiteCatalogStore.rankedSearchLimit else {
            return CatalogPage(
                items: try await items(ids: candidates.map(\.id)), total: Int(total), offset: offset, limit: limit)
        }
        let statistics = try await self.statistics(terms: terms)
        let idf = terms.map { term -> Double in
            let hits = Double(statistics.hits[term] ?? 0)
            let value = log((Double(statistics.rows) - hits + 0.5) / (hits + 0.5))
            return value <= 0 ? 1e-6 : value
        }
        let averageLength = statistics.rows > 0 ? Double(statistics.words) / Double(statistics.rows) : 1
        let typed = FTSQuery.typedWords(search).map(CatalogSearchTokenizer.words).filter { !$0.isEmpty }
        var ranked: [(candidate: SearchCandidate, score: Double)] = []
        for candidate in candidates {
            let nameWords = CatalogSearchTokenizer.words(candidate.name)
            let groupWords = candidate.group.map(CatalogSearchTokenizer.words) ?? []
            var score = 0.0
            for (index, term) in typed.enumerated() where index < idf.count {
                let frequency =
                    10.0 * Double(Self.occurrences(of: term, in: nameWords))
                    + Double(Self.occurrences(of: term, in: groupWords))
                score +=
                    idf[index]
                    * ((frequency * (1.2 + 1.0))
                        / (frequency + 1.2 * (1 - 0.75 + 0.75 * Double(candidate.length) / averageLength)))
            }
            ranked.append((candidate, score))
        }
        ranked.sort { left, right in
            if left.score != right.score { return left.score > right.score }
            if left.candidate.sourceID != right.candidate.sourceID {
                return left.candidate.sourceID < right.candidate.sourceID
            }
            return left.candidate.position < right.candidate.position
        }
        let page = ranked.dropFirst(offset).prefix(limit).map(\.candidate.id)
        return CatalogPage(items: try await items(ids: Array(page)), total: Int(total), offset: offset, limit: limit)
    }

    /// The whole items of `ids`, in that order (one statement).
    private func items(ids: [Int64]) async throws -> [CatalogItem] {
        guard !ids.isEmpty else { return [] }
        let logger = logger
        let rows = try await database.read { connection in
            try await connection.query(
                """
                SELECT \(unescaped: Self.itemColumns)
                FROM catalogItem i LEFT JOIN streamCheck c ON c.itemID = i.id WHERE i.id = ANY(\(ids))
                """, logger: logger
            ).collect()
        }
        var byID: [Int64: CatalogItem] = [:]
        for row in rows {
            let item = try Self.item(from: row)
            byID[item.id] = item
        }
        // An item removed between the two statements is left out.
        return ids.compactMap { byID[$0] }
    }

    /// How often `term` (words, the last one a prefix) occurs in `words`, as FTS5 counts phrase hits.
    static func occurrences(of term: [String], in words: [String]) -> Int {
        guard let last = term.last, words.count >= term.count else { return 0 }
        var count = 0
        for start in 0...(words.count - term.count) {
            var matches = true
            for offset in 0..<(term.count - 1) where words[start + offset] != term[offset] {
                matches = false
                break
            }
            if matches && words[start + term.count - 1].hasPrefix(last) { count += 1 }
        }
        return count
    }

    /// The catalogue's rows and words, and the rows matching each of `terms`: from the cache while
    /// no source was imported, added or removed since.
    private func statistics(terms: [String]) async throws -> SearchStatistics {
        let logger = logger
        let cached = searchStatistics.withLock { $0 }
        let (version, fresh) = try await database.read { connection in
            let version =
                try await connection.values(
                    "SELECT string_agg(id || ':' || generation, ',' ORDER BY id) FROM catalogSource", as: String?.self,
                    logger: logger
                ).first ?? nil
            var statistics = cached
            if statistics.version != version ?? "" {
                statistics = SearchStatistics(version: version ?? "")
                let (rows, words) =
                    try await connection.rows(
                        "SELECT count(*), COALESCE(sum(searchLength), 0)::BIGINT FROM catalogItem", logger: logger
                    ).map { try $0.decode((Int64, Int64).self) }.first ?? (Int64(0), Int64(0))
                statistics.rows = rows
                statistics.words = words
            }
            for term in terms where statistics.hits[term] == nil {
                statistics.hits[term] =
                    try await connection.values(
                        "SELECT count(*) FROM catalogItem WHERE searchVector @@ \(term)::TSQUERY", as: Int64.self,
                        logger: logger
                    ).first ?? 0
            }
            return (version ?? "", statistics)
        }
        searchStatistics.withLock { current in
            // Bounded: a long session of different searches must not grow it without end.
            if fresh.hits.count > 10_000 {
                current = SearchStatistics(version: version, rows: fresh.rows, words: fresh.words)
            } else {
                current = fresh
            }
        }
        return fresh
    }
}
