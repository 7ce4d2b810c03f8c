import Foundation
import Logging

extension CatalogImporter {
    /// Imports an Xtream Codes account: live streams, movies and series (episodes are listed per
    /// series on demand by the panel, so the import stores the series alone). Everything is
    /// fetched before the source's items are swapped in one transaction.
    func refreshXtream(
        _ source: CatalogSource,
        logger: Logger,
        progress: @escaping @Sendable (CatalogImportProgress) -> Void
    ) async throws -> CatalogImportCounts {
        guard let credentials = source.xtream else {
            throw CatalogError.unsupported("an Xtream source without credentials")
        }
        let client = XtreamClient(
            credentials: credentials, httpClient: httpClient, configuration: configuration, logger: logger)
        let sourceID = source.id
        let allowed = try await client.authenticate()
        if allowed != source.providerMaxConnections {
            try await store.setProviderMaxConnections(sourceID: sourceID, allowed)
        }
        progress(CatalogImportProgress(sourceID: sourceID, phase: .downloading))
        let liveCategories: [XtreamClient.Category] = try await client.get(action: "get_live_categories")
        let live: [XtreamClient.LiveStream] = try await client.get(action: "get_live_streams")
        let vodCategories: [XtreamClient.Category] = try await client.get(action: "get_vod_categories")
        let movies: [XtreamClient.VODStream] = try await client.get(action: "get_vod_streams")
        let seriesCategories: [XtreamClient.Category] = try await client.get(action: "get_series_categories")
        let series: [XtreamClient.Series] = try await client.get(action: "get_series")

        func names(_ categories: [XtreamClient.Category]) -> [String: String] {
            var result: [String: String] = [:]
            for category in categories {
                if let id = category.category_id?.string, let name = category.category_name { result[id] = name }
            }
            return result
        }
        let liveGroups = names(liveCategories)
        let vodGroups = names(vodCategories)
        let seriesGroups = names(seriesCategories)

        var drafts: [CatalogItemDraft] = []
        drafts.reserveCapacity(live.count + movies.count + series.count)
        for stream in live {
            guard let id = stream.stream_id?.string else { continue }
            var catchup: CatalogCatchup?
            if stream.tv_archive?.int == 1 {
                catchup = CatalogCatchup(type: "xc", days: stream.tv_archive_duration?.int)
            }
            drafts.append(
                CatalogItemDraft(
                    kind: .live, name: stream.name ?? id, group: stream.category_id?.string.flatMap { liveGroups[$0] },
                    tvgID: stream.epg_channel_id.flatMap { $0.isEmpty ? nil : $0 },
                    logo: stream.stream_icon.flatMap { $0.isEmpty ? nil : $0 },
                    number: stream.num?.string, url: client.liveURL(streamID: id), catchup: catchup,
                    providerID: "live:\(id)"
                ))
        }
        for movie in movies {
            guard let id = movie.stream_id?.string else { continue }
            drafts.append(
                CatalogItemDraft(
                    kind: .movie, name: movie.name ?? id, group: movie.category_id?.string.flatMap { vodGroups[$0] },
                    logo: movie.stream_icon.flatMap { $0.isEmpty ? nil : $0 },
                    url: client.movieURL(streamID: id, container: movie.container_extension), providerID: "movie:\(id)"
                ))
        }
        for show in series {
            guard let id = show.series_id?.string else { continue }
            drafts.append(
                CatalogItemDraft(
                    kind: .series, name: show.name ?? id, group: show.category_id?.string.flatMap { seriesGroups[$0] },
                    logo: show.cover.flatMap { $0.isEmpty ? nil : $0 }, providerID: "series:\(id)"
                ))
        }
        let items = drafts
        let counts = try await store.replaceItems(ofSource: sourceID) { sink in
            for item in items { try sink.add(item) }
        }
        if configuration.movieDetailsOnImport {
            await loadMissingMovieDetails(sourceID: sourceID, logger: logger)
        }
        if source.epgURLs.isEmpty {
            var updated = source
            updated.epgURLs = [client.guideURL]
            try await store.updateSource(updated)
        }
        return counts
    }

    /// Fetches the details of the source's movies that have none yet, four at a time. A movie
    /// the panel cannot describe is logged and skipped: details are extras, not the import.
    private func loadMissingMovieDetails(sourceID: Int64, logger: Logger) async {
        guard let movies = try? await store.streamItems(ids: nil, sourceID: sourceID, kind: .movie) else { return }
        var missing: [Int64] = []
        for movie in movies where (try? await store.movieDetails(itemID: movie.id)) == nil { missing.append(movie.id) }
        await withTaskGroup(of: Void.self) { group in
            var next = 0
            func startNext() {
                guard next < missing.count else { return }
                let id = missing[next]
                next += 1
                group.addTask {
                    do {
                        try await self.loadXtreamMovieDetails(movieItemID: id)
                    } catch {
                        logger.info("Movie details not loaded", metadata: ["item": "\(id)", "error": "\(error)"])
                    }
                }
            }
            for _ in 0..<4 { startNext() }
            for await _ in group { startNext() }
        }
    }
}
