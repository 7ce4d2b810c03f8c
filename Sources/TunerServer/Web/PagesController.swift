import Catalog
import Foundation
import HTTPTypes
import Hummingbird
import Routing
import TunerAPI
import TunerApp

/// The web app: its pages (server-rendered HTML, paths from `Route`) and its assets under
/// `/assets/`. It only renders: every value comes from the feature objects (`Library`, the
/// catalog, `OutputCenter`, `CacheAdmin`), and the pages' scripts change things through the API.
struct PagesController {
    let engine: TunerEngine
    /// The base URL output links use when the request has no Host header.
    let fallbackBaseURL: @Sendable () -> String

    /// The page paths (besides the 404 page for the rest of the page space, see
    /// ``PageNotFoundMiddleware``).
    static let pagePaths = [
        "/", "tv", "favourites", "guide", "films", "films/:id", "shows", "shows/:id", "search", "downloads",
        "downloads/new", "recordings", "uploads", "sources", "sources/:id", "outputs", "streams", "cache", "settings",
        "channel/:id", "channel/:id/play",
        "episode/:id/play",
    ]

    /// What pages may load and where their scripts may connect: only Tuner itself, no inline
    /// script or style, no frames.
    static let contentSecurityPolicy =
        "default-src 'self'; img-src 'self' data:; media-src 'self' blob:; connect-src 'self'; "
        + "script-src 'self'; style-src 'self'; object-src 'none'; base-uri 'none'; frame-ancestors 'none'; "
        + "form-action 'self'"

    func addRoutes(to router: some RouterMethods<TunerRequestContext>) {
        router.get("assets/:name") { request, context in
            Self.asset(named: try context.parameters.require("name"), request: request)
        }
        // Unknown paths of the page space get the 404 page; the API and the other reserved spaces
        // keep their answers.
        _ = router.add(
            middleware: PageNotFoundMiddleware(render: { request, context in
                try await page(for: request, scope: Self.scope(of: context), port: context.channel.localAddress?.port)
            }))
        // Open without a session (the request guard lets it through): where a browser signs in.
        // `next` is checked here and handed to the page's module in the form, never read raw.
        router.get("login") { request, _ in
            Self.response(WebPages.signIn(next: SignInNext.safe(request.uri.queryParameters["next"].map(String.init))))
        }
        for path in Self.pagePaths {
            router.get(RouterPath(path)) { request, context in
                try await page(for: request, scope: Self.scope(of: context), port: context.channel.localAddress?.port)
            }
        }
    }

    /// An asset by its served name, with a strong ETag and a year's `immutable` lifetime (the
    /// name changes with the content); `If-None-Match` gets 304.
    static func asset(named name: String, request: Request) -> Response {
        guard let asset = WebAssets.byServedName[name] else {
            return Response(
                status: .notFound, headers: [.contentType: "text/plain; charset=utf-8", .cacheControl: "no-cache"],
                body: .init(
                    byteBuffer: ByteBuffer(string: "no such asset: the page is older than this Tuner; reload it\n")))
        }
        var headers: HTTPFields = [
            .eTag: asset.etag, .cacheControl: "public, max-age=31536000, immutable",
            .contentType: asset.contentType, .init("X-Content-Type-Options")!: "nosniff",
        ]
        if let match = request.headers[.ifNoneMatch],
            match.split(separator: ",").contains(where: {
                let tag = $0.trimmingCharacters(in: .whitespaces)
                return tag == asset.etag || tag == "W/" + asset.etag || tag == "*"
            })
        {
            return Response(status: .notModified, headers: headers)
        }
        headers[.contentLength] = String(asset.bytes.count)
        return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: asset.bytes)))
    }

    /// The API path whose rule the Outputs page follows.
    static let outputsAPIPath = try? RequestPath(normalising: "/api/v1/outputs")
    /// The API path whose rule the Settings page's keys follow.
    static let keysAPIPath = try? RequestPath(normalising: "/api/v1/keys")
    /// The API path whose rule the Settings page's backups follow.
    static let backupsAPIPath = try? RequestPath(normalising: "/api/v1/backups")

    /// What the signed-in browser may see: pages follow the API's scopes (a page with no
    /// principal, which the guard never lets through, would see the least).
    static func scope(of context: TunerRequestContext) -> AccessScope {
        context.principal?.scope ?? .read
    }

    /// The page for the request's path, as `Route` reads it, for a browser of `scope`; `port` is
    /// the one the request arrived on (the Settings page shows it: the configured one may be 0).
    func page(for request: Request, scope: AccessScope, port: Int?) async throws -> Response {
        let target = request.uri.path + (request.uri.query.map { "?" + $0 } ?? "")
        let route = Route(webPath: target)
        let page: WebPage
        var status = HTTPResponse.Status.ok
        switch route {
        case .home: page = try await liveTV(group: nil, favourites: false, search: "")
        case .liveTV(let group): page = try await liveTV(group: group, favourites: false, search: "")
        case .favourites: page = try await liveTV(group: nil, favourites: true, search: "")
        case .search(let query): page = try await liveTV(group: nil, favourites: false, search: query)
        case .channel(let id), .play(let id, _):
            let at: Int64? = if case .play(_, let time) = route { time } else { nil }
            if let item = try await engine.browse.item(id: id) {
                page = WebPages.player(item: item, at: at)
            } else {
                page = WebPage.notFound(path: route.webPath)
                status = .notFound
            }
        case .guide(let at): page = WebPages.guide(at: at)
        case .recordings: page = WebPages.recordings()
        case .downloads: page = WebPages.downloads(url: nil)
        case .download(let url): page = WebPages.downloads(url: url.absoluteString)
        case .sources, .source: page = WebPages.sources()
        case .streams: page = WebPages.streams()
        case .outputs: page = try await outputs(request, scope: scope)
        case .lineup(let profileID):
            (page, status) = try await lineup(profileID: profileID, scope: scope)
        case .cache: page = WebPages.cache(engine.cacheAdmin.statistics())
        case .settings:
            let needed = Self.backupsAPIPath.map { AccessRule.scope(for: .get, path: $0) } ?? .admin
            let keysNeeded = Self.keysAPIPath.map { AccessRule.scope(for: .get, path: $0) } ?? .admin
            page = WebPages.settings(
                engine.configuration, database: engine.databaseSummary, port: port,
                keys: scope >= keysNeeded ? try await engine.access.keys().map(APIKeyAnswer.init) : nil,
                backups: scope >= needed ? engine.backups.list() : nil, backupFolder: engine.backups.directory)
        case .films: page = try await library(kind: .movie)
        case .shows: page = try await library(kind: .series)
        case .film(let id), .show(let id):
            let kind: CatalogItemKind = if case .film = route { .movie } else { .series }
            if let item = try await engine.browse.item(id: id), item.kind == kind {
                page = WebPages.title(item: item)
            } else {
                page = WebPage.notFound(path: route.webPath)
                status = .notFound
            }
        case .episode(let id):
            if let episode = try await engine.browse.episode(id: id) {
                page = WebPages.player(episode: episode, series: try await engine.browse.item(id: episode.seriesID))
            } else {
                page = WebPage.notFound(path: route.webPath)
                status = .notFound
            }
        case .uploads: page = WebPages.uploads(maxSize: engine.configuration.uploadMaxSize)
        case .notFound(let path):
            page = WebPage.notFound(path: path)
            status = .notFound
        }
        return Self.response(page, status: status)
    }

    static func response(_ page: WebPage, status: HTTPResponse.Status = .ok) -> Response {
        let headers: HTTPFields = [
            .contentType: "text/html; charset=utf-8", .cacheControl: "no-cache",
            .contentSecurityPolicy: contentSecurityPolicy, .init("X-Content-Type-Options")!: "nosniff",
            .init("Referrer-Policy")!: "same-origin", .init("X-Frame-Options")!: "DENY",
        ]
        return Response(status: status, headers: headers, body: .init(byteBuffer: ByteBuffer(string: page.html.text)))
    }

    func liveTV(group: String?, favourites: Bool, search: String) async throws -> WebPage {
        WebPages.liveTV(
            groups: try await mergedGroups(kind: .live), group: group, favourites: favourites, search: search)
    }

    /// Films or Series: the groups of that kind (one entry per name across sources).
    func library(kind: CatalogItemKind) async throws -> WebPage {
        WebPages.library(kind: kind, groups: try await mergedGroups(kind: kind))
    }

    func mergedGroups(kind: CatalogItemKind) async throws -> [WebPages.GroupEntry] {
        let groups = try await engine.browse.groups(kind: kind, sourceID: nil)
        var merged: [String: Int] = [:]
        var order: [String] = []
        for entry in groups {
            if merged[entry.name] == nil { order.append(entry.name) }
            merged[entry.name, default: 0] += entry.itemCount
        }
        return order.map { WebPages.GroupEntry(name: $0, count: merged[$0] ?? 0) }
    }

    /// The output profiles; their keyed links only for `manage` and above, as the API's
    /// `/api/v1/outputs` (a link with `?key=` plays the profile, so it is a secret).
    func outputs(_ request: Request, scope: AccessScope) async throws -> WebPage {
        let profiles = try await engine.outputs.profiles()
        let needed = Self.outputsAPIPath.map { AccessRule.scope(for: .get, path: $0) } ?? .admin
        guard scope >= needed else {
            return WebPages.outputs(names: profiles.map { ($0.id, $0.name) })
        }
        let base = engine.configuration.baseURL ?? request.head.authority.map { "http://\($0)" } ?? fallbackBaseURL()
        var answers: [OutputProfileAnswer] = []
        for profile in profiles {
            answers.append(
                try await engine.outputs.answer(for: profile, base: base))
        }
        return WebPages.outputs(answers)
    }
}

extension PagesController {
    /// The lineup editor of a profile, for `admin` (who alone may read `/api/v1/outputs/…`).
    func lineup(profileID: String, scope: AccessScope) async throws -> (WebPage, HTTPResponse.Status) {
        let needed = Self.outputsAPIPath.map { AccessRule.scope(for: .get, path: $0) } ?? .admin
        guard scope >= needed else { return (WebPages.lineupNeedsAdmin(profileID: profileID), .forbidden) }
        guard let profile = try await engine.outputs.profiles().first(where: { $0.id == profileID }) else {
            return (WebPage.notFound(path: Route.lineup(profile: profileID).webPath), .notFound)
        }
        let sources = try await engine.library.sources().map { (id: $0.id, name: $0.name) }
        return (
            WebPages.lineup(
                profileID: profile.id, profileName: profile.name, pickedOnly: profile.selection.pickedOnly,
                sources: sources, groups: try await mergedGroups(kind: .live)),
            .ok
        )
    }
}

/// Answers a path of the page space that no route matched with the 404 page. The reserved spaces
/// (`/api/`, `/stream/`, outputs, assets, …) keep the router's plain 404.
struct PageNotFoundMiddleware: RouterMiddleware {
    typealias Context = TunerRequestContext

    let render: @Sendable (Request, TunerRequestContext) async throws -> Response

    /// First path segments that are not pages (lower-case): the server's own URL space.
    static let reserved: Set<String> = [
        "api", "stream", "play", "output", "assets", "metrics", "discover.json", "lineup.json", "lineup.xml",
        "lineup.m3u", "lineup_status.json", "lineup.post", "device.xml", "auto", "player_api.php", "get.php",
        "xmltv.php", "live", "movie", "series", "timeshift", "logos",
    ]

    static func isPage(_ path: String) -> Bool {
        let first = path.split(separator: "/", maxSplits: 1, omittingEmptySubsequences: true).first
        return first.map { !reserved.contains($0.lowercased()) } ?? true
    }

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws
        -> Response
    {
        do {
            return try await next(request, context)
        } catch let error as HTTPError where error.status == .notFound {
            guard request.method == .get || request.method == .head, Self.isPage(request.uri.path) else { throw error }
            return try await render(request, context)
        }
    }
}
