import Foundation
import Logging
import PostgresNIO
import TunerStorage

extension PostgresCatalogStore {
    /// Streams the guide through `COPY` into a staging table while the parser reads it (on a thread
    /// of its own, a few batches ahead), then swaps it in: the old guide of the source goes and the
    /// staged one takes its place, all in one transaction, so readers see the old guide until the
    /// new one is complete and a guide that fails or is empty changes nothing.
    public func replaceGuide(
        ofSource sourceID: Int64,
        produce: @escaping @Sendable (any GuideImportSink) throws -> Void
    ) async throws -> GuideImportCounts {
        let logger = logger
        return try await database.write { connection in
            // Also waits for another import of this source's guide, which would swap the same rows.
            let found = try await connection.query(
                "SELECT 1 FROM catalogSource WHERE id = \(sourceID) FOR NO KEY UPDATE", logger: logger
            ).collect()
            guard !found.isEmpty else { throw CatalogError.sourceNotFound(sourceID) }
            for statement in Self.guideStagingTables {
                try await connection.query(PostgresQuery(unsafeSQL: statement), logger: logger)
            }
            let (channels, counts) = try await ImportPipeline<PostgresGuideSink.Batch>.stream(
                produce: { emit in try PostgresGuideSink.run(produce, emit: emit) }
            ) { next in
                var finished: ([PostgresGuideSink.Channel], GuideImportCounts)?
                try await connection.copy(
                    into: "guide_stage_programme", columns: PostgresGuideSink.programmeColumns, logger: logger
                ) { writer in
                    while let batch = try await next() {
                        switch batch {
                        case .programmes(let rows): try await writer.write(rows)
                        case .finished(let channels, let counts): finished = (channels, counts)
                        }
                    }
                }
                guard let finished else { throw CancellationError() }
                return finished
            }
            guard counts.channels + counts.programmes > 0 else { throw CatalogError.emptyImport }
            try await connection.copy(
                into: "guide_stage_channel", columns: ["ordinal", "epgid", "name", "normalizedname", "icon"],
                logger: logger
            ) { writer in
                var rows = PostgresCopyText(capacity: 64 * 1024)
                for (ordinal, channel) in channels.enumerated() {
                    rows.integer(ordinal)
                    rows.text(channel.epgID)
                    rows.text(channel.name)
                    rows.text(channel.normalizedName)
                    rows.text(channel.icon)
                    rows.endRow()
                    if rows.buffer.readableBytes >= 60 * 1024 {
                        try await writer.write(rows.take(reserving: 64 * 1024))
                    }
                }
                if rows.buffer.readableBytes > 0 { try await writer.write(rows.buffer) }
            }
            try await Self.swapGuide(of: sourceID, programmes: counts.programmes, on: connection, logger: logger)
            return counts
        }
    }

    /// The staging tables of one guide import, gone when its transaction ends.
    static let guideStagingTables = [
        """
        CREATE TEMPORARY TABLE guide_stage_channel (
            ordinal BIGINT PRIMARY KEY, epgid TEXT NOT NULL, name TEXT, normalizedname TEXT, icon TEXT, id BIGINT
        ) ON COMMIT DROP
        """,
        """
        CREATE TEMPORARY TABLE guide_stage_programme (
            ordinal BIGINT NOT NULL, channel BIGINT NOT NULL, start BIGINT NOT NULL, stop BIGINT NOT NULL,
            title TEXT NOT NULL, subtitle TEXT, description TEXT, category TEXT, icon TEXT, season BIGINT,
            episode BIGINT, catchupid TEXT
        ) ON COMMIT DROP
        """,
    ]

    /// Replaces the source's guide with the staged one. Programmes are deleted before their
    /// channels, in one statement, rather than one cascade per channel.
    private static func swapGuide(
        of sourceID: Int64, programmes: Int, on connection: PostgresConnection, logger: Logger
    ) async throws {
        try await connection.query(
            """
            DELETE FROM guideProgramme
            WHERE guideChannelID IN (SELECT id FROM guideChannel WHERE sourceID = \(sourceID))
            """, logger: logger)
        try await connection.query("DELETE FROM guideChannel WHERE sourceID = \(sourceID)", logger: logger)
        // Two ids that Swift's lower-casing tells apart may still be one for the collation
        // (full-width letters): the first is kept, and programmes join by the collation below.
        try await connection.query(
            """
            INSERT INTO guideChannel (sourceID, epgID, name, normalizedName, icon)
            SELECT \(sourceID), epgid, name, normalizedname, icon FROM guide_stage_channel ORDER BY ordinal
            ON CONFLICT (sourceID, epgID) DO NOTHING
            """, logger: logger)
        try await connection.query(
            """
            UPDATE guide_stage_channel s SET id = gc.id FROM guideChannel gc
            WHERE gc.sourceID = \(sourceID) AND gc.epgID = s.epgid COLLATE catalog_nocase
            """, logger: logger)
        // Statistics, so that the planner hashes the few channels rather than guessing.
        try await connection.query("ANALYZE guide_stage_channel", logger: logger)
        guard programmes > 0 else { return }
        // Programme ids in the order the guide listed them (as SQLite's row ids are), so that
        // programmes starting together keep it. Taken as one block of the sequence, which the
        // lock keeps contiguous, rather than sorting the staged rows (a third of the insert's time).
        try await connection.query("SELECT pg_advisory_xact_lock(\(guideIDsLockKey))", logger: logger)
        let first = try await connection.query(
            "SELECT nextval(pg_get_serial_sequence('guideprogramme', 'id'))", logger: logger
        ).collect().first?.decode(Int64.self)
        guard let first else { throw CatalogError.unsupported("the database gave no programme id") }
        let last = first + Int64(programmes) - 1
        try await connection.query(
            "SELECT setval(pg_get_serial_sequence('guideprogramme', 'id'), \(last))", logger: logger)
        try await connection.query(
            """
            INSERT INTO guideProgramme (id, guideChannelID, start, stop, title, subtitle, description, category,
                icon, season, episode, catchupID)
            SELECT \(first) + p.ordinal, c.id, p.start, p.stop, p.title, p.subtitle, p.description, p.category,
                p.icon, p.season, p.episode, p.catchupid
            FROM guide_stage_programme p JOIN guide_stage_channel c ON c.ordinal = p.channel
            """, logger: logger)
    }

    /// The advisory lock under which a guide import takes its block of programme ids (any
    /// constant no other lock of Tuner's uses).
    static let guideIDsLockKey: Int64 = 0x6775_6964_6531_6473

    /// The guide channel of each item, as ``SQLiteCatalogStore/guideChannels(_:itemIDs:)`` finds it:
    /// the user's mapping, else the `tvg-id` (ignoring case), else the normalized name, else the
    /// automatic match by name; a channel of
    /// the item's own source wins, then the oldest. Items without one are left out.
    static func guideChannels(
        _ itemIDs: [Int64], on connection: PostgresConnection, logger: Logger
    ) async throws -> [Int64: Int64] {
        guard !itemIDs.isEmpty else { return [:] }
        let rows = try await connection.query(
            """
            SELECT i.id, CASE WHEN EXISTS (
                SELECT 1 FROM guideMapping m WHERE m.kind = i.kind AND m.identity = i.identity AND m.epgID = '')
            THEN NULL ELSE COALESCE(
                (SELECT gc.id FROM guideMapping m JOIN guideChannel gc ON gc.epgID = m.epgID
                 WHERE m.kind = i.kind AND m.identity = i.identity
                 ORDER BY gc.sourceID = i.sourceID DESC, gc.id LIMIT 1),
                (SELECT gc.id FROM guideChannel gc WHERE gc.epgID = i.tvgID COLLATE catalog_nocase
                 ORDER BY gc.sourceID = i.sourceID DESC, gc.id LIMIT 1),
                (SELECT gc.id FROM guideChannel gc WHERE i.normalizedName <> '' AND gc.normalizedName = i.normalizedName
                 ORDER BY gc.sourceID = i.sourceID DESC, gc.id LIMIT 1),
                (SELECT gc.id FROM guideAutoMatch a JOIN guideChannel gc ON gc.epgID = a.epgID
                 WHERE a.kind = i.kind AND a.identity = i.identity
                 ORDER BY gc.sourceID = i.sourceID DESC, gc.id LIMIT 1)) END
            FROM catalogItem i WHERE i.id = ANY(\(itemIDs))
            """, logger: logger)
        var channels: [Int64: Int64] = [:]
        for try await (itemID, channelID) in rows.decode((Int64, Int64?).self) {
            if let channelID { channels[itemID] = channelID }
        }
        return channels
    }

    public func nowNext(itemIDs: [Int64], at time: Int64) async throws -> [GuideNowNext] {
        let logger = logger
        return try await database.read { connection in
            let channels = try await Self.guideChannels(itemIDs, on: connection, logger: logger)
            let channelIDs = Array(Set(channels.values))
            // Per channel: the last programme to start at or before `time`, and the one after it.
            let rows = try await connection.query(
                """
                SELECT ch.id, \(unescaped: Self.programmeColumns)
                FROM unnest(\(channelIDs)::BIGINT[]) AS ch(id)
                CROSS JOIN LATERAL (
                    SELECT * FROM guideProgramme q
                    WHERE q.guideChannelID = ch.id AND q.start >= COALESCE(
                        (SELECT max(start) FROM guideProgramme WHERE guideChannelID = ch.id AND start <= \(time)),
                        \(time))
                    ORDER BY q.start, q.id LIMIT 2) p
                JOIN guideChannel gc ON gc.id = p.guideChannelID
                ORDER BY ch.id, p.start, p.id
                """, logger: logger)
            let byChannel = try await Self.programmesByFirstColumn(rows)
            return itemIDs.compactMap { itemID in
                guard let channelID = channels[itemID] else { return nil }
                let programmes = byChannel[channelID] ?? []
                if let first = programmes.first, first.start <= time {
                    // The last programme to start may have ended already (a gap in the guide).
                    let now = first.stop > time ? first : nil
                    return GuideNowNext(itemID: itemID, now: now, next: programmes.count > 1 ? programmes[1] : nil)
                }
                return GuideNowNext(itemID: itemID, now: nil, next: programmes.first)
            }
        }
    }

    public func itemIDsWithGuide(_ itemIDs: [Int64]) async throws -> Set<Int64> {
        let logger = logger
        return try await database.read { connection in
            Set(try await Self.guideChannels(itemIDs, on: connection, logger: logger).keys)
        }
    }

    public func guide(itemIDs: [Int64], from: Int64, to: Int64) async throws -> [Int64: [GuideProgramme]] {
        let from = GuideTime.clamped(from)
        let to = GuideTime.clamped(to)
        let logger = logger
        return try await database.read { connection in
            let channels = try await Self.guideChannels(itemIDs, on: connection, logger: logger)
            let channelIDs = Array(Set(channels.values))
            // The start bound keeps the scan on the (channel, start) index, as on SQLite.
            let earliest = from - SQLiteCatalogStore.longestProgramme
            let rows = try await connection.query(
                """
                SELECT p.guideChannelID, \(unescaped: Self.programmeColumns)
                FROM guideProgramme p JOIN guideChannel gc ON gc.id = p.guideChannelID
                WHERE p.guideChannelID = ANY(\(channelIDs)) AND p.start >= \(earliest) AND p.start < \(to)
                    AND p.stop > \(from)
                ORDER BY p.guideChannelID, p.start, p.id
                """, logger: logger)
            let byChannel = try await Self.programmesByFirstColumn(rows)
            return channels.mapValues { byChannel[$0] ?? [] }
        }
    }

    public func setGuideMapping(itemID: Int64, epgID: String?) async throws {
        let logger = logger
        try await database.write { connection in
            let (kind, identity) = try await Self.key(connection, itemID: itemID, logger: logger)
            if let epgID {
                try await connection.query(
                    """
                    INSERT INTO guideMapping (kind, identity, epgID) VALUES (\(kind), \(identity), \(epgID))
                    ON CONFLICT (kind, identity) DO UPDATE SET epgID = excluded.epgID
                    """, logger: logger)
            } else {
                try await connection.query(
                    "DELETE FROM guideMapping WHERE kind = \(kind) AND identity = \(identity)", logger: logger)
            }
        }
    }

    public func guideMapping(itemID: Int64) async throws -> String? {
        let logger = logger
        return try await database.read { connection in
            let rows = try await connection.query(
                """
                SELECT m.epgID FROM guideMapping m JOIN catalogItem i ON i.kind = m.kind AND i.identity = m.identity
                WHERE i.id = \(itemID)
                """, logger: logger
            ).collect()
            return try rows.first?.decode(String.self)
        }
    }

    public func guideMatchWork() async throws -> GuideMatchWork {
        let logger = logger
        return try await database.read { connection in
            let channels = try await Self.guideMatchChannels(on: connection, logger: logger)
            guard !channels.isEmpty else { return GuideMatchWork(subjects: [], channels: []) }
            // Read whole before the next query on this connection.
            var refusals: [String: Set<String>] = [:]
            let refused = try await connection.query(
                "SELECT kind, identity, epgID FROM guideMatchRefusal", logger: logger)
            for try await (kind, identity, epgID) in refused.decode((String, String, String).self) {
                refusals[kind + "\n" + identity, default: []].insert(epgID.lowercased())
            }
            let rows = try await connection.query(
                """
                SELECT i.id, i.kind, i.identity, i.name, i.groupName FROM catalogItem i
                WHERE i.kind = 'live'
                  AND NOT EXISTS (SELECT 1 FROM guideMapping m WHERE m.kind = i.kind AND m.identity = i.identity)
                  AND (i.tvgID IS NULL OR NOT EXISTS (
                      SELECT 1 FROM guideChannel gc WHERE gc.epgID = i.tvgID COLLATE catalog_nocase))
                  AND (i.normalizedName = ''
                       OR NOT EXISTS (SELECT 1 FROM guideChannel gc WHERE gc.normalizedName = i.normalizedName))
                ORDER BY i.id
                """, logger: logger)
            var subjects: [GuideMatchWork.Subject] = []
            for try await (id, kind, identity, name, group) in rows.decode(
                (Int64, String, String, String, String?).self)
            {
                subjects.append(
                    GuideMatchWork.Subject(
                        itemID: id, kind: CatalogItemKind(rawValue: kind), identity: identity, name: name, group: group,
                        refused: refusals[kind + "\n" + identity] ?? [])
                )
            }
            return GuideMatchWork(subjects: subjects, channels: channels)
        }
    }

    public func guideMatchChannels() async throws -> [GuideMatcher.Channel] {
        let logger = logger
        return try await database.read { connection in
            try await Self.guideMatchChannels(on: connection, logger: logger)
        }
    }

    static func guideMatchChannels(on connection: PostgresConnection, logger: Logger) async throws
        -> [GuideMatcher.Channel]
    {
        let rows = try await connection.query("SELECT epgID, name FROM guideChannel ORDER BY id", logger: logger)
        var channels: [GuideMatcher.Channel] = []
        for try await (epgID, name) in rows.decode((String, String?).self) {
            channels.append(GuideMatcher.Channel(epgID: epgID, name: name ?? epgID))
        }
        return channels
    }

    public func replaceAutomaticGuideMatches(_ matches: [GuideAutomaticMatch]) async throws {
        let logger = logger
        try await database.write { connection in
            try await connection.query("DELETE FROM guideAutoMatch", logger: logger)
            // In slices, so a statement's parameters stay far below PostgreSQL's limit.
            for start in stride(from: 0, to: matches.count, by: 5_000) {
                let slice = matches[start..<min(start + 5_000, matches.count)]
                try await connection.query(
                    """
                    INSERT INTO guideAutoMatch (kind, identity, epgID, score)
                    SELECT * FROM unnest(\(slice.map(\.kind.rawValue)), \(slice.map(\.identity)),
                        \(slice.map(\.epgID)), \(slice.map { Int64($0.score) }))
                    ON CONFLICT (kind, identity) DO UPDATE SET epgID = excluded.epgID, score = excluded.score
                    """, logger: logger)
            }
        }
    }

    public func automaticGuideMatch(itemID: Int64) async throws -> GuideAutomaticMatch? {
        let logger = logger
        return try await database.read { connection in
            let rows = try await connection.query(
                """
                SELECT a.kind, a.identity, a.epgID, a.score FROM guideAutoMatch a
                JOIN catalogItem i ON i.kind = a.kind AND i.identity = a.identity WHERE i.id = \(itemID)
                """, logger: logger)
            for try await (kind, identity, epgID, score) in rows.decode((String, String, String, Int64).self) {
                return GuideAutomaticMatch(
                    kind: CatalogItemKind(rawValue: kind), identity: identity, epgID: epgID, score: Int(score))
            }
            return nil
        }
    }

    public func refuseGuideMatch(itemID: Int64, epgID: String) async throws {
        let logger = logger
        try await database.write { connection in
            let (kind, identity) = try await Self.key(connection, itemID: itemID, logger: logger)
            try await connection.query(
                """
                INSERT INTO guideMatchRefusal (kind, identity, epgID) VALUES (\(kind), \(identity), \(epgID))
                ON CONFLICT DO NOTHING
                """, logger: logger)
            try await connection.query(
                """
                DELETE FROM guideAutoMatch WHERE kind = \(kind) AND identity = \(identity)
                    AND epgID = \(epgID) COLLATE catalog_nocase
                """, logger: logger)
        }
    }

    public func refusedGuideMatches(itemID: Int64) async throws -> Set<String> {
        let logger = logger
        return try await database.read { connection in
            let rows = try await connection.query(
                """
                SELECT r.epgID FROM guideMatchRefusal r
                JOIN catalogItem i ON i.kind = r.kind AND i.identity = r.identity WHERE i.id = \(itemID)
                """, logger: logger)
            var refused = Set<String>()
            for try await epgID in rows.decode(String.self) { refused.insert(epgID.lowercased()) }
            return refused
        }
    }

    @discardableResult
    public func pruneGuide(endingBefore time: Int64) async throws -> Int {
        let logger = logger
        return try await database.write { connection in
            let rows = try await connection.query(
                "WITH gone AS (DELETE FROM guideProgramme WHERE stop < \(time) RETURNING 1) SELECT count(*) FROM gone",
                logger: logger
            ).collect()
            return Int(try rows.first?.decode(Int64.self) ?? 0)
        }
    }

    public func programme(id: Int64) async throws -> GuideProgramme? {
        let logger = logger
        return try await database.read { connection in
            let rows = try await connection.query(
                """
                SELECT p.id, \(unescaped: Self.programmeColumns)
                FROM guideProgramme p JOIN guideChannel gc ON gc.id = p.guideChannelID WHERE p.id = \(id)
                """, logger: logger)
            return try await Self.programmesByFirstColumn(rows)[id]?.first
        }
    }

    /// The columns ``programmesByFirstColumn(_:)`` reads after its key (`p` the programme, `gc`
    /// its channel): those of ``SQLiteCatalogStore/programmeColumns``.
    static let programmeColumns = SQLiteCatalogStore.programmeColumns

    /// The programmes of `rows` (a key, then ``programmeColumns``), grouped by the key in order.
    static func programmesByFirstColumn(_ rows: PostgresRowSequence) async throws -> [Int64: [GuideProgramme]] {
        var programmes: [Int64: [GuideProgramme]] = [:]
        let columns = (
            Int64, Int64, String, Int64, Int64, String, String?, String?, String?, String?, Int?, Int?, String?
        ).self
        for try await row in rows.decode(columns) {
            let (key, id, epgID, start, stop, title, subtitle, description, category, icon, season, episode, catchup) =
                row
            programmes[key, default: []].append(
                GuideProgramme(
                    id: id, epgID: epgID, start: start, stop: stop, title: title, subtitle: subtitle,
                    description: description, category: category, icon: icon, season: season, episode: episode,
                    catchupID: catchup))
        }
        return programmes
    }
}
