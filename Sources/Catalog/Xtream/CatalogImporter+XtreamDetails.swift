import Foundation

extension CatalogImporter {
    /// Loads the episodes of an Xtream series item (`get_series_info`) and stores them, replacing
    /// the ones it had: panels list episodes per series only, so they are fetched when a series is
    /// opened rather than during the import.
    @discardableResult
    public func loadXtreamEpisodes(seriesItemID: Int64) async throws -> [CatalogEpisode] {
        let (providerID, client) = try await xtreamItem(seriesItemID, kind: .series, prefix: "series:")
        let seriesID = String(providerID.dropFirst("series:".count))
        let info: XtreamClient.SeriesInfo = try await client.get(
            action: "get_series_info", parameters: [("series_id", seriesID)])
        var drafts: [CatalogEpisodeDraft] = []
        for (filedUnder, episode) in info.episodes {
            guard let id = episode.id?.string else { continue }
            drafts.append(
                CatalogEpisodeDraft(
                    season: episode.season?.int ?? filedUnder, episode: episode.episode_num?.int,
                    title: episode.title ?? id,
                    url: client.episodeURL(episodeID: id, container: episode.container_extension),
                    duration: episode.info?.duration_secs?.int.map(Double.init)
                ))
        }
        // Season, then episode number: panels list some seasons out of order. Ties keep the
        // panel's order.
        drafts = drafts.enumerated().sorted { left, right in
            let l = (left.element.season ?? Int.max, left.element.episode ?? Int.max, left.offset)
            let r = (right.element.season ?? Int.max, right.element.episode ?? Int.max, right.offset)
            return l < r
        }.map(\.element)
        try await store.replaceEpisodes(ofSeries: seriesItemID, with: drafts)
        return try await store.episodes(ofSeries: seriesItemID)
    }

    /// The episodes of a series item. A playlist's series has the episodes its import stored; an
    /// Xtream series loads them from the panel the first time (an import replaces them, so again
    /// after each refresh), or whenever `reload` is set.
    public func episodes(seriesItemID: Int64, reload: Bool = false) async throws -> [CatalogEpisode] {
        guard let item = try await store.item(id: seriesItemID) else { throw CatalogError.itemNotFound(seriesItemID) }
        guard item.kind == .series else {
            throw CatalogError.unsupported("item \(seriesItemID) is a \(item.kind.rawValue) item, not a series")
        }
        let stored = try await store.episodes(ofSeries: seriesItemID)
        guard reload || stored.isEmpty, try await store.source(id: item.sourceID)?.kind == .xtream else {
            return stored
        }
        return try await loadXtreamEpisodes(seriesItemID: seriesItemID)
    }

    /// Fetches a movie's details from its Xtream panel (`get_vod_info`: plot, cast, duration,
    /// container…) and stores them; when the panel's container differs from the one the listing
    /// gave, the item's stream URL is corrected too.
    @discardableResult
    public func loadXtreamMovieDetails(movieItemID: Int64) async throws -> CatalogMovieDetails {
        let (providerID, client) = try await xtreamItem(movieItemID, kind: .movie, prefix: "movie:")
        let streamID = String(providerID.dropFirst("movie:".count))
        let info: XtreamClient.VODInfo = try await client.get(
            action: "get_vod_info", parameters: [("vod_id", streamID)])
        guard info.info != nil || info.movie_data != nil else {
            throw CatalogError.fetchFailed("the panel has no details for movie \(streamID)")
        }
        let details = info.details
        var url: String?
        if let container = details.containerExtension {
            let corrected = client.movieURL(streamID: streamID, container: container)
            if try await store.item(id: movieItemID)?.url != corrected { url = corrected }
        }
        try await store.setMovieDetails(itemID: movieItemID, details, url: url)
        return details
    }

    /// A movie's stored details, fetched from its Xtream panel the first time they are asked for.
    public func movieDetails(itemID: Int64) async throws -> CatalogMovieDetails {
        if let stored = try await store.movieDetails(itemID: itemID) { return stored }
        return try await loadXtreamMovieDetails(movieItemID: itemID)
    }

    /// The next programmes of an Xtream live channel straight from the panel (`get_short_epg`),
    /// for channels the XMLTV guide does not cover. Not stored.
    public func xtreamShortEPG(channelItemID: Int64, limit: Int = 4) async throws -> [GuideProgramme] {
        let (providerID, client) = try await xtreamItem(channelItemID, kind: .live, prefix: "live:")
        let streamID = String(providerID.dropFirst("live:".count))
        let epg: XtreamClient.ShortEPG = try await client.get(
            action: "get_short_epg", parameters: [("stream_id", streamID), ("limit", String(limit))])
        return (epg.epg_listings ?? []).compactMap { listing in
            guard let start = listing.start_timestamp?.int, let stop = listing.stop_timestamp?.int, stop > start else {
                return nil
            }
            return GuideProgramme(
                id: Int64(listing.id?.int ?? 0), epgID: listing.channel_id ?? listing.epg_id?.string ?? "",
                start: Int64(start), stop: Int64(stop),
                title: XtreamClient.decodeBase64Text(listing.title) ?? "",
                description: XtreamClient.decodeBase64Text(listing.description)
            )
        }
    }

    /// The provider id of an Xtream item of `kind`, and a client for its account.
    private func xtreamItem(_ itemID: Int64, kind: CatalogItemKind, prefix: String) async throws -> (
        providerID: String, client: XtreamClient
    ) {
        guard let item = try await store.item(id: itemID) else { throw CatalogError.itemNotFound(itemID) }
        guard item.kind == kind, let source = try await store.source(id: item.sourceID),
            let credentials = source.xtream,
            let providerID = try await store.providerID(ofItem: itemID), providerID.hasPrefix(prefix)
        else {
            throw CatalogError.unsupported("item \(itemID) is not an Xtream \(kind) item")
        }
        return (
            providerID,
            XtreamClient(credentials: credentials, httpClient: httpClient, configuration: configuration, logger: logger)
        )
    }
}
