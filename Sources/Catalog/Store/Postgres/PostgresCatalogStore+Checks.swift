import Foundation
import PostgresNIO

extension PostgresCatalogStore {
    public func recordStreamChecks(_ checks: [CatalogStreamCheck]) async throws {
        // The last check of an item wins, as SQLite's upserts one after the other make it; one
        // statement may not update a row twice.
        var last: [Int64: CatalogStreamCheck] = [:]
        for check in checks { last[check.itemID] = check }
        guard !last.isEmpty else { return }
        let ordered = last.values.sorted { $0.itemID < $1.itemID }
        let itemIDs = ordered.map(\.itemID)
        let online = ordered.map { Int64($0.online ? 1 : 0) }
        let checkedAt = ordered.map { $0.checkedAt.timeIntervalSince1970 }
        let reasons = ordered.map(\.reason)
        let logger = logger
        try await database.write { connection in
            // An item removed by a refresh while it was being probed is skipped, not an error: the
            // lock keeps it from going between this check and the insert.
            _ = try await connection.query(
                """
                INSERT INTO streamCheck (itemID, online, checkedAt, reason)
                SELECT c.itemID, c.online, c.checkedAt, c.reason
                FROM unnest(\(itemIDs)::BIGINT[], \(online)::BIGINT[], \(checkedAt)::DOUBLE PRECISION[],
                    \(reasons)::TEXT[]) AS c(itemID, online, checkedAt, reason)
                JOIN catalogItem i ON i.id = c.itemID
                ORDER BY c.itemID
                FOR KEY SHARE OF i
                ON CONFLICT (itemID) DO UPDATE SET online = excluded.online, checkedAt = excluded.checkedAt,
                    reason = excluded.reason
                """, logger: logger)
        }
    }

    public func streamItems(ids: [Int64]?, sourceID: Int64?, kind: CatalogItemKind?) async throws -> [CatalogItem] {
        if let ids, ids.isEmpty { return [] }
        let kind = kind?.rawValue
        let logger = logger
        return try await database.read { connection in
            // A filter given as NULL is no filter.
            let rows = try await connection.query(
                """
                SELECT \(unescaped: Self.itemColumns)
                FROM catalogItem i LEFT JOIN streamCheck c ON c.itemID = i.id
                WHERE i.url IS NOT NULL
                    AND (\(ids)::BIGINT[] IS NULL OR i.id = ANY(\(ids)::BIGINT[]))
                    AND (\(sourceID)::BIGINT IS NULL OR i.sourceID = \(sourceID)::BIGINT)
                    AND (\(kind)::TEXT IS NULL OR i.kind = \(kind)::TEXT)
                ORDER BY i.sourceID, i.position
                """, logger: logger)
            var items: [CatalogItem] = []
            for try await row in rows { items.append(try Self.item(from: row)) }
            return items
        }
    }
}
