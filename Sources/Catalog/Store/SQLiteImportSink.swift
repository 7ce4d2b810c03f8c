import Foundation
import GRDB

/// Writes one import into the catalog, inside the transaction of
/// ``SQLiteCatalogStore/replaceItems(ofSource:produce:)``.
///
/// Items are upserted by identity so that their row ids survive a refresh; the import's
/// generation number marks what was seen, and ``finish()`` removes the rest and rebuilds the
/// search index in one pass. Rows arrive as ``ImportBatch``es and each run of items or episodes
/// of a batch is one `INSERT … SELECT` from ``ImportBatchTable``.
final class SQLiteImportSink: CatalogImportSink {
    private let db: Database
    private let sourceID: Int64
    private let generation: Int64
    /// A run of item rows, as one statement over ``ImportBatchTable``.
    private var insertItems: SQLiteBulkStatement
    /// A run of episode rows, likewise.
    private var insertEpisodes: SQLiteBulkStatement
    /// A series, the first time one of its episodes comes: its id is needed before the episodes'.
    private var upsertSeries: SQLiteBulkStatement
    private var upsertGroup: SQLiteBulkStatement
    /// Encodes what ``add(_:)`` and ``add(_:of:)`` receive into ``pending``, written a batch at a time.
    private var encoder = ImportRowEncoder()
    private var pending = ImportBatch()

    /// Row ids of the import's groups and series, in the encoder's numbering.
    private var groupIDs: [Int64] = []
    private var seriesIDs: [Int64] = []
    private(set) var counts = CatalogImportCounts()

    private static let itemColumns = """
        sourceID, kind, identity, name, normalizedName, groupID, groupName, tvgID, tvgName, logo, number, url,
        headers, catchupType, catchupDays, catchupSource, tvgShift, isRadio, providerID, position, generation
        """
    /// An item seen before keeps its row id (and so its stream check and details).
    private static let onConflict = """
        ON CONFLICT (kind, identity, sourceID) DO UPDATE SET
            name = excluded.name, normalizedName = excluded.normalizedName, groupID = excluded.groupID, groupName =
                excluded.groupName,
            tvgID = excluded.tvgID, tvgName = excluded.tvgName, logo = excluded.logo, number = excluded.number,
            url = excluded.url, headers = excluded.headers, catchupType = excluded.catchupType,
            catchupDays = excluded.catchupDays, catchupSource = excluded.catchupSource, tvgShift = excluded.tvgShift,
            isRadio = excluded.isRadio, providerID = excluded.providerID, position = excluded.position,
            generation = excluded.generation
        """

    init(db: Database, sourceID: Int64) throws {
        self.db = db
        self.sourceID = sourceID
        guard
            let current = try Int64.fetchOne(
                db, sql: "SELECT generation FROM catalogSource WHERE id = ?", arguments: [sourceID])
        else {
            throw CatalogError.sourceNotFound(sourceID)
        }
        generation = current + 1
        try db.execute(sql: "UPDATE catalogSource SET generation = ? WHERE id = ?", arguments: [generation, sourceID])
        // Episodes have no identity of their own: they are replaced wholesale.
        try db.execute(
            sql:
                """
                DELETE FROM catalogEpisode WHERE seriesID IN (SELECT id FROM catalogItem WHERE sourceID = ? AND \
                kind = 'series')
                """,
            arguments: [sourceID]
        )
        // `WHERE batch = ?3` also keeps SQLite from reading `ON CONFLICT` as a join constraint.
        insertItems = SQLiteBulkStatement(
            try db.cachedStatement(
                sql: """
                    INSERT INTO catalogItem (\(Self.itemColumns))
                    SELECT ?1, kind, identity, name, normalizedName, groupID, groupName, tvgID, tvgName, logo,
                        number, url,
                        headers, catchupType, catchupDays, catchupSource, tvgShift, isRadio, providerID, position, ?2
                    FROM \(ImportBatchTable.name) WHERE batch = ?3
                    \(Self.onConflict)
                    """))
        insertEpisodes = SQLiteBulkStatement(
            try db.cachedStatement(
                sql: """
                    INSERT INTO catalogEpisode (seriesID, season, episode, title, url, headers, duration, position)
                    SELECT seriesID, season, episode, title, episodeURL, episodeHeaders, duration, episodePosition
                    FROM \(ImportBatchTable.name) WHERE batch = ?1
                    """))
        upsertSeries = SQLiteBulkStatement(
            try db.cachedStatement(
                sql: """
                    INSERT INTO catalogItem (\(Self.itemColumns))
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                    \(Self.onConflict)
                    RETURNING id
                    """))
        upsertGroup = SQLiteBulkStatement(
            try db.cachedStatement(
                sql: """
                    INSERT INTO catalogGroup (sourceID, kind, name, generation) VALUES (?, ?, ?, ?)
                    ON CONFLICT (sourceID, kind, name) DO UPDATE SET generation = excluded.generation
                    RETURNING id
                    """))
    }

    func add(_ item: CatalogItemDraft) throws {
        try encoder.encode(item, into: &pending)
        try added()
    }

    func add(_ episode: CatalogEpisodeDraft, of series: CatalogItemDraft) throws {
        try encoder.encode(episode, of: series, into: &pending)
        try added()
    }

    /// Counts the row just encoded into ``pending``, and writes a full batch.
    private func added() throws {
        count(pending.rows[pending.rows.count - 1])
        if pending.isFull { try flush() }
    }

    /// Writes rows encoded by the import's one encoder: the sink's own (``add(_:)``) or, for a
    /// playlist, the parsing thread's.
    func write(_ batch: ImportBatch) throws {
        try flush()
        for row in batch.rows { count(row) }
        try insert(batch)
    }

    /// Drops what this import did not see and rebuilds the search index.
    func finish() throws {
        try flush()
        try db.execute(
            sql: "DELETE FROM catalogItem WHERE sourceID = ? AND generation < ?", arguments: [sourceID, generation])
        try db.execute(
            sql: "DELETE FROM catalogGroup WHERE sourceID = ? AND generation < ?", arguments: [sourceID, generation])
        try SQLiteCatalogStore.rebuildSearch(db)
    }

    private func flush() throws {
        guard !pending.rows.isEmpty else { return }
        try insert(pending)
        pending.removeAll()
    }

    private func count(_ row: ImportRow) {
        switch row.role {
        case .item:
            switch row.countedKind {
            case .live: counts.live += 1
            case .movie: counts.movies += 1
            case .series: counts.series += 1
            case .other: break
            }
        case .episodeOfNewSeries:
            counts.series += 1
            counts.episodes += 1
        case .episode:
            counts.episodes += 1
        }
    }

    /// Inserts a batch: each run of items, and each run of episodes, is one statement. Groups and
    /// series are upserted first, the first time a row names them, so that row ids follow the
    /// order of appearance.
    private func insert(_ batch: ImportBatch) throws {
        try batch.text.withUnsafeBufferPointer { text in
            try batch.rows.withUnsafeBufferPointer { rows in
                var start = 0
                while start < rows.count {
                    let episodes = rows[start].role != .item
                    var end = start
                    while end < rows.count, (rows[end].role != .item) == episodes {
                        try prepare(rows[end], text)
                        end += 1
                    }
                    try insert(rows, start..<end, text, episodes: episodes)
                    start = end
                }
            }
        }
    }

    /// Upserts the group and, for the first episode of a series, the series that `row` names.
    private func prepare(_ row: ImportRow, _ text: UnsafeBufferPointer<UInt8>) throws {
        switch row.role {
        case .item:
            try resolveGroup(row, text)
        case .episodeOfNewSeries:
            try resolveGroup(row, text)
            guard Int(row.series) == seriesIDs.count, let id = try upsertSeries(row, text) else {
                throw CatalogError.unsupported("series upsert returned no id")
            }
            seriesIDs.append(id)
        case .episode:
            guard seriesIDs.indices.contains(Int(row.series)) else {
                throw CatalogError.unsupported("episode of an unknown series")
            }
        }
    }

    /// Inserts `range` of `rows`: all items, or all episodes.
    private func insert(
        _ rows: UnsafeBufferPointer<ImportRow>, _ range: Range<Int>, _ text: UnsafeBufferPointer<UInt8>, episodes: Bool
    ) throws {
        guard let base = rows.baseAddress else { return }
        try groupIDs.withUnsafeBufferPointer { groupIDs in
            try seriesIDs.withUnsafeBufferPointer { seriesIDs in
                var scan = ImportBatchScan(
                    text: text.baseAddress, rows: base, range: range, groupIDs: groupIDs.baseAddress,
                    seriesIDs: seriesIDs.baseAddress)
                try withUnsafePointer(to: &scan) { scan in
                    if episodes {
                        insertEpisodes.reset()
                        insertEpisodes.bind(scan)
                        defer { insertEpisodes.clearBindings() }
                        try insertEpisodes.step(db)
                    } else {
                        insertItems.reset()
                        insertItems.bind(sourceID)
                        insertItems.bind(generation)
                        insertItems.bind(scan)
                        defer { insertItems.clearBindings() }
                        try insertItems.step(db)
                    }
                }
            }
        }
    }

    /// Upserts the series of an episode row; returns its row id.
    private func upsertSeries(_ row: ImportRow, _ text: UnsafeBufferPointer<UInt8>) throws -> Int64? {
        upsertSeries.reset()
        defer { upsertSeries.clearBindings() }
        upsertSeries.bind(sourceID)
        upsertSeries.bind(row.kind, in: text)
        upsertSeries.bind(row.identity, in: text)
        upsertSeries.bind(row.name, in: text)
        upsertSeries.bind(row.normalizedName, in: text)
        upsertSeries.bind(row.group >= 0 ? groupIDs[Int(row.group)] : nil)
        upsertSeries.bind(row.groupName, in: text)
        upsertSeries.bind(row.tvgID, in: text)
        upsertSeries.bind(row.tvgName, in: text)
        upsertSeries.bind(row.logo, in: text)
        upsertSeries.bind(row.number, in: text)
        upsertSeries.bind(row.url, in: text)
        upsertSeries.bind(row.headers, in: text)
        upsertSeries.bind(row.catchupType, in: text)
        upsertSeries.bind(row.catchupDays)
        upsertSeries.bind(row.catchupSource, in: text)
        upsertSeries.bind(row.tvgShift)
        upsertSeries.bind(row.isRadio)
        upsertSeries.bind(row.providerID, in: text)
        upsertSeries.bind(row.position)
        upsertSeries.bind(generation)
        return try upsertSeries.step(db)
    }

    /// Upserts the row's group the first time the import names it.
    private func resolveGroup(_ row: ImportRow, _ text: UnsafeBufferPointer<UInt8>) throws {
        let index = Int(row.group)
        guard index >= groupIDs.count else { return }
        // The encoder numbers groups in order of first appearance.
        guard index == groupIDs.count else { throw CatalogError.unsupported("group out of order") }
        upsertGroup.reset()
        defer { upsertGroup.clearBindings() }
        upsertGroup.bind(sourceID)
        upsertGroup.bind(row.kind, in: text)
        upsertGroup.bind(row.groupName, in: text)
        upsertGroup.bind(generation)
        guard let id = try upsertGroup.step(db) else {
            throw CatalogError.unsupported("group upsert returned no id")
        }
        groupIDs.append(id)
    }
}
