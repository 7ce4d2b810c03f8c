import Foundation
import Logging
import NIOCore
import PostgresNIO
import TunerStorage

/// Writes one import into PostgreSQL, inside the transaction of
/// ``PostgresCatalogStore/replaceItems(ofSource:produce:)``.
///
/// `produce` runs on a thread of its own (it is synchronous: parsing a playlist, or an Xtream
/// answer), adding to a ``PostgresImportSink`` that encodes rows into ``ImportBatch``es; bounded
/// batches stream meanwhile, with `COPY … FROM STDIN`, into a temporary staging table. Then a few
/// statements apply the import as SQLite's sink does: groups and items upserted by identity (an
/// item seen before keeps its row id), in order of appearance, episodes replaced, and what the
/// import did not see removed (rows of older generations).
///
/// Text goes in COPY's text format, escaped (backslash, tab, newline, carriage return). PostgreSQL
/// text cannot hold a NUL character, which SQLite can: a NUL in what the provider sent is stored as
/// U+FFFD (the replacement character) instead.
struct PostgresItemImport {
    let connection: PostgresConnection
    let sourceID: Int64
    let logger: Logger

    /// The staging table's columns, in COPY order.
    static let stagingTable = """
        CREATE TEMPORARY TABLE catalog_import (
            ord BIGINT, role SMALLINT, kind TEXT, identity TEXT, name TEXT, normalizedname TEXT,
            groupindex INTEGER, groupname TEXT, tvgid TEXT, tvgname TEXT, logo TEXT, number TEXT, url TEXT,
            headers TEXT, catchuptype TEXT, catchupdays BIGINT, catchupsource TEXT, tvgshift DOUBLE PRECISION,
            isradio BIGINT, providerid TEXT, position BIGINT, searchvector TSVECTOR, searchlength BIGINT,
            seriesindex INTEGER, season BIGINT, episode BIGINT, title TEXT, episodeurl TEXT, episodeheaders TEXT,
            duration DOUBLE PRECISION, episodeposition BIGINT
        ) ON COMMIT DROP
        """

    /// What a refresh does to an item seen before: it keeps its row id (and its stream check and
    /// details), and takes the new values.
    static let itemConflict = """
        ON CONFLICT (kind, identity, sourceID) DO UPDATE SET
            name = excluded.name, normalizedName = excluded.normalizedName, groupID = excluded.groupID,
            groupName = excluded.groupName, tvgID = excluded.tvgID, tvgName = excluded.tvgName,
            logo = excluded.logo, number = excluded.number, url = excluded.url, headers = excluded.headers,
            catchupType = excluded.catchupType, catchupDays = excluded.catchupDays,
            catchupSource = excluded.catchupSource, tvgShift = excluded.tvgShift, isRadio = excluded.isRadio,
            providerID = excluded.providerID, position = excluded.position, generation = excluded.generation,
            searchVector = excluded.searchVector, searchLength = excluded.searchLength
        """

    func run(_ produce: @escaping @Sendable (any CatalogImportSink) throws -> Void) async throws
        -> CatalogImportCounts
    {
        // FOR UPDATE: two nodes refreshing one source take turns.
        guard
            let current = try await connection.values(
                "SELECT generation FROM catalogSource WHERE id = \(sourceID) FOR UPDATE", as: Int64.self, logger: logger
            ).first
        else {
            throw CatalogError.sourceNotFound(sourceID)
        }
        let generation = current + 1
        // A source's first import has nothing to update or sweep: plain inserts, which spare
        // PostgreSQL a speculative insertion per row.
        let isFirst =
            try await connection.values(
                "SELECT NOT EXISTS (SELECT 1 FROM catalogItem WHERE sourceID = \(sourceID))", as: Bool.self,
                logger: logger
            ).first ?? false
        try await connection.query(
            "UPDATE catalogSource SET generation = \(generation) WHERE id = \(sourceID)", logger: logger)
        // Episodes have no identity of their own: they are replaced wholesale.
        try await connection.query(
            """
            DELETE FROM catalogEpisode
            WHERE seriesID IN (SELECT id FROM catalogItem WHERE sourceID = \(sourceID) AND kind = 'series')
            """, logger: logger)
        try await connection.query(PostgresQuery(unsafeSQL: Self.stagingTable), logger: logger)
        let counts = try await ImportPipeline<ImportBatch>.stream(
            produce: { emit in
                try withoutActuallyEscaping(emit) { emit in
                    let sink = PostgresImportSink(emit: emit)
                    defer { sink.close() }
                    try produce(sink)
                    try sink.flush()
                }
            },
            consume: { next in
                var counts = CatalogImportCounts()
                var order: Int64 = 0
                try await connection.copy(into: "catalog_import", logger: logger) { writer in
                    var rows = PostgresCopyText(capacity: 1 << 20)
                    var vectors = CatalogSearchTokenizer.VectorWriter()
                    while let batch = try await next() {
                        Self.encode(batch, into: &rows, order: &order, counts: &counts, vectors: &vectors)
                        try await writer.write(rows.take(reserving: rows.buffer.readableBytes))
                    }
                }
                return counts
            })
        guard counts.total > 0 else { throw CatalogError.emptyImport }
        try await apply(generation: generation, isFirst: isFirst)
        return counts
    }

    /// Moves the staged rows into the catalogue.
    private func apply(generation: Int64, isFirst: Bool) async throws {
        // Groups first, in order of first appearance, so that their ids follow it.
        try await connection.query(
            """
            INSERT INTO catalogGroup (sourceID, kind, name, generation)
            SELECT \(sourceID), kind, groupname, \(generation) FROM (
                SELECT DISTINCT ON (groupindex) groupindex, kind, groupname FROM catalog_import
                WHERE role <> 1 AND groupindex >= 0 ORDER BY groupindex, ord
            ) AS firstSeen
            ORDER BY groupindex
            ON CONFLICT (sourceID, kind, name) DO UPDATE SET generation = excluded.generation
            """, logger: logger)
        try await connection.query(
            """
            INSERT INTO catalogItem (sourceID, kind, identity, name, normalizedName, groupID, groupName, tvgID,
                tvgName, logo, number, url, headers, catchupType, catchupDays, catchupSource, tvgShift, isRadio,
                providerID, position, generation, searchVector, searchLength)
            SELECT \(sourceID), s.kind, s.identity, s.name, s.normalizedname, g.id, s.groupname, s.tvgid,
                s.tvgname, s.logo, s.number, s.url, s.headers, s.catchuptype, s.catchupdays, s.catchupsource,
                s.tvgshift, s.isradio, s.providerid, s.position, \(generation), s.searchvector, s.searchlength
            FROM catalog_import s
            LEFT JOIN catalogGroup g ON s.groupindex >= 0 AND g.sourceID = \(sourceID) AND g.kind = s.kind
                AND g.name = s.groupname
            WHERE s.role <> 1
            ORDER BY s.ord
            \(unescaped: isFirst ? "" : Self.itemConflict)
            """, logger: logger)
        try await connection.query(
            """
            INSERT INTO catalogEpisode (seriesID, season, episode, title, url, headers, duration, position)
            SELECT i.id, e.season, e.episode, e.title, e.episodeurl, e.episodeheaders, e.duration, e.episodeposition
            FROM catalog_import e
            JOIN catalog_import s ON s.role = 2 AND s.seriesindex = e.seriesindex
            JOIN catalogItem i ON i.sourceID = \(sourceID) AND i.kind = s.kind AND i.identity = s.identity
            WHERE e.role <> 0
            ORDER BY e.ord
            """, logger: logger)
        try await connection.query(
            "DELETE FROM catalogItem WHERE sourceID = \(sourceID) AND generation < \(generation)", logger: logger)
        try await connection.query(
            "DELETE FROM catalogGroup WHERE sourceID = \(sourceID) AND generation < \(generation)", logger: logger)
    }

    // MARK: - COPY text

    /// Appends the rows of `batch` as COPY text lines, numbering them from `order`.
    static func encode(
        _ batch: ImportBatch, into rows: inout PostgresCopyText, order: inout Int64,
        counts: inout CatalogImportCounts, vectors: inout CatalogSearchTokenizer.VectorWriter
    ) {
        batch.text.withUnsafeBufferPointer { text in
            /// The bytes of a text of the batch; nil for NULL (or a range outside the batch).
            func bytes(_ value: ImportText) -> UnsafeBufferPointer<UInt8>? {
                guard value.count >= 0, value.start >= 0, value.start + value.count <= text.count else { return nil }
                return UnsafeBufferPointer(rebasing: text[value.start..<(value.start + value.count)])
            }
            for row in batch.rows {
                counts.add(row)
                order += 1
                rows.integer(order)
                rows.integer(Int64(row.role.rawValue))
                if row.role != .episode {
                    // Field by field: an array literal here would allocate for every row.
                    rows.text(utf8: bytes(row.kind))
                    rows.text(utf8: bytes(row.identity))
                    rows.text(utf8: bytes(row.name))
                    rows.text(utf8: bytes(row.normalizedName))
                    rows.integer(Int64(row.group))
                    rows.text(utf8: bytes(row.groupName))
                    rows.text(utf8: bytes(row.tvgID))
                    rows.text(utf8: bytes(row.tvgName))
                    rows.text(utf8: bytes(row.logo))
                    rows.text(utf8: bytes(row.number))
                    rows.text(utf8: bytes(row.url))
                    rows.text(utf8: bytes(row.headers))
                    rows.text(utf8: bytes(row.catchupType))
                    rows.integer(row.catchupDays.map(Int64.init))
                    rows.text(utf8: bytes(row.catchupSource))
                    // NaN as NULL, as SQLite stores it.
                    rows.real(row.tvgShift.flatMap { $0.isNaN ? nil : $0 })
                    rows.integer(row.isRadio ? 1 : 0)
                    rows.text(utf8: bytes(row.providerID))
                    rows.integer(Int64(row.position))
                    // The words contain no tab, newline or backslash: the literal needs no escaping.
                    let length = rows.preformatted { buffer in
                        vectors.write(name: bytes(row.name), group: bytes(row.groupName), into: &buffer)
                    }
                    rows.integer(Int64(length))
                } else {
                    for _ in 0..<21 { rows.null() }
                }
                if row.role == .item {
                    for _ in 0..<8 { rows.null() }
                } else {
                    rows.integer(Int64(row.series))
                    rows.integer(row.season.map(Int64.init))
                    rows.integer(row.episode.map(Int64.init))
                    rows.text(utf8: bytes(row.title))
                    rows.text(utf8: bytes(row.episodeURL))
                    rows.text(utf8: bytes(row.episodeHeaders))
                    rows.real(row.duration.flatMap { $0.isNaN ? nil : $0 })
                    rows.integer(Int64(row.episodePosition))
                }
                rows.endRow()
            }
        }
    }
}

/// The sink ``PostgresItemImport`` hands `produce`: rows are encoded on the producing thread and
/// handed over a batch at a time.
final class PostgresImportSink: CatalogImportSink {
    private var emit: ((ImportBatch) throws -> Void)?
    private var encoder = ImportRowEncoder()
    private var pending = ImportBatch(capacity: ImportBatch.standardSize)
    private(set) var counts = CatalogImportCounts()

    init(emit: @escaping (ImportBatch) throws -> Void) {
        self.emit = emit
    }

    func add(_ item: CatalogItemDraft) throws {
        try encoder.encode(item, into: &pending)
        try added()
    }

    func add(_ episode: CatalogEpisodeDraft, of series: CatalogItemDraft) throws {
        try encoder.encode(episode, of: series, into: &pending)
        try added()
    }

    private func added() throws {
        counts.add(pending.rows[pending.rows.count - 1])
        if pending.isFull { try flush() }
    }

    /// Hands over what is pending.
    func flush() throws {
        guard !pending.rows.isEmpty else { return }
        guard let emit else { throw CatalogError.unsupported("adding to an import that has ended") }
        try emit(pending)
        pending = ImportBatch(capacity: ImportBatch.standardSize)
    }

    /// Ends the import: the sink no longer holds the pipeline's hand-over.
    func close() {
        emit = nil
    }
}

extension CatalogImportCounts {
    /// Counts a row as ``SQLiteImportSink`` does.
    mutating func add(_ row: ImportRow) {
        switch row.role {
        case .item:
            switch row.countedKind {
            case .live: live += 1
            case .movie: movies += 1
            case .series: series += 1
            case .other: break
            }
        case .episodeOfNewSeries:
            series += 1
            episodes += 1
        case .episode:
            episodes += 1
        }
    }
}
