import Foundation
import GRDB
import Logging
import TunerStorage

/// The embedded catalog store: SQLite through GRDB, in the data folder's ``TunerDatabase`` (one
/// `DatabasePool`, WAL, for the life of the process), so that listings and searches read a
/// consistent snapshot while an import writes.
public final class SQLiteCatalogStore: CatalogStore {
    let database: any DatabaseWriter
    let logger: Logger

    /// The catalog in `database`, which must have been opened with ``CatalogSchema``.
    public init(database: TunerDatabase, logger: Logger) {
        self.database = database.writer
        self.logger = logger
    }

    /// The kind and identity of an item (what favourites and guide choices are kept by); throws
    /// `itemNotFound`.
    static func key(_ db: Database, itemID: Int64) throws -> (String, String) {
        guard
            let row = try Row.fetchOne(
                db, sql: "SELECT kind, identity FROM catalogItem WHERE id = ?", arguments: [itemID])
        else { throw CatalogError.itemNotFound(itemID) }
        return (row["kind"], row["identity"])
    }

    /// Opens (creating if needed) a database at `path` holding the catalog alone: for tools and
    /// apps that embed the catalog without the rest of Tuner.
    public convenience init(path: String, logger: Logger) throws {
        self.init(database: try TunerDatabase(path: path, schemas: [CatalogSchema.self]), logger: logger)
    }

    // MARK: - Sources

    public func addSource(_ draft: CatalogSourceDraft) async throws -> CatalogSource {
        let epgURLs = try Self.encodeJSON(draft.epgURLs)
        return try await database.write { db in
            try db.execute(
                sql: """
                    INSERT INTO catalogSource (kind, name, location, xtreamServer, xtreamUsername, xtreamPassword,
                        epgURLs, refreshInterval)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?)
                    """,
                arguments: [
                    draft.kind.rawValue, draft.name, draft.location, draft.xtream?.server, draft.xtream?.username,
                    draft.xtream?.password, epgURLs, draft.refreshInterval,
                ]
            )
            let id = db.lastInsertedRowID
            guard let source = try Self.fetchSource(db, id: id) else { throw CatalogError.sourceNotFound(id) }
            return source
        }
    }

    public func sources() async throws -> [CatalogSource] {
        try await database.read { db in
            try Row.fetchAll(db, sql: "SELECT * FROM catalogSource ORDER BY id").map(Self.source(from:))
        }
    }

    public func source(id: Int64) async throws -> CatalogSource? {
        try await database.read { db in try Self.fetchSource(db, id: id) }
    }

    public func removeSource(id: Int64) async throws {
        try await database.write { db in
            try db.execute(sql: "DELETE FROM catalogSource WHERE id = ?", arguments: [id])
            if db.changesCount == 0 { throw CatalogError.sourceNotFound(id) }
            // The search index is not covered by the cascade.
            try Self.rebuildSearch(db)
        }
    }

    public func updateSource(_ source: CatalogSource) async throws {
        let epgURLs = try Self.encodeJSON(source.epgURLs)
        try await database.write { db in
            try db.execute(
                sql: """
                    UPDATE catalogSource SET name = ?, location = ?, xtreamServer = ?, xtreamUsername = ?,
                        xtreamPassword = ?,
                        epgURLs = ?, refreshInterval = ?, maxConnections = ? WHERE id = ?
                    """,
                arguments: [
                    source.name, source.location, source.xtream?.server, source.xtream?.username,
                    source.xtream?.password,
                    epgURLs, source.refreshInterval, source.maxConnections, source.id,
                ]
            )
            if db.changesCount == 0 { throw CatalogError.sourceNotFound(source.id) }
        }
    }

    /// Marks sources left `refreshing` by a process that stopped mid-refresh as failed, so the
    /// scheduler retries them; returns how many. Only the process that owns the data folder (the
    /// server, at start) calls this: another process may be refreshing right now.
    @discardableResult
    public func recoverInterruptedRefreshes() async throws -> Int {
        try await database.write { db in
            try db.execute(
                sql: "UPDATE catalogSource SET status = 'failed', lastError = ? WHERE status = 'refreshing'",
                arguments: ["the refresh was interrupted (Tuner stopped during it); it will be retried"])
            return db.changesCount
        }
    }

    public func setSourceStatus(id: Int64, status: CatalogSourceStatus, error: String?, refreshedAt: Date?) async throws
    {
        try await database.write { db in
            try db.execute(
                sql:
                    """
                    UPDATE catalogSource SET status = ?, lastError = ?, lastRefresh = COALESCE(?, lastRefresh) \
                    WHERE id = ?
                    """,
                arguments: [status.rawValue, error, refreshedAt?.timeIntervalSince1970, id]
            )
            if db.changesCount == 0 { throw CatalogError.sourceNotFound(id) }
        }
    }

    public func setProviderMaxConnections(sourceID: Int64, _ limit: Int?) async throws {
        try await database.write { db in
            try db.execute(
                sql: "UPDATE catalogSource SET providerMaxConnections = ? WHERE id = ?",
                arguments: [limit.flatMap { (1...1000).contains($0) ? $0 : nil }, sourceID])
        }
    }

    static func fetchSource(_ db: Database, id: Int64) throws -> CatalogSource? {
        try Row.fetchOne(db, sql: "SELECT * FROM catalogSource WHERE id = ?", arguments: [id]).map(source(from:))
    }

    static func source(from row: Row) throws -> CatalogSource {
        var xtream: XtreamCredentials?
        if let server: String = row["xtreamServer"], let username: String = row["xtreamUsername"],
            let password: String = row["xtreamPassword"]
        {
            xtream = XtreamCredentials(server: server, username: username, password: password)
        }
        let epgJSON: String = row["epgURLs"]
        let lastRefresh: Double? = row["lastRefresh"]
        return CatalogSource(
            id: row["id"], kind: CatalogSourceKind(rawValue: row["kind"]), name: row["name"], location: row["location"],
            xtream: xtream, epgURLs: try JSONDecoder().decode([String].self, from: Data(epgJSON.utf8)),
            refreshInterval: row["refreshInterval"], lastRefresh: lastRefresh.map(Date.init(timeIntervalSince1970:)),
            lastError: row["lastError"], status: CatalogSourceStatus(rawValue: row["status"]),
            maxConnections: row["maxConnections"], providerMaxConnections: row["providerMaxConnections"]
        )
    }

    // MARK: - Import

    public func replaceItems(
        ofSource sourceID: Int64,
        produce: @escaping @Sendable (any CatalogImportSink) throws -> Void
    ) async throws -> CatalogImportCounts {
        // One write transaction: WAL readers keep seeing the previous catalog until the commit,
        // and any error (a parse failure, an empty playlist, cancellation) rolls everything back.
        try await database.write { db in
            // With SQLite's default 2 MB page cache a big import spills dirty pages to the WAL
            // again and again mid-transaction; a larger cache for the import alone avoids that.
            try db.execute(sql: "PRAGMA cache_size = -\(Self.importCacheKiB)")
            defer { try? db.execute(sql: "PRAGMA cache_size = -2000") }
            let sink = try SQLiteImportSink(db: db, sourceID: sourceID)
            try produce(sink)
            guard sink.counts.total > 0 else { throw CatalogError.emptyImport }
            try sink.finish()
            return sink.counts
        }
    }

    /// The page cache of an import, in KiB.
    static let importCacheKiB = 65_536

    // MARK: - Items

    public func items(_ query: CatalogItemQuery) async throws -> CatalogPage<CatalogItem> {
        let limit = max(0, min(query.limit, 1000))
        let offset = max(0, query.offset)
        let matchExpression = query.search.flatMap(FTSQuery.prefixMatch(_:))
        return try await database.read { db in
            var conditions: [String] = []
            var arguments = StatementArguments()
            if let kind = query.kind {
                conditions.append("i.kind = ?")
                _ = arguments.append(contentsOf: [kind.rawValue])
            }
            if let sourceID = query.sourceID {
                conditions.append("i.sourceID = ?")
                _ = arguments.append(contentsOf: [sourceID])
            }
            if let group = query.group {
                conditions.append("i.groupID IN (SELECT id FROM catalogGroup WHERE name = ?)")
                _ = arguments.append(contentsOf: [group])
            }
            var from = "catalogItem i"
            var order = "i.kind, i.sourceID, i.position"
            if query.favouritesOnly {
                from = "catalogFavourite f JOIN catalogItem i ON i.kind = f.kind AND i.identity = f.identity"
                order = "f.position, i.sourceID"
            }
            if query.search != nil {
                guard let matchExpression else {
                    // Nothing searchable (only punctuation): no match rather than everything.
                    return CatalogPage(items: [], total: 0, offset: offset, limit: limit)
                }
                if let page = try Self.broadSearch(
                    db, matchExpression: matchExpression, conditions: conditions, arguments: arguments,
                    favouritesOnly: query.favouritesOnly, offset: offset, limit: limit)
                {
                    return page
                }
                from = "catalogSearch s CROSS JOIN catalogItem i ON i.id = s.rowid"
                if query.favouritesOnly {
                    from += " JOIN catalogFavourite f ON f.kind = i.kind AND f.identity = i.identity"
                }
                conditions.append("catalogSearch MATCH ?")
                _ = arguments.append(contentsOf: [matchExpression])
                // Names weigh more than groups: a search for "news" should list "BBC News" before
                // every channel of a group called "News".
                order = "bm25(catalogSearch, 10.0, 1.0), i.sourceID, i.position"
            }
            let whereClause = conditions.isEmpty ? "" : " WHERE " + conditions.joined(separator: " AND ")
            let total =
                try Int.fetchOne(db, sql: "SELECT count(*) FROM \(from)\(whereClause)", arguments: arguments) ?? 0
            var pageArguments = arguments
            _ = pageArguments.append(contentsOf: [limit, offset])
            let rows = try Row.fetchAll(
                db,
                sql: """
                    SELECT i.*,
                        EXISTS (SELECT 1 FROM catalogFavourite fav WHERE fav.kind = i.kind AND fav.identity =
                            i.identity) AS isFavourite,
                        \(Self.checkColumns)
                    FROM \(from)
                    LEFT JOIN streamCheck c ON c.itemID = i.id
                    \(whereClause)
                    ORDER BY \(order)
                    LIMIT ? OFFSET ?
                    """,
                arguments: pageArguments
            )
            return CatalogPage(items: try rows.map(Self.item(from:)), total: total, offset: offset, limit: limit)
        }
    }

    /// Above this many matches a search is not ranked by bm25: scoring every match costs
    /// milliseconds per ten thousand, and ranking "the" among nine thousand names means little.
    static let rankedSearchLimit = 300

    /// A search that matches more than ``rankedSearchLimit`` items: names that match come before
    /// items that match only by group, each in catalogue order (row ids follow the provider's
    /// order). Returns `nil` when the search is narrow enough to rank.
    static func broadSearch(
        _ db: Database, matchExpression: String, conditions: [String], arguments: StatementArguments,
        favouritesOnly: Bool, offset: Int, limit: Int
    ) throws -> CatalogPage<CatalogItem>? {
        let filtered = !conditions.isEmpty || favouritesOnly
        var from = "catalogSearch s CROSS JOIN catalogItem i ON i.id = s.rowid"
        if favouritesOnly { from += " JOIN catalogFavourite f ON f.kind = i.kind AND f.identity = i.identity" }
        let whereClause = (conditions.map { " AND " + $0 }).joined()
        var countArguments = StatementArguments([matchExpression])
        if filtered { _ = countArguments.append(contentsOf: arguments) }
        // Unfiltered, the count needs no row of catalogItem at all.
        let total =
            try Int.fetchOne(
                db,
                sql: filtered
                    ? "SELECT count(*) FROM \(from) WHERE catalogSearch MATCH ?\(whereClause)"
                    : "SELECT count(*) FROM catalogSearch WHERE catalogSearch MATCH ?",
                arguments: countArguments) ?? 0
        guard total > rankedSearchLimit else { return nil }
        let byName = "name : (\(matchExpression))"
        let byGroupOnly = "(\(matchExpression)) NOT name : (\(matchExpression))"
        // FTS5 yields matches in row id order, so each tier reads only as far as the page needs.
        func ids(_ expression: String, offset: Int, limit: Int) throws -> [Int64] {
            var tierArguments = StatementArguments([expression])
            if filtered { _ = tierArguments.append(contentsOf: arguments) }
            _ = tierArguments.append(contentsOf: [limit, offset])
            return try Int64.fetchAll(
                db,
                sql: filtered
                    ? """
                    SELECT s.rowid FROM \(from) WHERE catalogSearch MATCH ?\(whereClause) ORDER BY s.rowid LIMIT \
                    ? OFFSET ?
                    """
                    : "SELECT rowid FROM catalogSearch WHERE catalogSearch MATCH ? ORDER BY rowid LIMIT ? OFFSET ?",
                arguments: tierArguments)
        }
        var nameArguments = StatementArguments([byName])
        if filtered { _ = nameArguments.append(contentsOf: arguments) }
        let nameCount =
            try Int.fetchOne(
                db,
                sql: filtered
                    ? "SELECT count(*) FROM \(from) WHERE catalogSearch MATCH ?\(whereClause)"
                    : "SELECT count(*) FROM catalogSearch WHERE catalogSearch MATCH ?",
                arguments: nameArguments) ?? 0
        var pageIDs: [Int64] = []
        if offset < nameCount {
            pageIDs = try ids(byName, offset: offset, limit: limit)
        }
        if pageIDs.count < limit {
            pageIDs += try ids(byGroupOnly, offset: max(0, offset - nameCount), limit: limit - pageIDs.count)
        }
        guard !pageIDs.isEmpty else { return CatalogPage(items: [], total: total, offset: offset, limit: limit) }
        let order = Dictionary(pageIDs.enumerated().map { ($1, $0) }, uniquingKeysWith: { first, _ in first })
        let rows = try Row.fetchAll(
            db,
            sql: """
                SELECT i.*,
                    EXISTS (SELECT 1 FROM catalogFavourite fav WHERE fav.kind = i.kind AND fav.identity =
                        i.identity) AS isFavourite,
                    \(checkColumns)
                FROM catalogItem i LEFT JOIN streamCheck c ON c.itemID = i.id
                WHERE i.id IN (\(databaseQuestionMarks(count: pageIDs.count)))
                """,
            arguments: StatementArguments(pageIDs))
        let items = try rows.map(item(from:)).sorted { order[$0.id, default: 0] < order[$1.id, default: 0] }
        return CatalogPage(items: items, total: total, offset: offset, limit: limit)
    }

    public func item(id: Int64) async throws -> CatalogItem? {
        try await database.read { db in
            try Row.fetchOne(
                db,
                sql: """
                    SELECT i.*,
                        EXISTS (SELECT 1 FROM catalogFavourite fav WHERE fav.kind = i.kind AND fav.identity =
                            i.identity) AS isFavourite,
                        \(Self.checkColumns)
                    FROM catalogItem i LEFT JOIN streamCheck c ON c.itemID = i.id WHERE i.id = ?
                    """,
                arguments: [id]
            ).map(Self.item(from:))
        }
    }

    public func episodes(ofSeries seriesID: Int64) async throws -> [CatalogEpisode] {
        try await database.read { db in
            try Row.fetchAll(
                db, sql: "SELECT * FROM catalogEpisode WHERE seriesID = ? ORDER BY position", arguments: [seriesID]
            ).map { row in
                let headers: String? = row["headers"]
                return CatalogEpisode(
                    id: row["id"], seriesID: row["seriesID"], season: row["season"], episode: row["episode"],
                    title: row["title"],
                    url: row["url"], headers: try Self.decodeHeaders(headers), duration: row["duration"]
                )
            }
        }
    }

    public func groups(kind: CatalogItemKind, sourceID: Int64?) async throws -> [CatalogGroup] {
        try await database.read { db in
            try Row.fetchAll(
                db,
                sql: """
                    SELECT g.id, g.sourceID, g.kind, g.name, (SELECT count(*) FROM catalogItem i WHERE i.groupID =
                        g.id) AS itemCount
                    FROM catalogGroup g WHERE g.kind = ? AND (? IS NULL OR g.sourceID = ?) ORDER BY g.sourceID, g.id
                    """,
                arguments: [kind.rawValue, sourceID, sourceID]
            ).map { row in
                CatalogGroup(
                    id: row["id"], sourceID: row["sourceID"], kind: CatalogItemKind(rawValue: row["kind"]),
                    name: row["name"], itemCount: row["itemCount"])
            }
        }
    }

    public func providerID(ofItem itemID: Int64) async throws -> String? {
        try await database.read { db in
            try String.fetchOne(db, sql: "SELECT providerID FROM catalogItem WHERE id = ?", arguments: [itemID])
        }
    }

    public func replaceEpisodes(ofSeries seriesID: Int64, with episodes: [CatalogEpisodeDraft]) async throws {
        let encoded = try episodes.map { $0.headers.isEmpty ? nil : try Self.encodeJSON($0.headers) }
        try await database.write { db in
            guard
                try String.fetchOne(db, sql: "SELECT kind FROM catalogItem WHERE id = ?", arguments: [seriesID])
                    == CatalogItemKind.series.rawValue
            else {
                throw CatalogError.itemNotFound(seriesID)
            }
            try db.execute(sql: "DELETE FROM catalogEpisode WHERE seriesID = ?", arguments: [seriesID])
            let insert = try db.cachedStatement(
                sql: """
                    INSERT INTO catalogEpisode (seriesID, season, episode, title, url, headers, duration, position)
                        VALUES (?, ?, ?, ?, ?, ?, ?, ?)
                    """)
            for (position, episode) in episodes.enumerated() {
                try insert.execute(arguments: [
                    seriesID, episode.season, episode.episode, episode.title, episode.url, encoded[position],
                    episode.duration, position,
                ])
            }
        }
    }

    static func item(from row: Row) throws -> CatalogItem {
        let headers: String? = row["headers"]
        var catchup: CatalogCatchup?
        if let type: String = row["catchupType"] {
            catchup = CatalogCatchup(type: type, days: row["catchupDays"], source: row["catchupSource"])
        }
        return CatalogItem(
            id: row["id"], sourceID: row["sourceID"], kind: CatalogItemKind(rawValue: row["kind"]),
            identity: row["identity"],
            name: row["name"], group: row["groupName"], tvgID: row["tvgID"], tvgName: row["tvgName"], logo: row["logo"],
            number: row["number"], url: row["url"], headers: try decodeHeaders(headers), catchup: catchup,
            tvgShift: row["tvgShift"], isRadio: row["isRadio"], position: row["position"],
            isFavourite: row["isFavourite"],
            streamCheck: streamCheck(from: row)
        )
    }

    /// Rebuilds the search index from catalogItem, in one pass.
    static func rebuildSearch(_ db: Database) throws {
        try db.execute(sql: "INSERT INTO catalogSearch (catalogSearch) VALUES ('rebuild')")
    }

    // MARK: - Favourites

    public func setFavourite(itemID: Int64, _ favourite: Bool) async throws {
        try await database.write { db in
            let (kind, identity) = try Self.key(db, itemID: itemID)
            if favourite {
                try db.execute(
                    sql: """
                        INSERT INTO catalogFavourite (kind, identity, position, addedAt)
                        VALUES (?, ?, (SELECT COALESCE(max(position), -1) + 1 FROM catalogFavourite), ?)
                        ON CONFLICT DO NOTHING
                        """,
                    arguments: [kind, identity, Date().timeIntervalSince1970]
                )
            } else {
                try db.execute(
                    sql: "DELETE FROM catalogFavourite WHERE kind = ? AND identity = ?", arguments: [kind, identity])
            }
        }
    }

    public func moveFavourite(itemID: Int64, to position: Int) async throws {
        try await database.write { db in
            let (kind, identity) = try Self.key(db, itemID: itemID)
            let key = [kind, identity]
            var order = try Row.fetchAll(db, sql: "SELECT kind, identity FROM catalogFavourite ORDER BY position").map {
                [$0["kind"], $0["identity"]] as [String]
            }
            guard let current = order.firstIndex(of: key) else { throw CatalogError.notFavourite(itemID) }
            order.remove(at: current)
            order.insert(key, at: max(0, min(position, order.count)))
            // Renumbering every favourite is fine: people have tens of them, not thousands.
            let update = try db.cachedStatement(
                sql: "UPDATE catalogFavourite SET position = ? WHERE kind = ? AND identity = ?")
            for (index, key) in order.enumerated() {
                try update.execute(arguments: [index, key[0], key[1]])
            }
        }
    }

    // MARK: - JSON columns

    static func encodeJSON<T: Encodable>(_ value: T) throws -> String {
        String(decoding: try JSONEncoder().encode(value), as: UTF8.self)
    }

    static func decodeHeaders(_ json: String?) throws -> [CatalogHeader] {
        guard let json else { return [] }
        return try JSONDecoder().decode([CatalogHeader].self, from: Data(json.utf8))
    }
}
