import GRDB

/// An entry of ``SQLiteCatalogStore/lineupItems(kinds:)``: the item and, for a favourite, its
/// place in the user's favourites order.
public struct LineupItem: Sendable, Hashable {
    public var item: CatalogItem
    public var favouritePosition: Int?
}

extension SQLiteCatalogStore {
    /// Every playable item of `kinds`, in catalogue order (source, then the provider's order),
    /// in one read: what output profiles select from. Stream checks are not read.
    public func lineupItems(kinds: [CatalogItemKind]) async throws -> [LineupItem] {
        guard !kinds.isEmpty else { return [] }
        return try await database.read { db in
            let rows = try Row.fetchCursor(
                db,
                sql: """
                    SELECT i.*, f.position AS favouritePosition, f.position IS NOT NULL AS isFavourite
                    FROM catalogItem i
                    LEFT JOIN catalogFavourite f ON f.kind = i.kind AND f.identity = i.identity
                    WHERE i.url IS NOT NULL AND i.kind IN (\(databaseQuestionMarks(count: kinds.count)))
                    ORDER BY i.sourceID, i.position
                    """,
                arguments: StatementArguments(kinds.map(\.rawValue)))
            var items: [LineupItem] = []
            while let row = try rows.next() {
                items.append(LineupItem(item: try Self.item(from: row), favouritePosition: row["favouritePosition"]))
            }
            return items
        }
    }
}
