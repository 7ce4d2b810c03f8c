import Catalog
import Foundation
import Hummingbird
import TunerApp

/// The catalog's JSON API under `/api/v1`: sources, channels (paged, filtered, searched),
/// favourites, and signed proxy URLs to play a channel with the headers its provider needs.
struct CatalogController {
    let engine: TunerEngine
    /// The base URL proxy URLs use when the request has no Host header.
    let fallbackBaseURL: @Sendable () -> String

    struct SourceRequest: Decodable {
        var location: String
        var name: String?
        /// `m3u` (default), `xmltv` or `xtream`.
        var kind: String?
        var username: String?
        var password: String?
        var epgURLs: [String]?
        /// Seconds between scheduled refreshes (default a day).
        var refreshInterval: Double?
    }

    /// A catalog value as the JSON body, without conforming Catalog's types to Hummingbird's protocols.
    struct Body<Value: Encodable & Sendable>: ResponseEncodable {
        var value: Value
        func encode(to encoder: any Encoder) throws { try value.encode(to: encoder) }
    }

    struct SourceList: ResponseEncodable { var sources: [CatalogSource] }
    struct Refreshed: ResponseEncodable {
        var source: CatalogSource?
        var counts: CatalogImportCounts
        /// The source's guide, imported after its items when it has guide URLs.
        var guide: GuideImportCounts? = nil
        /// Why the guide failed (the items were imported; the previous guide is kept).
        var guideError: String? = nil
    }
    struct Play: ResponseEncodable { var proxyURL: String; var item: CatalogItem }
    struct Message: ResponseEncodable { var message: String }

    func addRoutes(to router: Router<TunerRequestContext>) {
        let api = router.group("/api/v1")
        api.get("sources") { _, _ in SourceList(sources: try await engine.catalog.sources().map(\.forClients)) }
        api.post("sources", use: addSource)
        api.post("sources/:id/refresh", use: refresh)
        api.delete("sources/:id") { _, context in
            try await mapped { try await engine.catalog.removeSource(id: try context.parameters.require("id", as: Int64.self)) }
            return Message(message: "source removed")
        }
        api.get("channels", use: channels)
        api.get("channels/:id", use: item)
        api.get("channels/:id/play", use: play)
        api.put("channels/:id/favourite") { _, context in
            try await mapped { try await engine.catalog.setFavourite(itemID: try context.parameters.require("id", as: Int64.self), true) }
            return Message(message: "favourite added")
        }
        api.delete("channels/:id/favourite") { _, context in
            try await mapped { try await engine.catalog.setFavourite(itemID: try context.parameters.require("id", as: Int64.self), false) }
            return Message(message: "favourite removed")
        }
        addGuideRoutes(to: api)
        addLibraryRoutes(to: api)
    }

    @Sendable func addSource(request: Request, context: TunerRequestContext) async throws -> EditedResponse<Body<CatalogSource>> {
        let body: SourceRequest
        do {
            body = try await request.decode(as: SourceRequest.self, context: context)
        } catch {
            throw HTTPError(.badRequest, message: "the request body is not the expected JSON: \(error)")
        }
        // The server fetches only http(s), or reads a local file inside the files root: any other
        // location would read the server's disk or reach other services for whoever calls the API.
        let location = try checkedLocation(body.location)
        for url in body.epgURLs ?? [] { _ = try checkedLocation(url) }
        // A pasted panel URL (`…/player_api.php?username=…`) is an Xtream account even unsaid.
        let pastedPanel = body.kind == nil && body.location.lowercased().contains("/player_api.php")
        var draft = CatalogSourceDraft(
            kind: CatalogSourceKind(rawValue: body.kind ?? (pastedPanel ? "xtream" : "m3u")), name: body.name, location: location,
            epgURLs: body.epgURLs ?? [], refreshInterval: engine.configuration.catalogDefaultRefreshSeconds)
        if let interval = body.refreshInterval {
            guard interval > 0 else { throw HTTPError(.badRequest, message: "'refreshInterval' must be a positive number of seconds") }
            draft.refreshInterval = interval
        }
        if draft.kind == .xtream {
            guard let credentials = XtreamCredentials.parse(body.location, username: body.username, password: body.password) else {
                throw HTTPError(.badRequest, message: "an Xtream source needs 'username' and 'password' (or a pasted player_api.php URL with both)")
            }
            // The server alone as the location (and the name's origin): a pasted URL's query holds the password.
            draft = CatalogSourceDraft(
                kind: .xtream, name: body.name, location: credentials.server, xtream: credentials, epgURLs: draft.epgURLs,
                refreshInterval: draft.refreshInterval)
        }
        do {
            return EditedResponse(status: .created, response: Body(value: try await engine.catalog.addSource(draft).forClients))
        } catch {
            throw HTTPError(.badRequest, message: "\(error)")
        }
    }

    /// `location` as the importer may use it: an http(s) URL as it is, or a local file (a path or
    /// a `file:` URL) inside the files root, resolved. Anything else is a 400 (or 403 outside).
    func checkedLocation(_ location: String) throws -> String {
        if Self.isFetchable(location) { return location }
        var path = location
        if location.lowercased().hasPrefix("file:") {
            guard let url = URL(string: location), url.isFileURL else {
                throw HTTPError(.badRequest, message: "'\(location)' is not a file URL Tuner can read")
            }
            path = url.path
        }
        guard path.hasPrefix("/") else {
            throw HTTPError(.badRequest, message: "'\(location)' is neither an http(s) URL nor an absolute path to a local file")
        }
        do {
            return try engine.localFiles.fileToRead(path)
        } catch {
            throw HTTPError(.forbidden, message: error.description)
        }
    }

    /// An absolute http or https URL with a host.
    static func isFetchable(_ text: String) -> Bool {
        guard let url = URL(string: text), let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https",
              let host = url.host, !host.isEmpty
        else { return false }
        return true
    }

    @Sendable func refresh(request: Request, context: TunerRequestContext) async throws -> Refreshed {
        let id = try context.parameters.require("id", as: Int64.self)
        return try await mapped {
            guard let source = try await engine.catalog.source(id: id) else { throw CatalogError.sourceNotFound(id) }
            if source.kind == .xmltv {
                let guide = try await engine.catalogImporter.refreshGuide(sourceID: id, now: Int64(Date().timeIntervalSince1970))
                return Refreshed(source: try await engine.catalog.source(id: id)?.forClients, counts: CatalogImportCounts(live: guide.channels))
            }
            let counts = try await engine.catalogImporter.refresh(sourceID: id)
            var refreshed = Refreshed(source: try await engine.catalog.source(id: id)?.forClients, counts: counts)
            if let urls = refreshed.source?.epgURLs, !urls.isEmpty {
                do {
                    refreshed.guide = try await engine.catalogImporter.refreshGuide(sourceID: id, now: Int64(Date().timeIntervalSince1970))
                } catch {
                    refreshed.guideError = "\(error)"
                }
            }
            return refreshed
        }
    }

    @Sendable func channels(request: Request, context: TunerRequestContext) async throws -> Body<CatalogPage<CatalogItem>> {
        Body(value: try await engine.catalog.items(Self.itemQuery(request)))
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

    @Sendable func item(request: Request, context: TunerRequestContext) async throws -> Body<CatalogItem> {
        let id = try context.parameters.require("id", as: Int64.self)
        guard let item = try await engine.catalog.item(id: id) else { throw HTTPError(.notFound, message: "no channel with id \(id)") }
        return Body(value: item)
    }

    @Sendable func play(request: Request, context: TunerRequestContext) async throws -> Play {
        let id = try context.parameters.require("id", as: Int64.self)
        let base = request.head.authority.map { "http://\($0)" } ?? fallbackBaseURL()
        let link = try await Self.answering { try await engine.player.play(itemID: id, baseURL: base) }
        return Play(proxyURL: link.proxyURL, item: link.item)
    }

    /// A feature object's error as HTTP: what is missing is 404, what does not apply 409, bad input 400.
    static func answering<T>(_ body: () async throws -> T) async throws -> T {
        do {
            return try await body()
        } catch let error as PlayerError {
            let status: HTTPResponse.Status = switch error.kind {
            case .notFound: .notFound
            case .notPlayable: .conflict
            case .invalid: .badRequest
            }
            throw HTTPError(status, message: error.description)
        }
    }

    /// Catalog errors as HTTP: unknown ids are 404, what does not apply 409, failed imports 502 (the provider failed).
    func mapped<T>(_ body: () async throws -> T) async throws -> T {
        do {
            return try await body()
        } catch let error as CatalogError {
            throw HTTPError(error.isNotFound ? .notFound : error.isUnsupported ? .conflict : .badGateway, message: error.description)
        }
    }
}
