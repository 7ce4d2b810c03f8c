import GRDB

/// Writes one guide import inside the transaction of ``SQLiteCatalogStore/replaceGuide(ofSource:produce:)``.
final class SQLiteGuideSink: GuideImportSink {
    private let db: Database
    private let sourceID: Int64
    private let insertChannel: Statement
    private let insertProgramme: Statement
    private var channelIDs: [String: Int64] = [:]
    private(set) var counts = GuideImportCounts()

    init(db: Database, sourceID: Int64) throws {
        self.db = db
        self.sourceID = sourceID
        guard try Bool.fetchOne(db, sql: "SELECT 1 FROM catalogSource WHERE id = ?", arguments: [sourceID]) != nil
        else {
            throw CatalogError.sourceNotFound(sourceID)
        }
        // Programmes go with their channels (cascade).
        try db.execute(sql: "DELETE FROM guideChannel WHERE sourceID = ?", arguments: [sourceID])
        insertChannel = try db.cachedStatement(
            sql: """
                INSERT INTO guideChannel (sourceID, epgID, name, normalizedName, icon) VALUES (?, ?, ?, ?, ?)
                ON CONFLICT (sourceID, epgID) DO UPDATE SET
                    name = COALESCE(guideChannel.name, excluded.name),
                    normalizedName = COALESCE(guideChannel.normalizedName, excluded.normalizedName),
                    icon = COALESCE(guideChannel.icon, excluded.icon)
                RETURNING id
                """)
        insertProgramme = try db.cachedStatement(
            sql: """
                INSERT INTO guideProgramme (guideChannelID, start, stop, title, subtitle, description, category,
                    icon, season, episode, catchupID)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                """)
    }

    func addChannel(epgID: String, name: String?, icon: String?) throws {
        let key = epgID.lowercased()
        let isNew = channelIDs[key] == nil
        channelIDs[key] = try Int64.fetchOne(
            insertChannel, arguments: [sourceID, epgID, name, name.map(CatalogIdentity.normalizedName), icon])
        if isNew { counts.channels += 1 }
    }

    func addProgramme(_ programme: GuideProgramme) throws {
        guard programme.stop > programme.start else {
            counts.skipped += 1
            return
        }
        let key = programme.epgID.lowercased()
        if channelIDs[key] == nil {
            // Guides may list programmes of channels they never declare.
            try addChannel(epgID: programme.epgID, name: nil, icon: nil)
        }
        try insertProgramme.execute(arguments: [
            channelIDs[key], programme.start, programme.stop, programme.title, programme.subtitle,
            programme.description, programme.category, programme.icon, programme.season, programme.episode,
            programme.catchupID,
        ])
        counts.programmes += 1
    }

    func skipProgramme() { counts.skipped += 1 }
}
