import Foundation
import GRDB

extension SQLiteCatalogStore {
    public func setFavouriteOrder(itemIDs: [Int64]) async throws {
        try await database.write { db in
            var current = try Row.fetchAll(db, sql: "SELECT kind, identity FROM catalogFavourite ORDER BY position")
                .map { [$0["kind"], $0["identity"]] as [String] }
            let favourites = Set(current)
            var listed: [[String]] = []
            var seen: Set<[String]> = []
            for id in itemIDs {
                let (kind, identity) = try Self.key(db, itemID: id)
                let key = [kind, identity]
                guard favourites.contains(key) else { throw CatalogError.notFavourite(id) }
                // Two sources may carry the same channel (same identity): one favourite, listed once.
                if seen.insert(key).inserted { listed.append(key) }
            }
            // Favourites left out (among them those whose source is gone for now) keep their
            // relative order after the listed ones, rather than being dropped.
            current.removeAll { seen.contains($0) }
            let update = try db.cachedStatement(
                sql: "UPDATE catalogFavourite SET position = ? WHERE kind = ? AND identity = ?")
            for (index, key) in (listed + current).enumerated() {
                try update.execute(arguments: [index, key[0], key[1]])
            }
        }
    }
}
