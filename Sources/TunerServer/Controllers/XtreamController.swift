import Foundation
import HTTPTypes
import Hummingbird
import LiveTV
import Logging
import NIOCore
import Outputs
import Streaming
import TunerAPI
import TunerApp

/// The Xtream Codes output over HTTP, for players that take only a login (TiviMate, IPTV Smarters):
/// `player_api.php` (account, categories, streams, series and film details, short guides),
/// `get.php` (M3U), `xmltv.php`, and the stream paths `/live|movie|series/USER/PASS/ID.ext`.
/// ``XtreamPanel`` (TunerApp) decides every answer; this decodes requests and encodes answers.
/// A wrong login gets the panel's own refusal (`{"user_info":{"auth":0}}`), or 401 on other
/// paths; a throttled address `auth: 0`, or 429.
struct XtreamController {
    let engine: TunerEngine
    let fallbackBaseURL: @Sendable () -> String
    var panel: XtreamPanel { engine.xtream }

    func addRoutes(to router: some RouterMethods<TunerRequestContext>) {
        router.get("/player_api.php", use: playerAPI)
        router.post("/player_api.php", use: playerAPI)
        router.get("/get.php", use: playlist)
        router.get("/xmltv.php", use: guide)
        for kind in ["live", "movie", "series"] {
            router.get("/\(kind)/:user/:password/:file") { request, context in
                try await stream(kind: kind, request: request, context: context)
            }
            router.head("/\(kind)/:user/:password/:file") { request, context in
                try await stream(kind: kind, request: request, context: context)
            }
        }
        // A segment of a live channel's HLS: `/live/U/P/<stream id>/<session>/seg-<n>.ts`, named
        // relatively by the playlist `/live/U/P/<stream id>.m3u8` serves. (The router wants one
        // parameter name per position: the stream id is `file` here too.)
        // Catch-up: `/timeshift/U/P/MINUTES/YYYY-MM-DD:HH-MM/ID.ts`, from the provider or the
        // channel's local catch-up window.
        router.get("/timeshift/:user/:password/:minutes/:start/:file", use: catchup)
        router.head("/timeshift/:user/:password/:minutes/:start/:file", use: catchup)
        router.get("/live/:user/:password/:file/:session/:segment", use: segment)
        router.head("/live/:user/:password/:file/:session/:segment", use: segment)
        router.add(.users, use: listUsers)
        router.add(.addUser, use: addUser)
        router.add(.changeUser, use: changeUser)
        router.add(.removeUser, use: removeUser)
    }

    func base(_ request: Request) -> String {
        OutputController.base(request, configured: engine.configuration.baseURL, fallback: fallbackBaseURL)
    }

    @Sendable func playerAPI(request: Request, context: TunerRequestContext) async throws -> Response {
        var parameters: [String: String] = [:]
        for (name, value) in request.uri.queryParameters where parameters[String(name)] == nil {
            parameters[String(name)] = String(value)
        }
        let answer = try await panel.answer(
            XtreamPanel.APIRequest(parameters: parameters), address: LiveController.address(of: context),
            base: base(request))
        switch answer {
        case .refused: return Self.json(XtreamOutput.refused)
        case .value(let value): return try Self.json(value)
        }
    }

    @Sendable func playlist(request: Request, context: TunerRequestContext) async throws -> Response {
        let query = request.uri.queryParameters
        let text = try await panel.playlist(
            username: query["username"].map(String.init), password: query["password"].map(String.init),
            output: query["output"].map(String.init), address: LiveController.address(of: context),
            base: base(request))
        return OutputController.text(text, type: "audio/x-mpegurl; charset=utf-8")
    }

    @Sendable func guide(request: Request, context: TunerRequestContext) async throws -> Response {
        let query = request.uri.queryParameters
        let write = try await panel.guide(
            username: query["username"].map(String.init), password: query["password"].map(String.init),
            address: LiveController.address(of: context), base: base(request))
        return OutputController.guideResponse(request, produce: write)
    }

    func stream(kind: String, request: Request, context: TunerRequestContext) async throws -> Response {
        let file = try context.parameters.require("file")
        let (username, password) = try Self.pathLogin(context)
        let (user, play) = try await panel.play(
            kind: kind, file: file, username: username, password: password,
            address: LiveController.address(of: context))
        switch play {
        case .liveHLS(let id):
            return try await hlsPlaylist(id, of: user, request: request, context: context)
        case .live(let id):
            let live = LiveSessions.Request(
                channelID: id,
                profile: try LiveController.profile(
                    of: request, fallback: StreamProfile(rawValue: user.streamProfile) ?? .direct),
                address: LiveController.address(of: context), user: user.username, userLimit: user.maxConnections,
                priority: LiveSessions.Priority.outputUser)
            return try await LiveController.play(live, request, engine: engine)
        case .recording(let path):
            return try await RecordingsController.serve(path, request: request, context: context)
        case .link(let link):
            return await proxied(link, of: user, request: request, context: context)
        }
    }

    /// A film, an episode or a provider's catch-up through the proxy, counted in the login's open
    /// streams while its bytes flow.
    func proxied(
        _ link: StreamLink, of user: OutputUser, request: Request, context: TunerRequestContext
    ) async -> Response {
        let media = await engine.proxy.serve(
            link: link, method: request.method == .head ? .head : .get, range: request.headers[.range],
            ifRange: nil, requestID: context.id, proxyBase: base(request))
        var response = Response(media, channel: context.channel)
        let body = response.body
        let open = panel.open
        let username = user.username
        response.body = ResponseBody(contentLength: body.contentLength) { writer in
            open.opened(username)
            defer { open.closed(username) }
            try await body.write(writer)
        }
        return response
    }

    @Sendable func catchup(request: Request, context: TunerRequestContext) async throws -> Response {
        let (username, password) = try Self.pathLogin(context)
        let (user, playback) = try await panel.catchup(
            username: username, password: password, minutes: try context.parameters.require("minutes"),
            start: try context.parameters.require("start"), file: try context.parameters.require("file"),
            address: LiveController.address(of: context))
        switch playback {
        case .window(let window, let from, let to):
            return TimeshiftController.transportStream(window, from: from, to: to, head: request.method == .head)
        case .provider(let link):
            return await proxied(link, of: user, request: request, context: context)
        }
    }

    // MARK: HLS

    /// `/live/U/P/ID.m3u8`: the channel's MPEG-TS HLS session (one per channel and stream profile,
    /// shared by every login that plays it), its playlist with segment URIs relative to this path.
    func hlsPlaylist(
        _ id: Int64, of user: OutputUser, request: Request, context: TunerRequestContext
    ) async throws -> Response {
        // A HEAD opens nothing: players ask it before they play.
        if request.method == .head {
            return Response(
                status: .ok, headers: [.contentType: LiveHLSSession.playlistType, .cacheControl: "no-cache"])
        }
        let address = LiveController.address(of: context)
        var live = LiveSessions.Request(
            channelID: id,
            profile: try LiveController.profile(
                of: request, fallback: StreamProfile(rawValue: user.streamProfile) ?? .direct),
            address: address, user: user.username, userLimit: user.maxConnections,
            priority: LiveSessions.Priority.outputUser)
        if live.profile == .transcode { live.transcodeSize = try LiveController.transcodeSize(of: request) }
        let session = try await engine.liveChannels.hls(live, format: .mpegTS)
        guard let (data, type) = await session.file(session.format.playlistName, for: address, user: user.username)
        else {
            // Not busy: trying again at once may work, so no Retry-After.
            throw FeatureError(.busy, "the channel's HLS did not start; try its .ts URL", retryAfterSeconds: nil)
        }
        let playlist = LiveHLSSession.playlist(data, prefixingURIsWith: "\(id)/\(session.id)/")
        return LiveController.hlsFile(playlist, type: type, head: false)
    }

    /// A segment of a session a playlist request started; 404 once it left the window.
    @Sendable func segment(request: Request, context: TunerRequestContext) async throws -> Response {
        let (username, password) = try Self.pathLogin(context)
        let user = try await panel.requireLogin(username, password, address: LiveController.address(of: context))
        let file = try context.parameters.require("segment")
        guard let id = Int64(try context.parameters.require("file")),
            let session = engine.liveChannels.runningHLS(id: try context.parameters.require("session"), channelID: id),
            let (data, type) = await session.file(file, for: LiveController.address(of: context), user: user.username)
        else {
            throw FeatureError(.notFound, "'\(file.prefix(40))' is not (or no longer) part of a stream")
        }
        return LiveController.hlsFile(data, type: type, head: request.method == .head)
    }

    /// The login a stream path names (`/live/USER/PASS/…`), decoded: path segments arrive
    /// percent-encoded (clients encode more than they must: `%2D` for '-').
    static func pathLogin(_ context: TunerRequestContext) throws -> (username: String, password: String) {
        let name = try context.parameters.require("user")
        let password = try context.parameters.require("password")
        return (name.removingPercentEncoding ?? name, password.removingPercentEncoding ?? password)
    }

    // MARK: Users API

    func answer(_ user: OutputUser, _ request: Request) -> OutputUserAnswer {
        OutputUserAnswer(
            username: user.username, profiles: user.profileIDs, maxConnections: user.maxConnections,
            serverURL: base(request), streamProfile: user.streamProfile, expiresAt: user.expiresAt,
            disabled: user.isDisabled)
    }

    @Sendable func listUsers(request: Request, context: TunerRequestContext) async throws
        -> OutputController.Answer<
            OutputUserList
        >
    {
        let users = try await engine.outputs.users()
        return .init(value: OutputUserList(users: users.map { answer($0, request) }))
    }

    @Sendable func addUser(request: Request, context: TunerRequestContext) async throws -> EditedResponse<
        OutputController.Answer<OutputUserAnswer>
    > {
        let settings = try await Self.decode(request, context)
        let user = try await engine.outputs.addUser(settings)
        return EditedResponse(status: .created, response: .init(value: answer(user, request)))
    }

    @Sendable func changeUser(request: Request, context: TunerRequestContext) async throws
        -> OutputController.Answer<
            OutputUserAnswer
        >
    {
        let name = try context.parameters.require("name")
        let settings = try await Self.decode(request, context)
        guard settings.username == nil || settings.username == name else {
            throw FeatureError(.invalid, "a username cannot change; add a new user instead")
        }
        let user = try await engine.outputs.updateUser(name, settings)
        return .init(value: answer(user, request))
    }

    @Sendable func removeUser(request: Request, context: TunerRequestContext) async throws -> Response {
        let name = try context.parameters.require("name")
        try await engine.outputs.removeUser(name)
        return Response(status: .noContent)
    }

    static func decode(_ request: Request, _ context: TunerRequestContext) async throws -> OutputUserSettings {
        do {
            return try await request.decode(as: OutputUserSettings.self, context: context)
        } catch {
            throw FeatureError(.invalid, "the request body is not the expected JSON: \(error)")
        }
    }

    static func json(_ text: String) -> Response {
        OutputController.text(text, type: "application/json")
    }

    static func json(_ value: some Encodable) throws -> Response {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.withoutEscapingSlashes]
        return OutputController.text(
            String(decoding: try encoder.encode(value), as: UTF8.self), type: "application/json")
    }
}
