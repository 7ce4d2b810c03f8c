import Foundation
import PostgresNIO

extension PostgresCatalogStore {
    public func movieDetails(itemID: Int64) async throws -> CatalogMovieDetails? {
        let logger = logger
        let json = try await database.read { connection in
            let rows = try await connection.query(
                "SELECT details FROM movieDetails WHERE itemID = \(itemID)", logger: logger
            ).collect()
            return try rows.first?.decode(String.self)
        }
        guard let json else { return nil }
        return try JSONDecoder().decode(CatalogMovieDetails.self, from: Data(json.utf8))
    }

    public func setMovieDetails(itemID: Int64, _ details: CatalogMovieDetails, url: String?) async throws {
        let json = String(decoding: try JSONEncoder().encode(details), as: UTF8.self)
        let fetchedAt = Date().timeIntervalSince1970
        let logger = logger
        try await database.write { connection in
            let kind = try await connection.query(
                "SELECT kind FROM catalogItem WHERE id = \(itemID) FOR NO KEY UPDATE", logger: logger
            ).collect()
            guard try kind.first?.decode(String.self) == CatalogItemKind.movie.rawValue else {
                throw CatalogError.itemNotFound(itemID)
            }
            try await connection.query(
                """
                INSERT INTO movieDetails (itemID, details, fetchedAt) VALUES (\(itemID), \(json), \(fetchedAt))
                ON CONFLICT (itemID) DO UPDATE SET details = excluded.details, fetchedAt = excluded.fetchedAt
                """, logger: logger)
            if let url {
                try await connection.query("UPDATE catalogItem SET url = \(url) WHERE id = \(itemID)", logger: logger)
            }
        }
    }

    public func replaceEpisodes(ofSeries seriesID: Int64, with episodes: [CatalogEpisodeDraft]) async throws {
        let encoder = JSONEncoder()
        let headers = try episodes.map { episode in
            episode.headers.isEmpty ? nil : String(decoding: try encoder.encode(episode.headers), as: UTF8.self)
        }
        let logger = logger
        try await database.write { connection in
            // Locked, so that a refresh removing the series waits rather than leaving orphans to fail on.
            let kind = try await connection.query(
                "SELECT kind FROM catalogItem WHERE id = \(seriesID) FOR KEY SHARE", logger: logger
            ).collect()
            guard try kind.first?.decode(String.self) == CatalogItemKind.series.rawValue else {
                throw CatalogError.itemNotFound(seriesID)
            }
            try await connection.query("DELETE FROM catalogEpisode WHERE seriesID = \(seriesID)", logger: logger)
            // Many rows per statement (a series has tens to hundreds of episodes); PostgreSQL takes
            // at most 65,535 parameters, so 1,000 rows of 8 at a time.
            var start = 0
            while start < episodes.count {
                let end = min(start + 1000, episodes.count)
                var binds = PostgresBindings(capacity: (end - start) * 8)
                var values: [String] = []
                for position in start..<end {
                    let episode = episodes[position]
                    let first = binds.count + 1
                    values.append("(" + (first..<first + 8).map { "$\($0)" }.joined(separator: ", ") + ")")
                    binds.append(seriesID)
                    binds.append(episode.season.map(Int64.init))
                    binds.append(episode.episode.map(Int64.init))
                    binds.append(episode.title)
                    binds.append(episode.url)
                    binds.append(headers[position])
                    binds.append(episode.duration)
                    binds.append(Int64(position))
                }
                // Only placeholders are built here; every value is a bound parameter.
                try await connection.query(
                    PostgresQuery(
                        unsafeSQL: """
                            INSERT INTO catalogEpisode (seriesID, season, episode, title, url, headers, duration,
                                position) VALUES \(values.joined(separator: ", "))
                            """, binds: binds), logger: logger)
                start = end
            }
        }
    }
}
