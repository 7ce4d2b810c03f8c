import Foundation
import GRDB

/// Writes one import into the catalog, inside the transaction of
/// ``SQLiteCatalogStore/replaceItems(ofSource:produce:)``.
///
/// Items are upserted by identity so that their row ids survive a refresh; the import's
/// generation number marks what was seen, and ``finish()`` removes the rest and rebuilds the
/// search index in one pass.
final class SQLiteImportSink: CatalogImportSink {
    private let db: Database
    private let sourceID: Int64
    private let generation: Int64
    private var upsertItem: SQLiteBulkStatement
    private var upsertSeries: SQLiteBulkStatement
    private let upsertGroup: Statement
    private var insertEpisode: SQLiteBulkStatement
    private let encoder = JSONEncoder()

    private var groupIDs: [String: Int64] = [:]
    private var seriesIDs: [String: Int64] = [:]
    /// How often each identity of each kind was seen in this import, to tell duplicated entries apart.
    private var seen: [String: [String: Int]] = [:]
    private var position = 0
    private var episodePosition = 0
    private(set) var counts = CatalogImportCounts()

    private static let itemColumns = """
        INSERT INTO catalogItem (sourceID, kind, identity, name, normalizedName, groupID, groupName, tvgID, tvgName, logo, number, url,
            headers, catchupType, catchupDays, catchupSource, tvgShift, isRadio, providerID, position, generation)
        VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
        ON CONFLICT (kind, identity, sourceID) DO UPDATE SET
            name = excluded.name, normalizedName = excluded.normalizedName, groupID = excluded.groupID, groupName = excluded.groupName,
            tvgID = excluded.tvgID, tvgName = excluded.tvgName, logo = excluded.logo, number = excluded.number,
            url = excluded.url, headers = excluded.headers, catchupType = excluded.catchupType,
            catchupDays = excluded.catchupDays, catchupSource = excluded.catchupSource, tvgShift = excluded.tvgShift,
            isRadio = excluded.isRadio, providerID = excluded.providerID, position = excluded.position,
            generation = excluded.generation
        """

    init(db: Database, sourceID: Int64) throws {
        self.db = db
        self.sourceID = sourceID
        guard let current = try Int64.fetchOne(db, sql: "SELECT generation FROM catalogSource WHERE id = ?", arguments: [sourceID]) else {
            throw CatalogError.sourceNotFound(sourceID)
        }
        generation = current + 1
        try db.execute(sql: "UPDATE catalogSource SET generation = ? WHERE id = ?", arguments: [generation, sourceID])
        // Episodes have no identity of their own: they are replaced wholesale.
        try db.execute(
            sql: "DELETE FROM catalogEpisode WHERE seriesID IN (SELECT id FROM catalogItem WHERE sourceID = ? AND kind = 'series')",
            arguments: [sourceID]
        )
        upsertItem = SQLiteBulkStatement(try db.cachedStatement(sql: Self.itemColumns))
        upsertSeries = SQLiteBulkStatement(try db.cachedStatement(sql: Self.itemColumns + " RETURNING id"))
        upsertGroup = try db.cachedStatement(sql: """
            INSERT INTO catalogGroup (sourceID, kind, name, generation) VALUES (?, ?, ?, ?)
            ON CONFLICT (sourceID, kind, name) DO UPDATE SET generation = excluded.generation
            RETURNING id
            """)
        insertEpisode = SQLiteBulkStatement(try db.cachedStatement(sql: """
            INSERT INTO catalogEpisode (seriesID, season, episode, title, url, headers, duration, position)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?)
            """))
    }

    func add(_ item: CatalogItemDraft) throws {
        try add(item, normalizedName: CatalogIdentity.normalizedName(item.name))
    }

    /// ``add(_:)`` with the name normalized already (by the parsing thread of a playlist import).
    func add(_ item: CatalogItemDraft, normalizedName: String) throws {
        _ = try write(item, returningID: false, normalizedName: normalizedName)
        switch item.kind {
        case .live: counts.live += 1
        case .movie: counts.movies += 1
        case .series: counts.series += 1
        default: break
        }
    }

    func add(_ episode: CatalogEpisodeDraft, of series: CatalogItemDraft) throws {
        try add(episode, of: series, seriesNormalizedName: CatalogIdentity.normalizedName(series.name))
    }

    /// ``add(_:of:)`` with the series name normalized already.
    func add(_ episode: CatalogEpisodeDraft, of series: CatalogItemDraft, seriesNormalizedName normalized: String) throws {
        let key = CatalogIdentity.identity(kind: .series, tvgID: nil, providerID: series.providerID, normalizedName: normalized, url: nil)
        let seriesID: Int64
        if let known = seriesIDs[key] {
            seriesID = known
        } else {
            guard let id = try write(series, returningID: true, normalizedName: normalized) else {
                throw CatalogError.unsupported("series upsert returned no id")
            }
            seriesIDs[key] = id
            seriesID = id
            counts.series += 1
        }
        insertEpisode.reset()
        insertEpisode.bind(seriesID)
        insertEpisode.bind(episode.season)
        insertEpisode.bind(episode.episode)
        insertEpisode.bind(episode.title)
        insertEpisode.bind(episode.url)
        insertEpisode.bind(try headersJSON(episode.headers))
        insertEpisode.bind(episode.duration)
        insertEpisode.bind(episodePosition)
        try insertEpisode.step(db)
        episodePosition += 1
        counts.episodes += 1
    }

    /// Drops what this import did not see and rebuilds the source's search index.
    func finish() throws {
        try db.execute(sql: "DELETE FROM catalogItem WHERE sourceID = ? AND generation < ?", arguments: [sourceID, generation])
        try db.execute(sql: "DELETE FROM catalogGroup WHERE sourceID = ? AND generation < ?", arguments: [sourceID, generation])
        try SQLiteCatalogStore.rebuildSearch(db)
    }

    /// Upserts an item; returns its id when `returningID` (the statement with `RETURNING id`).
    private func write(_ item: CatalogItemDraft, returningID: Bool, normalizedName: String? = nil) throws -> Int64? {
        let normalized = normalizedName ?? CatalogIdentity.normalizedName(item.name)
        var identity = CatalogIdentity.identity(kind: item.kind, tvgID: item.tvgID, providerID: item.providerID, normalizedName: normalized, url: item.url)
        func count(_ seen: inout [String: Int], _ key: String) -> Int {
            let before = seen[key, default: 0]
            seen[key] = before + 1
            return before
        }
        let occurrences = count(&seen[item.kind.rawValue, default: [:]], identity)
        if occurrences > 0 {
            // Providers list the same channel twice (backup streams); order of appearance keeps
            // each duplicate's identity stable from one refresh to the next.
            identity += "#\(occurrences + 1)"
        }
        let groupID = try item.group.map { try self.groupID(kind: item.kind, name: $0) }
        let headers = try headersJSON(item.headers)
        func bindAll(_ statement: inout SQLiteBulkStatement) {
            statement.reset()
            statement.bind(sourceID)
            statement.bind(item.kind.rawValue)
            statement.bind(identity)
            statement.bind(item.name)
            statement.bind(normalized)
            statement.bind(groupID)
            statement.bind(item.group)
            statement.bind(item.tvgID)
            statement.bind(item.tvgName)
            statement.bind(item.logo)
            statement.bind(item.number)
            statement.bind(item.url)
            statement.bind(headers)
            statement.bind(item.catchup?.type)
            statement.bind(item.catchup?.days)
            statement.bind(item.catchup?.source)
            statement.bind(item.tvgShift)
            statement.bind(item.isRadio)
            statement.bind(item.providerID)
            statement.bind(position)
            statement.bind(generation)
        }
        position += 1
        if returningID {
            bindAll(&upsertSeries)
            return try upsertSeries.step(db)
        }
        bindAll(&upsertItem)
        try upsertItem.step(db)
        return nil
    }

    private func groupID(kind: CatalogItemKind, name: String) throws -> Int64 {
        let key = kind.rawValue + "\u{0}" + name
        if let id = groupIDs[key] { return id }
        guard let id = try Int64.fetchOne(upsertGroup, arguments: [sourceID, kind.rawValue, name, generation]) else {
            throw CatalogError.unsupported("group upsert returned no id")
        }
        groupIDs[key] = id
        return id
    }

    private func headersJSON(_ headers: [CatalogHeader]) throws -> String? {
        guard !headers.isEmpty else { return nil }
        return String(decoding: try encoder.encode(headers), as: UTF8.self)
    }
}
