import Foundation
import GRDB

extension SQLiteCatalogStore {
    /// The stream check columns every item query selects (from `LEFT JOIN streamCheck c`).
    static let checkColumns = "c.online AS checkOnline, c.checkedAt AS checkedAt, c.reason AS checkReason"

    static func streamCheck(from row: Row) -> CatalogStreamCheck? {
        guard let online: Bool = row["checkOnline"], let checkedAt: Double = row["checkedAt"] else { return nil }
        return CatalogStreamCheck(
            itemID: row["id"], online: online, checkedAt: Date(timeIntervalSince1970: checkedAt),
            reason: row["checkReason"] ?? "")
    }

    public func recordStreamChecks(_ checks: [CatalogStreamCheck]) async throws {
        guard !checks.isEmpty else { return }
        try await database.write { db in
            let upsert = try db.cachedStatement(
                sql: """
                    INSERT INTO streamCheck (itemID, online, checkedAt, reason)
                    SELECT ?1, ?2, ?3, ?4 WHERE EXISTS (SELECT 1 FROM catalogItem WHERE id = ?1)
                    ON CONFLICT (itemID) DO UPDATE SET online = excluded.online, checkedAt = excluded.checkedAt,
                        reason = excluded.reason
                    """)
            // An item removed by a refresh while it was being probed is skipped, not an error.
            for check in checks {
                try upsert.execute(arguments: [
                    check.itemID, check.online, check.checkedAt.timeIntervalSince1970, check.reason,
                ])
            }
        }
    }

    public func streamItems(ids: [Int64]?, sourceID: Int64?, kind: CatalogItemKind?) async throws -> [CatalogItem] {
        try await database.read { db in
            var conditions = ["i.url IS NOT NULL"]
            var arguments = StatementArguments()
            if let ids {
                guard !ids.isEmpty else { return [] }
                conditions.append("i.id IN (\(databaseQuestionMarks(count: ids.count)))")
                _ = arguments.append(contentsOf: StatementArguments(ids))
            }
            if let sourceID {
                conditions.append("i.sourceID = ?")
                _ = arguments.append(contentsOf: [sourceID])
            }
            if let kind {
                conditions.append("i.kind = ?")
                _ = arguments.append(contentsOf: [kind.rawValue])
            }
            return try Row.fetchAll(
                db,
                sql: """
                    SELECT i.*,
                        EXISTS (SELECT 1 FROM catalogFavourite fav WHERE fav.kind = i.kind AND fav.identity =
                            i.identity) AS isFavourite,
                        \(Self.checkColumns)
                    FROM catalogItem i LEFT JOIN streamCheck c ON c.itemID = i.id
                    WHERE \(conditions.joined(separator: " AND "))
                    ORDER BY i.sourceID, i.position
                    """,
                arguments: arguments
            ).map(Self.item(from:))
        }
    }

    public func programme(id: Int64) async throws -> GuideProgramme? {
        try await database.read { db in
            try Row.fetchOne(
                db,
                sql:
                    """
                    SELECT \(Self.programmeColumns)
                    FROM guideProgramme p JOIN guideChannel gc ON gc.id = p.guideChannelID
                    WHERE p.id = ?
                    """,
                arguments: [id]
            ).map(Self.programme(from:))
        }
    }

    public func guideMapping(itemID: Int64) async throws -> String? {
        try await database.read { db in
            try String.fetchOne(
                db,
                sql:
                    """
                    SELECT m.epgID FROM guideMapping m JOIN catalogItem i ON i.kind = m.kind AND i.identity = \
                    m.identity WHERE i.id = ?
                    """,
                arguments: [itemID]
            )
        }
    }

    public func movieDetails(itemID: Int64) async throws -> CatalogMovieDetails? {
        try await database.read { db in
            guard
                let json = try String.fetchOne(
                    db, sql: "SELECT details FROM movieDetails WHERE itemID = ?", arguments: [itemID])
            else {
                return nil
            }
            return try JSONDecoder().decode(CatalogMovieDetails.self, from: Data(json.utf8))
        }
    }

    public func setMovieDetails(itemID: Int64, _ details: CatalogMovieDetails, url: String?) async throws {
        let json = try Self.encodeJSON(details)
        try await database.write { db in
            guard
                try String.fetchOne(db, sql: "SELECT kind FROM catalogItem WHERE id = ?", arguments: [itemID])
                    == CatalogItemKind.movie.rawValue
            else {
                throw CatalogError.itemNotFound(itemID)
            }
            try db.execute(
                sql: """
                    INSERT INTO movieDetails (itemID, details, fetchedAt) VALUES (?, ?, ?)
                    ON CONFLICT (itemID) DO UPDATE SET details = excluded.details, fetchedAt = excluded.fetchedAt
                    """,
                arguments: [itemID, json, Date().timeIntervalSince1970]
            )
            if let url {
                try db.execute(sql: "UPDATE catalogItem SET url = ? WHERE id = ?", arguments: [url, itemID])
            }
        }
    }
}
