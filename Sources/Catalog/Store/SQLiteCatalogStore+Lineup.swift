import GRDB

/// An entry of ``CatalogStore/lineupItems(kinds:)``: the item and, for a favourite, its
/// place in the user's favourites order.
public struct LineupItem: Sendable, Hashable {
    public var item: CatalogItem
    public var favouritePosition: Int?
}

extension SQLiteCatalogStore {
    /// Every playable item of `kinds` (and every series: its episodes play), in catalogue order
    /// (source, then the provider's order), in one read: what output profiles select from. Stream
    /// checks are not read.
    public func lineupItems(kinds: [CatalogItemKind]) async throws -> [LineupItem] {
        guard !kinds.isEmpty else { return [] }
        return try await database.read { db in
            // Named columns cost a case fold per read in GRDB; by position, a 12,759-channel lineup
            // decodes in a few milliseconds.
            let rows = try Row.fetchCursor(
                db,
                sql: """
                    SELECT i.id, i.sourceID, i.kind, i.identity, i.name, i.groupName, i.tvgID, i.tvgName, i.logo,
                        i.number, i.url, i.headers, i.catchupType, i.catchupDays, i.catchupSource, i.tvgShift,
                        i.isRadio, i.position, f.position
                    FROM catalogItem i
                    LEFT JOIN catalogFavourite f ON f.kind = i.kind AND f.identity = i.identity
                    WHERE (i.url IS NOT NULL OR i.kind = 'series')
                        AND i.kind IN (\(databaseQuestionMarks(count: kinds.count)))
                    ORDER BY i.sourceID, i.position
                    """,
                arguments: StatementArguments(kinds.map(\.rawValue)))
            var items: [LineupItem] = []
            while let row = try rows.next() {
                let headers: String? = row[11]
                let catchupType: String? = row[12]
                let favourite: Int? = row[18]
                let item = CatalogItem(
                    id: row[0], sourceID: row[1], kind: CatalogItemKind(rawValue: row[2]), identity: row[3],
                    name: row[4], group: row[5], tvgID: row[6], tvgName: row[7], logo: row[8], number: row[9],
                    url: row[10], headers: headers == nil ? [] : try Self.decodeHeaders(headers),
                    catchup: catchupType.map { CatalogCatchup(type: $0, days: row[13], source: row[14]) },
                    tvgShift: row[15], isRadio: row[16], position: row[17], isFavourite: favourite != nil)
                items.append(LineupItem(item: item, favouritePosition: favourite))
            }
            return items
        }
    }
}
