import GRDB

extension SQLiteCatalogStore {
    public func replaceGuide(
        ofSource sourceID: Int64,
        produce: @escaping @Sendable (any GuideImportSink) throws -> Void
    ) async throws -> GuideImportCounts {
        try await database.write { db in
            let sink = try SQLiteGuideSink(db: db, sourceID: sourceID)
            try produce(sink)
            guard sink.counts.channels + sink.counts.programmes > 0 else { throw CatalogError.emptyImport }
            return sink.counts
        }
    }

    /// The guide channel of each item: the user's mapping, else the `tvg-id` (ignoring case), else
    /// the normalized name; a channel of the item's own source wins over other guides. Resolved
    /// when read rather than stored, so a new mapping or a new guide applies at once.
    static func guideChannels(_ db: Database, itemIDs: [Int64]) throws -> [(itemID: Int64, channelID: Int64)] {
        let item = try db.cachedStatement(
            sql: "SELECT kind, identity, sourceID, tvgID, normalizedName FROM catalogItem WHERE id = ?")
        let byMapping = try db.cachedStatement(
            sql: """
                SELECT gc.id, gc.sourceID FROM guideMapping m JOIN guideChannel gc ON gc.epgID = m.epgID
                WHERE m.kind = ? AND m.identity = ?
                """)
        let byEPGID = try db.cachedStatement(sql: "SELECT id, sourceID FROM guideChannel WHERE epgID = ?")
        let byName = try db.cachedStatement(sql: "SELECT id, sourceID FROM guideChannel WHERE normalizedName = ?")
        var result: [(itemID: Int64, channelID: Int64)] = []
        for itemID in itemIDs {
            guard let row = try Row.fetchOne(item, arguments: [itemID]) else { continue }
            let sourceID: Int64 = row["sourceID"]
            func pick(_ statement: Statement, _ arguments: StatementArguments) throws -> Int64? {
                let candidates = try Row.fetchAll(statement, arguments: arguments)
                let chosen = candidates.first { ($0["sourceID"] as Int64) == sourceID } ?? candidates.first
                return chosen?["id"]
            }
            var channelID = try pick(byMapping, [row["kind"], row["identity"]])
            if channelID == nil, let tvgID: String = row["tvgID"] {
                channelID = try pick(byEPGID, [tvgID])
            }
            if channelID == nil, let name: String = row["normalizedName"], !name.isEmpty {
                channelID = try pick(byName, [name])
            }
            if let channelID { result.append((itemID, channelID)) }
        }
        return result
    }

    public func nowNext(itemIDs: [Int64], at time: Int64) async throws -> [GuideNowNext] {
        try await database.read { db in
            let channels = try Self.guideChannels(db, itemIDs: itemIDs)
            let statement = try db.cachedStatement(
                sql: """
                    SELECT \(Self.programmeColumns)
                    FROM guideProgramme p JOIN guideChannel gc ON gc.id = p.guideChannelID
                    WHERE p.guideChannelID = ?1
                      AND p.start >= COALESCE((SELECT max(start) FROM guideProgramme WHERE guideChannelID = ?1 AND
                          start <= ?2), ?2)
                    ORDER BY p.start LIMIT 2
                    """)
            let byItem = Dictionary(channels.map { ($0.itemID, $0.channelID) }, uniquingKeysWith: { first, _ in first })
            return try itemIDs.compactMap { itemID in
                guard let channelID = byItem[itemID] else { return nil }
                let programmes = try Self.programmes(statement, arguments: [channelID, time])
                if let first = programmes.first, first.start <= time {
                    // The last programme to start may have ended already (a gap in the guide).
                    let now = first.stop > time ? first : nil
                    return GuideNowNext(itemID: itemID, now: now, next: programmes.count > 1 ? programmes[1] : nil)
                }
                return GuideNowNext(itemID: itemID, now: nil, next: programmes.first)
            }
        }
    }

    public func guide(itemIDs: [Int64], from: Int64, to: Int64) async throws -> [Int64: [GuideProgramme]] {
        let from = GuideTime.clamped(from)
        let to = GuideTime.clamped(to)
        return try await database.read { db in
            let channels = try Self.guideChannels(db, itemIDs: itemIDs)
            // The start bound keeps the scan on the (channel, start) index; no programme is
            // expected to run longer than a day.
            let statement = try db.cachedStatement(
                sql: """
                    SELECT \(Self.programmeColumns)
                    FROM guideProgramme p JOIN guideChannel gc ON gc.id = p.guideChannelID
                    WHERE p.guideChannelID = ? AND p.start >= ? AND p.start < ? AND p.stop > ?
                    ORDER BY p.start
                    """)
            var result: [Int64: [GuideProgramme]] = [:]
            for (itemID, channelID) in channels {
                result[itemID] = try Self.programmes(
                    statement, arguments: [channelID, from - Self.longestProgramme, to, from])
            }
            return result
        }
    }

    /// Programmes longer than this are cut off at the start of a grid window.
    static let longestProgramme: Int64 = 86_400

    public func setGuideMapping(itemID: Int64, epgID: String?) async throws {
        try await database.write { db in
            guard
                let row = try Row.fetchOne(
                    db, sql: "SELECT kind, identity FROM catalogItem WHERE id = ?", arguments: [itemID])
            else {
                throw CatalogError.itemNotFound(itemID)
            }
            let kind: String = row["kind"]
            let identity: String = row["identity"]
            if let epgID {
                try db.execute(
                    sql:
                        """
                        INSERT INTO guideMapping (kind, identity, epgID) VALUES (?, ?, ?) ON CONFLICT DO UPDATE \
                        SET epgID = excluded.epgID
                        """,
                    arguments: [kind, identity, epgID]
                )
            } else {
                try db.execute(
                    sql: "DELETE FROM guideMapping WHERE kind = ? AND identity = ?", arguments: [kind, identity])
            }
        }
    }

    @discardableResult
    public func pruneGuide(endingBefore time: Int64) async throws -> Int {
        try await database.write { db in
            try db.execute(sql: "DELETE FROM guideProgramme WHERE stop < ?", arguments: [time])
            return db.changesCount
        }
    }

    /// The columns ``programme(from:)`` reads, in its order (`p` the programme, `gc` its channel).
    static let programmeColumns = """
        p.id, gc.epgID, p.start, p.stop, p.title, p.subtitle, p.description, p.category, p.icon, p.season, \
        p.episode, p.catchupID
        """

    /// The programmes `statement` (over ``programmeColumns``) finds. Read from a cursor, whose rows
    /// GRDB decodes straight from SQLite's columns (copied rows take a slower, generic path).
    static func programmes(_ statement: Statement, arguments: StatementArguments) throws -> [GuideProgramme] {
        var programmes: [GuideProgramme] = []
        let rows = try Row.fetchCursor(statement, arguments: arguments)
        while let row = try rows.next() { programmes.append(programme(from: row)) }
        return programmes
    }

    /// A programme from a row of ``programmeColumns``. By position: a guide read decodes hundreds
    /// of thousands of these, and GRDB's lookup by name folds the column name's case every time.
    static func programme(from row: Row) -> GuideProgramme {
        GuideProgramme(
            id: row[0], epgID: row[1], start: row[2], stop: row[3], title: row[4], subtitle: row[5],
            description: row[6], category: row[7], icon: row[8], season: row[9], episode: row[10], catchupID: row[11]
        )
    }
}
