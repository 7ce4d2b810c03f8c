import Foundation
import PostgresNIO

/// A channel's alternatives on PostgreSQL, found and ordered as ``SQLiteCatalogStore`` finds them.
extension PostgresCatalogStore {
    /// The alternatives of channel `itemID`, best first: the ones the user set, in the user's
    /// order; otherwise live channels of other sources with the same `tvg-id`, then with the same
    /// normalised name (see ``SQLiteCatalogStore/channelMatchName(_:)``), in source order. At most
    /// `limit`.
    public func alternatives(of itemID: Int64, limit: Int = 8) async throws -> [CatalogItem] {
        guard let item = try await item(id: itemID) else { throw CatalogError.itemNotFound(itemID) }
        let chosen = try await chosenAlternatives(of: itemID)
        if !chosen.isEmpty { return Array(chosen.prefix(limit)) }
        let name = SQLiteCatalogStore.channelMatchName(item.name)
        // The name's longest word narrows the scan; names are compared normalised below.
        let word = SQLiteCatalogStore.matchWords(item.name).max { $0.count < $1.count }.map(String.init) ?? ""
        let pattern = "%" + word.filter { $0.isLetter || $0.isNumber } + "%"
        let tvgID = item.tvgID.flatMap { $0.isEmpty ? nil : $0 }
        let logger = logger
        let candidates = try await database.read { connection in
            // SQLite's LIKE and NOCASE fold ASCII letters only: so does translate(), so that the
            // same 500 candidates come back (ILIKE or lower() would fold "É" too).
            let rows = try await connection.query(
                """
                SELECT \(unescaped: Self.itemColumns)
                FROM catalogItem i LEFT JOIN streamCheck c ON false
                WHERE i.kind = 'live' AND i.sourceID <> \(item.sourceID) AND i.url IS NOT NULL
                    AND ((\(tvgID)::TEXT IS NOT NULL
                            AND translate(i.tvgID, \(Self.upper), \(Self.lower))
                                = translate(\(tvgID)::TEXT, \(Self.upper), \(Self.lower)))
                        OR translate(i.name, \(Self.upper), \(Self.lower)) LIKE \(pattern))
                ORDER BY i.sourceID, i.position
                LIMIT 500
                """, logger: logger)
            return try await Self.alternativeItems(rows)
        }
        let byID = candidates.filter { candidate in
            guard let tvgID, let other = candidate.tvgID, !other.isEmpty else { return false }
            return tvgID.caseInsensitiveCompare(other) == .orderedSame
        }
        let byName = candidates.filter { !name.isEmpty && SQLiteCatalogStore.channelMatchName($0.name) == name }
        var seen = Set<Int64>()
        return (byID + byName).filter { seen.insert($0.id).inserted }.prefix(limit).map { $0 }
    }

    /// The alternatives the user set for `itemID`, in order (empty: found automatically).
    public func chosenAlternatives(of itemID: Int64) async throws -> [CatalogItem] {
        let logger = logger
        return try await database.read { connection in
            let rows = try await connection.query(
                """
                SELECT \(unescaped: Self.itemColumns)
                FROM channelAlternative a JOIN catalogItem i ON i.id = a.alternativeID
                LEFT JOIN streamCheck c ON false
                WHERE a.itemID = \(itemID) ORDER BY a.position
                """, logger: logger)
            return try await Self.alternativeItems(rows)
        }
    }

    /// Sets the alternatives of `itemID` in order; an empty list goes back to automatic ones.
    /// Every id must be another live channel.
    public func setAlternatives(of itemID: Int64, to alternativeIDs: [Int64]) async throws {
        let logger = logger
        try await database.write { connection in
            // Locked, so that a refresh cannot remove a channel between this check and the insert.
            func isLive(_ id: Int64) async throws -> Bool {
                let rows = try await connection.query(
                    "SELECT kind FROM catalogItem WHERE id = \(id) FOR KEY SHARE", logger: logger
                ).collect()
                return try rows.first?.decode(String.self) == CatalogItemKind.live.rawValue
            }
            guard try await isLive(itemID) else { throw CatalogError.itemNotFound(itemID) }
            try await connection.query("DELETE FROM channelAlternative WHERE itemID = \(itemID)", logger: logger)
            for (position, id) in alternativeIDs.enumerated() {
                guard id != itemID, try await isLive(id) else { throw CatalogError.itemNotFound(id) }
                try await connection.query(
                    """
                    INSERT INTO channelAlternative (itemID, alternativeID, position)
                    VALUES (\(itemID), \(id), \(Int64(position))) ON CONFLICT DO NOTHING
                    """, logger: logger)
            }
        }
    }

    /// ASCII's capitals and small letters: `translate(x, upper, lower)` folds case as SQLite's NOCASE
    /// and LIKE do.
    private static let upper = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
    private static let lower = "abcdefghijklmnopqrstuvwxyz"

    /// Items of ``itemColumns`` as alternatives list them: as SQLite's query selects them, without
    /// their favourite mark or stream check.
    private static func alternativeItems(_ rows: PostgresRowSequence) async throws -> [CatalogItem] {
        var items: [CatalogItem] = []
        for try await row in rows {
            var item = try Self.item(from: row)
            item.isFavourite = false
            items.append(item)
        }
        return items
    }
}
