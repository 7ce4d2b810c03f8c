import Catalog
import Foundation
import Hummingbird
import TunerAPI
import TunerApp

/// The catalog's JSON API under `/api/v1`: sources, channels (paged, filtered, searched),
/// favourites, and signed proxy URLs to play a channel with the headers its provider needs.
struct CatalogController {
    let engine: TunerEngine
    /// The base URL proxy URLs use when the request has no Host header.
    let fallbackBaseURL: @Sendable () -> String

    /// A catalog value as the JSON body, without conforming Catalog's types to Hummingbird's protocols.
    struct Body<Value: Encodable & Sendable>: ResponseEncodable {
        var value: Value
        func encode(to encoder: any Encoder) throws { try value.encode(to: encoder) }
    }

    func addRoutes(to router: some RouterMethods<TunerRequestContext>) {
        router.add(.sources) { _, _ in SourceList(sources: try await engine.library.sources().map(SourceAnswer.init)) }
        router.add(.addSource, use: addSource)
        router.add(.refreshSource, use: refresh)
        router.add(.removeSource) { _, context in
            try await engine.library.removeSource(id: try context.parameters.require("id", as: Int64.self))
            return MessageAnswer(message: "source removed")
        }
        router.add(.channels, use: channels)
        router.add(.channel, use: item)
        router.add(.playChannel, use: play)
        router.add(.channelLogo, use: logo)
        router.add(.favouriteChannel) { _, context in
            try await engine.browse.setFavourite(
                itemID: try context.parameters.require("id", as: Int64.self), true)
            return MessageAnswer(message: "favourite added")
        }
        router.add(.unfavouriteChannel) { _, context in
            try await engine.browse.setFavourite(
                itemID: try context.parameters.require("id", as: Int64.self), false)
            return MessageAnswer(message: "favourite removed")
        }
        addGuideRoutes(to: router)
        addLibraryRoutes(to: router)
    }

    @Sendable func addSource(request: Request, context: TunerRequestContext) async throws -> EditedResponse<
        SourceAnswer
    > {
        let body: Library.NewSource
        do {
            body = try await request.decode(as: Library.NewSource.self, context: context)
        } catch {
            throw FeatureError(.invalid, "the request body is not the expected JSON: \(error)")
        }
        let source: CatalogSource
        do {
            source = try await engine.library.addSource(body)
        } catch let error as CatalogError {
            // The source cannot be stored as given (a location another source has): the request's fault.
            throw FeatureError(.invalid, error.description)
        }
        return EditedResponse(status: .created, response: SourceAnswer(source))
    }

    @Sendable func refresh(request: Request, context: TunerRequestContext) async throws -> RefreshAnswer {
        let id = try context.parameters.require("id", as: Int64.self)
        return RefreshAnswer(try await engine.library.refresh(sourceID: id))
    }

    @Sendable func channels(request: Request, context: TunerRequestContext) async throws -> ChannelPage {
        ChannelPage(try await engine.browse.items(Self.itemQuery(request)))
    }

    /// The channel filters shared by the listing and the guide: kind, group, search, source,
    /// favourites, offset and limit.
    static func itemQuery(_ request: Request) -> CatalogItemQuery {
        let query = request.uri.queryParameters
        var itemQuery = CatalogItemQuery(kind: .live)
        if let kind = query["kind"] { itemQuery.kind = kind == "all" ? nil : CatalogItemKind(rawValue: String(kind)) }
        itemQuery.group = query["group"].map(String.init)
        itemQuery.search = query["search"].map(String.init)
        itemQuery.sourceID = query["source"].flatMap { Int64(String($0)) }
        itemQuery.favouritesOnly = query["favourites"].map { $0 == "true" || $0 == "1" } ?? false
        itemQuery.offset = query["offset"].flatMap { Int(String($0)) } ?? 0
        itemQuery.limit = query["limit"].flatMap { Int(String($0)) } ?? 100
        return itemQuery
    }

    @Sendable func item(request: Request, context: TunerRequestContext) async throws -> ChannelAnswer {
        let id = try context.parameters.require("id", as: Int64.self)
        guard let item = try await engine.browse.item(id: id) else {
            throw FeatureError(.notFound, "no channel with id \(id)")
        }
        return ChannelAnswer(engine.player.withLocalCatchup(item))
    }

    @Sendable func play(request: Request, context: TunerRequestContext) async throws -> PlayAnswer {
        let id = try context.parameters.require("id", as: Int64.self)
        let base = request.head.authority.map { "http://\($0)" } ?? fallbackBaseURL()
        let link = try await engine.player.play(itemID: id, baseURL: base)
        return PlayAnswer(proxyURL: link.proxyURL, item: ChannelAnswer(link.item), hlsURL: link.hlsURL)
    }

    /// `GET /channels/{id}/logo`: a redirect to the logo's signed proxy URL, so a page shows logos
    /// through Tuner (and its cache) without knowing the provider's address. The redirect may be
    /// kept a day: the signed URL of a logo does not change.
    @Sendable func logo(request: Request, context: TunerRequestContext) async throws -> Response {
        let id = try context.parameters.require("id", as: Int64.self)
        let base = request.head.authority.map { "http://\($0)" } ?? fallbackBaseURL()
        let url = try await engine.player.logoURL(itemID: id, baseURL: base)
        return Response(status: .found, headers: [.location: url, .cacheControl: "private, max-age=86400"])
    }
}
