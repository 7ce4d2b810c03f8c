import Foundation
import Logging
import PostgresNIO
import TunerStorage

/// The shared catalog store: PostgreSQL through postgres-nio, in a ``TunerPostgres`` that several
/// Tuner nodes may use at once. Answers as ``SQLiteCatalogStore`` does, method for method.
public final class PostgresCatalogStore: CatalogStore {
    let database: TunerPostgres
    let logger: Logger

    /// The catalog in `database`, which must have been opened with ``CatalogSchema``.
    public init(database: TunerPostgres, logger: Logger) {
        self.database = database
        self.logger = logger
    }

    // MARK: - Sources

    public func addSource(_ draft: CatalogSourceDraft) async throws -> CatalogSource {
        throw Self.notYet("sources")
    }

    public func sources() async throws -> [CatalogSource] {
        throw Self.notYet("sources")
    }

    public func source(id: Int64) async throws -> CatalogSource? {
        throw Self.notYet("sources")
    }

    public func removeSource(id: Int64) async throws {
        throw Self.notYet("sources")
    }

    public func updateSource(_ source: CatalogSource) async throws {
        throw Self.notYet("sources")
    }

    public func setSourceStatus(id: Int64, status: CatalogSourceStatus, error: String?, refreshedAt: Date?) async throws
    {
        throw Self.notYet("sources")
    }

    public func setProviderMaxConnections(sourceID: Int64, _ limit: Int?) async throws {
        throw Self.notYet("sources")
    }

    // MARK: - Import

    public func replaceItems(
        ofSource sourceID: Int64,
        produce: @escaping @Sendable (any CatalogImportSink) throws -> Void
    ) async throws -> CatalogImportCounts {
        throw Self.notYet("imports")
    }

    // MARK: - Items

    public func items(_ query: CatalogItemQuery) async throws -> CatalogPage<CatalogItem> {
        throw Self.notYet("items")
    }

    public func item(id: Int64) async throws -> CatalogItem? {
        throw Self.notYet("items")
    }

    public func episodes(ofSeries seriesID: Int64) async throws -> [CatalogEpisode] {
        throw Self.notYet("episodes")
    }

    public func episode(id: Int64) async throws -> CatalogEpisode? {
        throw Self.notYet("episodes")
    }

    public func groups(kind: CatalogItemKind, sourceID: Int64?) async throws -> [CatalogGroup] {
        throw Self.notYet("groups")
    }

    public func providerID(ofItem itemID: Int64) async throws -> String? {
        throw Self.notYet("items")
    }

    // lineupItems(kinds:) is in PostgresCatalogStore+Lineup.swift (written with the outputs' records).

    // MARK: - Favourites

    public func setFavourite(itemID: Int64, _ favourite: Bool) async throws {
        throw Self.notYet("favourites")
    }

    public func moveFavourite(itemID: Int64, to position: Int) async throws {
        throw Self.notYet("favourites")
    }

    public func setFavouriteOrder(itemIDs: [Int64]) async throws {
        throw Self.notYet("favourites")
    }
}
