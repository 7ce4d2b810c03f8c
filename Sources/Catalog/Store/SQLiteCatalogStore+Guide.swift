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
    /// the normalized name, else the automatic match by name; a channel of the item's own source
    /// wins over other guides. Resolved when read rather than stored, so a new mapping or a new
    /// guide applies at once.
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
        let noGuide = try db.cachedStatement(
            sql: "SELECT 1 FROM guideMapping WHERE kind = ? AND identity = ? AND epgID = ''")
        let byAutomaticMatch = try db.cachedStatement(
            sql: """
                SELECT gc.id, gc.sourceID FROM guideAutoMatch a JOIN guideChannel gc ON gc.epgID = a.epgID
                WHERE a.kind = ? AND a.identity = ?
                """)
        var result: [(itemID: Int64, channelID: Int64)] = []
        for itemID in itemIDs {
            guard let row = try Row.fetchOne(item, arguments: [itemID]) else { continue }
            let sourceID: Int64 = row["sourceID"]
            func pick(_ statement: Statement, _ arguments: StatementArguments) throws -> Int64? {
                let candidates = try Row.fetchAll(statement, arguments: arguments)
                let chosen = candidates.first { ($0["sourceID"] as Int64) == sourceID } ?? candidates.first
                return chosen?["id"]
            }
            // The user said "no guide": none, whatever the tvg-id and name say.
            if try Row.fetchOne(noGuide, arguments: [row["kind"], row["identity"]]) != nil { continue }
            var channelID = try pick(byMapping, [row["kind"], row["identity"]])
            if channelID == nil, let tvgID: String = row["tvgID"] {
                channelID = try pick(byEPGID, [tvgID])
            }
            if channelID == nil, let name: String = row["normalizedName"], !name.isEmpty {
                channelID = try pick(byName, [name])
            }
            if channelID == nil { channelID = try pick(byAutomaticMatch, [row["kind"], row["identity"]]) }
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

    public func itemIDsWithGuide(_ itemIDs: [Int64]) async throws -> Set<Int64> {
        try await database.read { db in Set(try Self.guideChannels(db, itemIDs: itemIDs).map(\.itemID)) }
    }

    /// Programmes longer than this are cut off at the start of a grid window.
    static let longestProgramme: Int64 = 86_400

    public func setGuideMapping(itemID: Int64, epgID: String?) async throws {
        try await database.write { db in
            let (kind, identity) = try Self.key(db, itemID: itemID)
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

    public func guideMatchWork() async throws -> GuideMatchWork {
        try await database.read { db in
            let channels = try Self.guideMatchChannels(db)
            guard !channels.isEmpty else { return GuideMatchWork(subjects: [], channels: []) }
            let rows = try Row.fetchAll(
                db,
                sql: """
                    SELECT i.id, i.kind, i.identity, i.name, i.groupName FROM catalogItem i
                    WHERE i.kind = 'live'
                      AND NOT EXISTS (SELECT 1 FROM guideMapping m WHERE m.kind = i.kind AND m.identity = i.identity)
                      AND (i.tvgID IS NULL OR NOT EXISTS (SELECT 1 FROM guideChannel gc WHERE gc.epgID = i.tvgID))
                      AND (i.normalizedName = ''
                           OR NOT EXISTS (SELECT 1 FROM guideChannel gc WHERE gc.normalizedName = i.normalizedName))
                    ORDER BY i.id
                    """)
            var refusals: [String: Set<String>] = [:]
            for row in try Row.fetchAll(db, sql: "SELECT kind, identity, epgID FROM guideMatchRefusal") {
                let key = (row["kind"] as String) + "\n" + (row["identity"] as String)
                refusals[key, default: []].insert((row["epgID"] as String).lowercased())
            }
            let subjects = rows.map { row in
                GuideMatchWork.Subject(
                    itemID: row["id"], kind: CatalogItemKind(rawValue: row["kind"]), identity: row["identity"],
                    name: row["name"], group: row["groupName"],
                    refused: refusals[(row["kind"] as String) + "\n" + (row["identity"] as String)] ?? [])
            }
            return GuideMatchWork(subjects: subjects, channels: channels)
        }
    }

    public func guideMatchChannels() async throws -> [GuideMatcher.Channel] {
        try await database.read { db in try Self.guideMatchChannels(db) }
    }

    static func guideMatchChannels(_ db: Database) throws -> [GuideMatcher.Channel] {
        try Row.fetchAll(db, sql: "SELECT epgID, name FROM guideChannel ORDER BY id").map { row in
            let epgID: String = row["epgID"]
            let name: String? = row["name"]
            return GuideMatcher.Channel(epgID: epgID, name: name ?? epgID)
        }
    }

    public func replaceAutomaticGuideMatches(_ matches: [GuideAutomaticMatch]) async throws {
        try await database.write { db in
            try db.execute(sql: "DELETE FROM guideAutoMatch")
            let insert = try db.cachedStatement(
                sql: "INSERT OR REPLACE INTO guideAutoMatch (kind, identity, epgID, score) VALUES (?, ?, ?, ?)")
            for match in matches {
                try insert.execute(arguments: [match.kind.rawValue, match.identity, match.epgID, match.score])
            }
        }
    }

    public func automaticGuideMatch(itemID: Int64) async throws -> GuideAutomaticMatch? {
        try await database.read { db in
            guard
                let row = try Row.fetchOne(
                    db,
                    sql: """
                        SELECT a.kind, a.identity, a.epgID, a.score FROM guideAutoMatch a
                        JOIN catalogItem i ON i.kind = a.kind AND i.identity = a.identity WHERE i.id = ?
                        """, arguments: [itemID])
            else { return nil }
            return GuideAutomaticMatch(
                kind: CatalogItemKind(rawValue: row["kind"]), identity: row["identity"], epgID: row["epgID"],
                score: row["score"])
        }
    }

    public func refuseGuideMatch(itemID: Int64, epgID: String) async throws {
        try await database.write { db in
            let (kind, identity) = try Self.key(db, itemID: itemID)
            try db.execute(
                sql: "INSERT OR IGNORE INTO guideMatchRefusal (kind, identity, epgID) VALUES (?, ?, ?)",
                arguments: [kind, identity, epgID])
            try db.execute(
                sql: "DELETE FROM guideAutoMatch WHERE kind = ? AND identity = ? AND epgID = ?",
                arguments: [kind, identity, epgID])
        }
    }

    public func refusedGuideMatches(itemID: Int64) async throws -> Set<String> {
        try await database.read { db in
            Set(
                try String.fetchAll(
                    db,
                    sql: """
                        SELECT r.epgID FROM guideMatchRefusal r
                        JOIN catalogItem i ON i.kind = r.kind AND i.identity = r.identity WHERE i.id = ?
                        """, arguments: [itemID]
                ).map { $0.lowercased() })
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
