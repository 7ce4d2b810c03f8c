import Catalog
import Foundation
import Hummingbird
import Streaming
import TunerAPI
import TunerApp

/// The catalog routes of what a user keeps and browses: favourites in their own order, groups,
/// a series' seasons and episodes (each playable through the proxy) and an Xtream channel's
/// short EPG straight from the panel.
extension CatalogController {
    func addLibraryRoutes(to router: some RouterMethods<TunerRequestContext>) {
        router.add(.favourites, use: favourites)
        router.add(.orderFavourites, use: orderFavourites)
        router.add(.addFavourite, use: addFavourite)
        router.add(.removeFavourite) { _, context in
            let id = try context.parameters.require("id", as: Int64.self)
            try await engine.browse.setFavourite(itemID: id, false)
            guard let item = try await engine.browse.item(id: id) else {
                throw FeatureError(.notFound, "no channel with id \(id)")
            }
            return FavouriteAnswer(message: "favourite removed", item: ChannelAnswer(item), position: nil)
        }
        router.add(.groups, use: groups)
        router.add(.episodes, use: episodes)
        router.add(.playEpisode, use: playEpisode)
        router.add(.shortEPG, use: shortEPG)
    }

    /// `GET /favourites?kind&group&search&offset&limit`: every kind of favourite (unless `kind`
    /// says otherwise), in the user's order.
    @Sendable func favourites(request: Request, context: TunerRequestContext) async throws -> ChannelPage {
        var query = Self.itemQuery(request)
        query.favouritesOnly = true
        if request.uri.queryParameters["kind"] == nil { query.kind = nil }
        return ChannelPage(try await engine.browse.items(query))
    }

    /// `PUT /favourites/{id}` with an optional `{"position": N}`: adds a favourite (at the end, or
    /// at N, 0 being first); for a favourite already, moves it to N.
    @Sendable func addFavourite(request: Request, context: TunerRequestContext) async throws -> FavouriteAnswer {
        let id = try context.parameters.require("id", as: Int64.self)
        var body = FavouriteRequest()
        if Self.hasBody(request) {
            body = try await decodeJSON(FavouriteRequest.self, request, context)
        }
        if let position = body.position, position < 0 {
            throw FeatureError(.invalid, "'position' must be 0 (first) or more")
        }
        try await engine.browse.setFavourite(itemID: id, true)
        if let position = body.position { try await engine.browse.moveFavourite(itemID: id, to: position) }
        guard let item = try await engine.browse.item(id: id) else {
            throw FeatureError(.notFound, "no channel with id \(id)")
        }
        return FavouriteAnswer(
            message: "favourite added", item: ChannelAnswer(item), position: try await favouritePosition(of: item))
    }

    /// `PUT /favourites/order {"ids": [3, 1, 2]}`: those favourites first, in that order; the
    /// ones left out follow in their previous order.
    @Sendable func orderFavourites(request: Request, context: TunerRequestContext) async throws -> ChannelPage {
        let body = try await decodeJSON(FavouriteOrderRequest.self, request, context)
        guard !body.ids.isEmpty else {
            throw FeatureError(.invalid, "'ids' must list favourite ids in the order wanted")
        }
        var seen: Set<Int64> = []
        for id in body.ids where !seen.insert(id).inserted {
            throw FeatureError(.invalid, "id \(id) is listed twice in 'ids'; list each favourite once")
        }
        try await engine.browse.setFavouriteOrder(itemIDs: body.ids)
        return ChannelPage(
            try await engine.browse.items(CatalogItemQuery(kind: nil, favouritesOnly: true, limit: 1000)))
    }

    /// `GET /groups?kind=live|movie|series&source=N`: the groups to filter channels by, with how
    /// many items each holds.
    @Sendable func groups(request: Request, context: TunerRequestContext) async throws -> GroupList {
        let query = request.uri.queryParameters
        let kind = CatalogItemKind(rawValue: query["kind"].map(String.init) ?? "live")
        guard [.live, .movie, .series].contains(kind) else {
            throw FeatureError(.invalid, "'kind' must be live, movie or series, got '\(kind)'")
        }
        var sourceID: Int64?
        if let text = query["source"] {
            guard let id = Int64(String(text)) else {
                throw FeatureError(.invalid, "'source' must be a source id, got '\(text)'")
            }
            sourceID = id
        }
        return GroupList(groups: try await engine.browse.groups(kind: kind, sourceID: sourceID).map(GroupAnswer.init))
    }

    /// `GET /channels/{id}/episodes[?reload=true]`: a series' episodes by season. An Xtream
    /// series loads them from its panel (`get_series_info`) the first time and after a refresh.
    @Sendable func episodes(request: Request, context: TunerRequestContext) async throws -> EpisodesAnswer {
        let id = try context.parameters.require("id", as: Int64.self)
        let reload = request.uri.queryParameters["reload"].map { $0 == "true" || $0 == "1" } ?? false
        let episodes = try await engine.library.episodes(seriesItemID: id, reload: reload)
        guard let series = try await engine.browse.item(id: id) else {
            throw FeatureError(.notFound, "no channel with id \(id)")
        }
        var seasons: [EpisodesAnswer.Season] = []
        for episode in episodes {
            if let last = seasons.indices.last, seasons[last].season == episode.season {
                seasons[last].episodes.append(EpisodeAnswer(episode))
            } else if let index = seasons.firstIndex(where: { $0.season == episode.season }) {
                seasons[index].episodes.append(EpisodeAnswer(episode))
            } else {
                seasons.append(EpisodesAnswer.Season(season: episode.season, episodes: [EpisodeAnswer(episode)]))
            }
        }
        return EpisodesAnswer(series: ChannelAnswer(series), total: episodes.count, seasons: seasons)
    }

    /// `GET /episodes/{id}/play`: a signed proxy URL for an episode, with its headers (or its
    /// series' when it has none of its own).
    @Sendable func playEpisode(request: Request, context: TunerRequestContext) async throws -> EpisodePlayAnswer {
        let id = try context.parameters.require("id", as: Int64.self)
        guard let episode = try await engine.browse.episode(id: id) else {
            throw FeatureError(
                .notFound,
                "no episode with id \(id) (episodes are renumbered when their source is refreshed; list them again)"
            )
        }
        guard let url = URL(string: episode.url) else {
            throw FeatureError(.conflict, "episode \(id) has no usable URL")
        }
        let series = try await engine.browse.item(id: episode.seriesID)
        let headers = (episode.headers.isEmpty ? series?.headers ?? [] : episode.headers).map {
            StreamHeader(name: $0.name, value: $0.value)
        }
        let base = request.head.authority.map { "http://\($0)" } ?? fallbackBaseURL()
        do {
            return EpisodePlayAnswer(
                proxyURL: try engine.proxyURL(for: url, headers: headers, baseURL: base),
                episode: EpisodeAnswer(episode), series: series.map(ChannelAnswer.init))
        } catch {
            throw FeatureError(.invalid, error.description)
        }
    }

    /// `GET /channels/{id}/short-epg?limit=N`: the next programmes of an Xtream channel from its
    /// panel (`get_short_epg`, titles and descriptions base64-decoded), for accounts without a
    /// usable XMLTV guide. Asked of the panel each time; not stored.
    @Sendable func shortEPG(request: Request, context: TunerRequestContext) async throws -> ShortEPGAnswer {
        let id = try context.parameters.require("id", as: Int64.self)
        var limit = 4
        if let text = request.uri.queryParameters["limit"] {
            guard let value = Int(String(text)), (1...100).contains(value) else {
                throw FeatureError(.invalid, "'limit' must be a number from 1 to 100, got '\(text)'")
            }
            limit = value
        }
        let programmes = try await engine.library.xtreamShortEPG(channelItemID: id, limit: limit)
        return ShortEPGAnswer(itemID: id, programmes: programmes.map(ProgrammeAnswer.init))
    }

    // MARK: - Helpers

    /// Where `item` stands in the listing of favourites (0 is first).
    private func favouritePosition(of item: CatalogItem) async throws -> Int? {
        let page = try await engine.browse.items(CatalogItemQuery(kind: nil, favouritesOnly: true, limit: 1000))
        return page.items.firstIndex { $0.kind == item.kind && $0.identity == item.identity }
    }

    /// Whether the request carries a body (an optional JSON body may be left out).
    private static func hasBody(_ request: Request) -> Bool {
        if let length = request.headers[.contentLength] { return length != "0" }
        return request.headers[.transferEncoding] != nil
    }

    private func decodeJSON<T: Decodable>(_ type: T.Type, _ request: Request, _ context: TunerRequestContext)
        async throws -> T
    {
        do {
            return try await request.decode(as: type, context: context)
        } catch {
            throw FeatureError(.invalid, "the request body is not the expected JSON: \(error)")
        }
    }
}
