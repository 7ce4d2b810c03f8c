import Foundation
import GRDB

extension SQLiteCatalogStore {
    public func episode(id: Int64) async throws -> CatalogEpisode? {
        try await database.read { db in
            try Row.fetchOne(db, sql: "SELECT * FROM catalogEpisode WHERE id = ?", arguments: [id]).map { row in
                let headers: String? = row["headers"]
                return CatalogEpisode(
                    id: row["id"], seriesID: row["seriesID"], season: row["season"], episode: row["episode"],
                    title: row["title"],
                    url: row["url"], headers: try Self.decodeHeaders(headers), duration: row["duration"]
                )
            }
        }
    }
}
