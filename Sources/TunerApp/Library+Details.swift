import Catalog

/// What the library reads from a provider on demand: a film's details, a series' episodes, a
/// channel's short guide (Xtream panels), and the channel checks. Controllers call these, never
/// the importer or the checker.
extension Library {
    /// A film's details (plot, cast, length), from its Xtream panel the first time.
    public func movieDetails(itemID: Int64) async throws -> CatalogMovieDetails {
        try await importer.movieDetails(itemID: itemID)
    }

    /// A series' episodes, loaded from its panel the first time and, with `reload`, again.
    public func episodes(seriesItemID: Int64, reload: Bool = false) async throws -> [CatalogEpisode] {
        try await importer.episodes(seriesItemID: seriesItemID, reload: reload)
    }

    /// The next `limit` programmes of an Xtream channel, from its panel.
    public func xtreamShortEPG(channelItemID: Int64, limit: Int = 4) async throws -> [GuideProgramme] {
        try await importer.xtreamShortEPG(channelItemID: channelItemID, limit: limit)
    }

    /// Probes the streams of channels `ids` (or of source `sourceID`, or all) and stores which
    /// are online.
    public func checkChannels(ids: [Int64]? = nil, sourceID: Int64? = nil) async throws -> [CatalogStreamCheck] {
        guard let checker else { throw FeatureError(.failed, "channel checks are not available in this library") }
        return try await checker.check(ids: ids, sourceID: sourceID)
    }
}
