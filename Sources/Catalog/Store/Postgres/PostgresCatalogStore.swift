import Foundation
import Logging
import PostgresNIO
import Synchronization
import TunerStorage

/// The shared catalog store: PostgreSQL through postgres-nio, in a ``TunerPostgres`` that several
/// Tuner nodes may use at once. Answers as ``SQLiteCatalogStore`` does, method for method: the
/// same rows, ids kept across refreshes, the same search results (see ``CatalogSearchTokenizer``).
public final class PostgresCatalogStore: CatalogStore {
    let database: TunerPostgres
    let logger: Logger
    /// Search statistics (bm25's row count, average length and term frequencies), valid while the
    /// catalogue's sources and generations are what they were when read.
    let searchStatistics = Mutex(SearchStatistics())

    /// The catalog in `database`, which must have been opened with ``CatalogSchema``.
    public init(database: TunerPostgres, logger: Logger) {
        self.database = database
        self.logger = logger
    }

    // MARK: - Sources

    public func addSource(_ draft: CatalogSourceDraft) async throws -> CatalogSource {
        let epgURLs = try SQLiteCatalogStore.encodeJSON(draft.epgURLs)
        let logger = logger
        return try await database.write { connection in
            let rows = try await connection.query(
                """
                INSERT INTO catalogSource (kind, name, location, xtreamServer, xtreamUsername, xtreamPassword,
                    epgURLs, refreshInterval)
                VALUES (\(draft.kind.rawValue), \(draft.name), \(draft.location), \(draft.xtream?.server),
                    \(draft.xtream?.username), \(draft.xtream?.password), \(epgURLs), \(draft.refreshInterval))
                RETURNING \(unescaped: Self.sourceColumns)
                """, logger: logger)
            guard let row = try await rows.collect().first else {
                throw CatalogError.unsupported("adding a source returned no row")
            }
            return try Self.source(from: row)
        }
    }

    public func sources() async throws -> [CatalogSource] {
        let logger = logger
        return try await database.read { connection in
            try await connection.query(
                "SELECT \(unescaped: Self.sourceColumns) FROM catalogSource ORDER BY id", logger: logger
            ).collect().map(Self.source(from:))
        }
    }

    public func source(id: Int64) async throws -> CatalogSource? {
        let logger = logger
        return try await database.read { connection in
            try await Self.fetchSource(connection, id: id, logger: logger)
        }
    }

    public func removeSource(id: Int64) async throws {
        let logger = logger
        try await database.write { connection in
            let rows = try await connection.query(
                "DELETE FROM catalogSource WHERE id = \(id) RETURNING id", logger: logger
            ).collect()
            if rows.isEmpty { throw CatalogError.sourceNotFound(id) }
        }
    }

    public func updateSource(_ source: CatalogSource) async throws {
        let epgURLs = try SQLiteCatalogStore.encodeJSON(source.epgURLs)
        let logger = logger
        try await database.write { connection in
            let rows = try await connection.query(
                """
                UPDATE catalogSource SET name = \(source.name), location = \(source.location),
                    xtreamServer = \(source.xtream?.server), xtreamUsername = \(source.xtream?.username),
                    xtreamPassword = \(source.xtream?.password), epgURLs = \(epgURLs),
                    refreshInterval = \(source.refreshInterval), maxConnections = \(source.maxConnections)
                WHERE id = \(source.id) RETURNING id
                """, logger: logger
            ).collect()
            if rows.isEmpty { throw CatalogError.sourceNotFound(source.id) }
        }
    }

    /// Marks sources left `refreshing` by a process that stopped mid-refresh as failed, so the
    /// scheduler retries them; returns how many. Only a process that owns the catalogue at start
    /// calls this: another node may be refreshing right now.
    @discardableResult
    public func recoverInterruptedRefreshes() async throws -> Int {
        let logger = logger
        let message = "the refresh was interrupted (Tuner stopped during it); it will be retried"
        return try await database.write { connection in
            try await connection.query(
                """
                UPDATE catalogSource SET status = 'failed', lastError = \(message) WHERE status = 'refreshing'
                RETURNING id
                """, logger: logger
            ).collect().count
        }
    }

    public func setSourceStatus(id: Int64, status: CatalogSourceStatus, error: String?, refreshedAt: Date?) async throws
    {
        let logger = logger
        let refreshed = refreshedAt?.timeIntervalSince1970
        try await database.write { connection in
            let rows = try await connection.query(
                """
                UPDATE catalogSource SET status = \(status.rawValue), lastError = \(error),
                    lastRefresh = COALESCE(\(refreshed)::DOUBLE PRECISION, lastRefresh)
                WHERE id = \(id) RETURNING id
                """, logger: logger
            ).collect()
            if rows.isEmpty { throw CatalogError.sourceNotFound(id) }
        }
    }

    public func setProviderMaxConnections(sourceID: Int64, _ limit: Int?) async throws {
        let logger = logger
        let stored = limit.flatMap { (1...1000).contains($0) ? $0 : nil }
        try await database.write { connection in
            _ = try await connection.query(
                "UPDATE catalogSource SET providerMaxConnections = \(stored) WHERE id = \(sourceID)", logger: logger)
        }
    }

    static let sourceColumns = """
        id, kind, name, location, xtreamServer, xtreamUsername, xtreamPassword, epgURLs, refreshInterval,
        lastRefresh, lastError, status, maxConnections, providerMaxConnections
        """

    static func fetchSource(_ connection: PostgresConnection, id: Int64, logger: Logger) async throws -> CatalogSource?
    {
        try await connection.query(
            "SELECT \(unescaped: sourceColumns) FROM catalogSource WHERE id = \(id)", logger: logger
        ).collect().first.map(source(from:))
    }

    static func source(from row: PostgresRow) throws -> CatalogSource {
        var cells = PostgresCells(row)
        let id = try cells.next(Int64.self)
        let kind = try cells.next(String.self)
        let name = try cells.next(String.self)
        let location = try cells.next(String.self)
        let server = try cells.next(String?.self)
        let username = try cells.next(String?.self)
        let password = try cells.next(String?.self)
        var xtream: XtreamCredentials?
        if let server, let username, let password {
            xtream = XtreamCredentials(server: server, username: username, password: password)
        }
        let epgJSON = try cells.next(String.self)
        let refreshInterval = try cells.next(Double.self)
        let lastRefresh = try cells.next(Double?.self)
        let lastError = try cells.next(String?.self)
        let status = try cells.next(String.self)
        let maxConnections = try cells.next(Int64?.self)
        let providerMaxConnections = try cells.next(Int64?.self)
        return CatalogSource(
            id: id, kind: CatalogSourceKind(rawValue: kind), name: name, location: location, xtream: xtream,
            epgURLs: try JSONDecoder().decode([String].self, from: Data(epgJSON.utf8)),
            refreshInterval: refreshInterval, lastRefresh: lastRefresh.map(Date.init(timeIntervalSince1970:)),
            lastError: lastError, status: CatalogSourceStatus(rawValue: status),
            maxConnections: maxConnections.map(Int.init), providerMaxConnections: providerMaxConnections.map(Int.init))
    }

    // MARK: - Import

    public func replaceItems(
        ofSource sourceID: Int64,
        produce: @escaping @Sendable (any CatalogImportSink) throws -> Void
    ) async throws -> CatalogImportCounts {
        let logger = logger
        // One transaction: readers keep seeing the previous catalog until the commit, and any
        // error (a parse failure, an empty playlist, cancellation) rolls everything back.
        return try await database.write { connection in
            try await PostgresItemImport(connection: connection, sourceID: sourceID, logger: logger).run(produce)
        }
    }

    // MARK: - Items

    /// The columns of an item, in the order ``item(from:)`` reads them; the query joins
    /// `streamCheck c` (LEFT JOIN) to `catalogItem i`.
    static let itemColumns = """
        i.id, i.sourceID, i.kind, i.identity, i.name, i.groupName, i.tvgID, i.tvgName, i.logo, i.number, i.url,
        i.headers, i.catchupType, i.catchupDays, i.catchupSource, i.tvgShift, i.isRadio, i.position,
        EXISTS (SELECT 1 FROM catalogFavourite fav WHERE fav.kind = i.kind AND fav.identity = i.identity),
        c.online, c.checkedAt, c.reason
        """

    static func item(from row: PostgresRow) throws -> CatalogItem {
        var cells = PostgresCells(row)
        var item = try leadingItem(from: &cells)
        item.isFavourite = try cells.next(Bool.self)
        let online = try cells.next(Int64?.self)
        let checkedAt = try cells.next(Double?.self)
        let reason = try cells.next(String?.self)
        if let online, let checkedAt {
            item.streamCheck = CatalogStreamCheck(
                itemID: item.id, online: online != 0, checkedAt: Date(timeIntervalSince1970: checkedAt),
                reason: reason ?? "")
        }
        return item
    }

    /// The item's own columns, in ``itemColumns``' order up to `position` (what every item query
    /// selects first), from `cells`; the caller reads what its query adds after them.
    static func leadingItem(from cells: inout PostgresCells) throws -> CatalogItem {
        let id = try cells.next(Int64.self)
        let sourceID = try cells.next(Int64.self)
        let kind = try cells.next(String.self)
        let identity = try cells.next(String.self)
        let name = try cells.next(String.self)
        let group = try cells.next(String?.self)
        let tvgID = try cells.next(String?.self)
        let tvgName = try cells.next(String?.self)
        let logo = try cells.next(String?.self)
        let number = try cells.next(String?.self)
        let url = try cells.next(String?.self)
        let headers = try cells.next(String?.self)
        let catchupType = try cells.next(String?.self)
        let catchupDays = try cells.next(Int64?.self)
        let catchupSource = try cells.next(String?.self)
        let tvgShift = try cells.next(Double?.self)
        let isRadio = try cells.flag()
        let position = try cells.next(Int64.self)
        return CatalogItem(
            id: id, sourceID: sourceID, kind: CatalogItemKind(rawValue: kind), identity: identity, name: name,
            group: group, tvgID: tvgID, tvgName: tvgName, logo: logo, number: number, url: url,
            headers: try SQLiteCatalogStore.decodeHeaders(headers),
            catchup: catchupType.map {
                CatalogCatchup(type: $0, days: catchupDays.map(Int.init), source: catchupSource)
            },
            tvgShift: tvgShift, isRadio: isRadio, position: Int(position))
    }

    public func items(_ query: CatalogItemQuery) async throws -> CatalogPage<CatalogItem> {
        let limit = max(0, min(query.limit, 1000))
        let offset = max(0, query.offset)
        if let search = query.search {
            return try await searchItems(query, search: search, offset: offset, limit: limit)
        }
        let baseFilter = ItemFilter(query)
        let logger = logger
        return try await database.read { connection in
            var filter = baseFilter
            var from = "catalogItem i"
            var order = "i.kind, i.sourceID, i.position"
            if query.favouritesOnly {
                from = "catalogFavourite f JOIN catalogItem i ON i.kind = f.kind AND i.identity = f.identity"
                order = "f.position, i.sourceID"
            }
            let whereClause = filter.whereClause
            let total =
                try await connection.values(
                    PostgresQuery(unsafeSQL: "SELECT count(*) FROM \(from)\(whereClause)", binds: filter.binds),
                    as: Int64.self, logger: logger
                ).first ?? 0
            let limitIndex = filter.bind(Int64(limit))
            let offsetIndex = filter.bind(Int64(offset))
            let rows = try await connection.query(
                PostgresQuery(
                    unsafeSQL: """
                        SELECT \(Self.itemColumns)
                        FROM \(from) LEFT JOIN streamCheck c ON c.itemID = i.id
                        \(whereClause)
                        ORDER BY \(order) LIMIT $\(limitIndex) OFFSET $\(offsetIndex)
                        """, binds: filter.binds), logger: logger
            ).collect()
            return CatalogPage(
                items: try rows.map(Self.item(from:)), total: Int(total), offset: offset, limit: limit)
        }
    }

    public func item(id: Int64) async throws -> CatalogItem? {
        let logger = logger
        return try await database.read { connection in
            try await connection.query(
                """
                SELECT \(unescaped: Self.itemColumns)
                FROM catalogItem i LEFT JOIN streamCheck c ON c.itemID = i.id WHERE i.id = \(id)
                """, logger: logger
            ).collect().first.map(Self.item(from:))
        }
    }

    public func episodes(ofSeries seriesID: Int64) async throws -> [CatalogEpisode] {
        let logger = logger
        return try await database.read { connection in
            try await connection.query(
                """
                SELECT \(unescaped: Self.episodeColumns) FROM catalogEpisode
                WHERE seriesID = \(seriesID) ORDER BY position
                """, logger: logger
            ).collect().map(Self.episode(from:))
        }
    }

    public func episode(id: Int64) async throws -> CatalogEpisode? {
        let logger = logger
        return try await database.read { connection in
            try await connection.query(
                "SELECT \(unescaped: Self.episodeColumns) FROM catalogEpisode WHERE id = \(id)", logger: logger
            ).collect().first.map(Self.episode(from:))
        }
    }

    static let episodeColumns = "id, seriesID, season, episode, title, url, headers, duration"

    static func episode(from row: PostgresRow) throws -> CatalogEpisode {
        var cells = PostgresCells(row)
        let id = try cells.next(Int64.self)
        let seriesID = try cells.next(Int64.self)
        let season = try cells.next(Int64?.self)
        let episode = try cells.next(Int64?.self)
        let title = try cells.next(String.self)
        let url = try cells.next(String.self)
        let headers = try cells.next(String?.self)
        let duration = try cells.next(Double?.self)
        return CatalogEpisode(
            id: id, seriesID: seriesID, season: season.map(Int.init), episode: episode.map(Int.init), title: title,
            url: url, headers: try SQLiteCatalogStore.decodeHeaders(headers), duration: duration)
    }

    public func groups(kind: CatalogItemKind, sourceID: Int64?) async throws -> [CatalogGroup] {
        let logger = logger
        return try await database.read { connection in
            try await connection.rows(
                """
                SELECT g.id, g.sourceID, g.kind, g.name,
                    (SELECT count(*) FROM catalogItem i WHERE i.groupID = g.id)
                FROM catalogGroup g
                WHERE g.kind = \(kind.rawValue) AND (\(sourceID)::BIGINT IS NULL OR g.sourceID = \(sourceID))
                ORDER BY g.sourceID, g.id
                """, logger: logger
            ).map { try $0.decode((Int64, Int64, String, String, Int64).self) }.map { id, sourceID, kind, name, count in
                CatalogGroup(
                    id: id, sourceID: sourceID, kind: CatalogItemKind(rawValue: kind), name: name, itemCount: Int(count)
                )
            }
        }
    }

    public func providerID(ofItem itemID: Int64) async throws -> String? {
        let logger = logger
        return try await database.read { connection in
            try await connection.values(
                "SELECT providerID FROM catalogItem WHERE id = \(itemID)", as: String?.self, logger: logger
            ).first ?? nil
        }
    }

    public func lineupItems(kinds: [CatalogItemKind]) async throws -> [LineupItem] {
        guard !kinds.isEmpty else { return [] }
        let logger = logger
        let kindNames = kinds.map(\.rawValue)
        return try await database.read { connection in
            let rows = try await connection.query(
                """
                SELECT i.id, i.sourceID, i.kind, i.identity, i.name, i.groupName, i.tvgID, i.tvgName, i.logo,
                    i.number, i.url, i.headers, i.catchupType, i.catchupDays, i.catchupSource, i.tvgShift,
                    i.isRadio, i.position, f.position
                FROM catalogItem i
                LEFT JOIN catalogFavourite f ON f.kind = i.kind AND f.identity = i.identity
                WHERE (i.url IS NOT NULL OR i.kind = 'series') AND i.kind = ANY(\(kindNames))
                ORDER BY i.sourceID, i.position
                """, logger: logger)
            var items: [LineupItem] = []
            for try await row in rows {
                var cells = PostgresCells(row)
                var item = try Self.leadingItem(from: &cells)
                let favourite = try cells.next(Int64?.self)
                item.isFavourite = favourite != nil
                items.append(LineupItem(item: item, favouritePosition: favourite.map(Int.init)))
            }
            return items
        }
    }

    // MARK: - Favourites

    public func setFavourite(itemID: Int64, _ favourite: Bool) async throws {
        let logger = logger
        let now = Date().timeIntervalSince1970
        try await database.write { connection in
            let (kind, identity) = try await Self.key(connection, itemID: itemID, logger: logger)
            if favourite {
                // Favourites are numbered under a lock of their own so that two nodes adding at once
                // do not take the same place.
                try await connection.query(
                    "SELECT pg_advisory_xact_lock(\(Self.favouritesLockKey))", logger: logger)
                try await connection.query(
                    """
                    INSERT INTO catalogFavourite (kind, identity, position, addedAt)
                    VALUES (\(kind), \(identity), (SELECT COALESCE(max(position), -1) + 1 FROM catalogFavourite),
                        \(now))
                    ON CONFLICT DO NOTHING
                    """, logger: logger)
            } else {
                try await connection.query(
                    "DELETE FROM catalogFavourite WHERE kind = \(kind) AND identity = \(identity)", logger: logger)
            }
        }
    }

    public func moveFavourite(itemID: Int64, to position: Int) async throws {
        let logger = logger
        try await database.write { connection in
            let key = try await Self.key(connection, itemID: itemID, logger: logger)
            var order = try await Self.favouriteOrder(connection, logger: logger)
            guard let current = order.firstIndex(where: { $0 == key }) else { throw CatalogError.notFavourite(itemID) }
            order.remove(at: current)
            order.insert(key, at: max(0, min(position, order.count)))
            try await Self.renumber(connection, order, logger: logger)
        }
    }

    public func setFavouriteOrder(itemIDs: [Int64]) async throws {
        let logger = logger
        try await database.write { connection in
            var current = try await Self.favouriteOrder(connection, logger: logger)
            let favourites = Set(current.map(FavouriteKey.init))
            var listed: [(String, String)] = []
            var seen: Set<FavouriteKey> = []
            for id in itemIDs {
                let key = try await Self.key(connection, itemID: id, logger: logger)
                guard favourites.contains(FavouriteKey(key)) else { throw CatalogError.notFavourite(id) }
                // Two sources may carry the same channel (same identity): one favourite, listed once.
                if seen.insert(FavouriteKey(key)).inserted { listed.append(key) }
            }
            // Favourites left out keep their relative order after the listed ones.
            current.removeAll { seen.contains(FavouriteKey($0)) }
            try await Self.renumber(connection, listed + current, logger: logger)
        }
    }

    /// The advisory lock that numbers favourites (any constant no other lock of Tuner's uses).
    static let favouritesLockKey: Int64 = 0x6361_7466_6176_6F75

    private struct FavouriteKey: Hashable {
        var kind: String
        var identity: String
        init(_ key: (String, String)) {
            kind = key.0
            identity = key.1
        }
    }

    /// The kind and identity of an item; throws `itemNotFound`.
    static func key(_ connection: PostgresConnection, itemID: Int64, logger: Logger) async throws -> (String, String) {
        guard
            let key = try await connection.rows(
                "SELECT kind, identity FROM catalogItem WHERE id = \(itemID)", logger: logger
            ).map({ try $0.decode((String, String).self) }).first
        else { throw CatalogError.itemNotFound(itemID) }
        return key
    }

    private static func favouriteOrder(_ connection: PostgresConnection, logger: Logger) async throws -> [(
        String, String
    )] {
        // FOR UPDATE: two renumberings at once would interleave their positions.
        try await connection.rows(
            "SELECT kind, identity FROM catalogFavourite ORDER BY position FOR UPDATE", logger: logger
        ).map { try $0.decode((String, String).self) }
    }

    /// Numbers favourites from 0 in `order`, in one statement (people have tens, not thousands).
    private static func renumber(_ connection: PostgresConnection, _ order: [(String, String)], logger: Logger)
        async throws
    {
        guard !order.isEmpty else { return }
        let kinds = order.map(\.0)
        let identities = order.map(\.1)
        try await connection.query(
            """
            UPDATE catalogFavourite f SET position = o.position - 1
            FROM unnest(\(kinds)::TEXT[], \(identities)::TEXT[]) WITH ORDINALITY AS o(kind, identity, position)
            WHERE f.kind = o.kind AND f.identity = o.identity
            """, logger: logger)
    }
}

/// The conditions of an item listing, with their bound values numbered from $1.
struct ItemFilter {
    var conditions: [String] = []
    var binds = PostgresBindings()

    init(_ query: CatalogItemQuery) {
        if let kind = query.kind {
            conditions.append("i.kind = $\(bind(kind.rawValue))")
        }
        if let sourceID = query.sourceID {
            conditions.append("i.sourceID = $\(bind(sourceID))")
        }
        if let group = query.group {
            conditions.append("i.groupID IN (SELECT id FROM catalogGroup WHERE name = $\(bind(group)))")
        }
    }

    /// Binds `value` and returns its parameter number.
    mutating func bind<Value: PostgresDynamicTypeEncodable>(_ value: Value) -> Int {
        binds.append(value, context: .default)
        return binds.count
    }

    var whereClause: String {
        conditions.isEmpty ? "" : " WHERE " + conditions.joined(separator: " AND ")
    }
}
