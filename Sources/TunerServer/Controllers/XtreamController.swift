import Foundation
import HTTPTypes
import Hummingbird
import LiveTV
import Logging
import NIOCore
import Outputs
import Synchronization
import TunerAPI
import TunerApp

/// The Xtream Codes output, for players that take only a login (TiviMate, IPTV Smarters):
/// `player_api.php` (account, categories, streams, series and film details, short guides),
/// `get.php` (M3U), `xmltv.php`, and the stream paths `/live|movie|series/USER/PASS/ID.ext`.
///
/// Logins are output users (`/api/v1/users`), never a provider's account. A wrong login gets the
/// panel's own refusal (`{"user_info":{"auth":0}}`, or 401 on other paths). The engine's
/// ``CredentialThrottle`` limits tries per address (then `auth: 0`, or 429, at once, without a
/// hash) and slows a username's wrong answers; hashes run on the outputs' fair pool.
struct XtreamController {
    let engine: TunerEngine
    let fallbackBaseURL: @Sendable () -> String
    let open = OpenStreams()

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

    /// What a login attempt came to.
    enum LoginOutcome {
        case user(OutputUser)
        /// A wrong name or password (already counted, and waited for when its name is guessed at).
        case wrong
        /// Refused without checking: the address failed too often; it may retry after this.
        case throttled(Duration)
    }

    /// Checks the login the request names through the engine's ``CredentialThrottle``: a throttled
    /// address is refused at once, without a hash; a wrong password waits its username's delay.
    func login(_ username: String?, _ password: String?, _ context: TunerRequestContext) async throws -> LoginOutcome {
        let address = context.channel.remoteAddress?.ipAddress ?? "unknown"
        let throttle = engine.credentialThrottle
        let ticket: CredentialThrottle.Machine.Ticket
        switch throttle.admit(address: address, username: username) {
        case .refused(let retryAfter):
            return .throttled(retryAfter)
        case .admitted(let admitted):
            ticket = admitted
        }
        if let username, let password,
            let user = try await engine.outputs.login(username, password: password, client: address)
        {
            throttle.succeeded(ticket)
            return .user(user)
        }
        let delay = throttle.failed(ticket)
        engine.logger.warning("Xtream login refused", metadata: ["address": "\(address)"])
        if delay > .zero { try await Task.sleep(for: delay) }
        return .wrong
    }

    /// The login for the paths other than `player_api.php`: 401 when wrong, 429 when throttled.
    func requireLogin(_ username: String?, _ password: String?, _ context: TunerRequestContext) async throws
        -> OutputUser
    {
        switch try await login(username, password, context) {
        case .user(let user):
            guard !user.isExpired(at: Int64(Date().timeIntervalSince1970)) else { throw Self.expired }
            return user
        case .wrong:
            throw FeatureError(.unauthenticated, "wrong username or password")
        case .throttled(let wait):
            throw Self.throttled(wait)
        }
    }

    /// The answer to an expired login (after the right password): its account still answers.
    static var expired: FeatureError { FeatureError(.forbidden, "this login has expired") }

    /// The answer to a throttled address: 429 with `Retry-After`.
    static func throttled(_ wait: Duration) -> FeatureError {
        FeatureError(
            .tooManyRequests, "too many wrong logins from this address: wait before trying again",
            retryAfterSeconds: CredentialThrottle.retryAfterSeconds(wait))
    }

    @Sendable func playerAPI(request: Request, context: TunerRequestContext) async throws -> Response {
        let query = request.uri.queryParameters
        let password = query["password"].map(String.init)
        guard case .user(let user) = try await login(query["username"].map(String.init), password, context),
            let password
        else {
            // A throttled address gets the panel's own refusal too, at once: players know no 429.
            return Self.json(XtreamOutput.refused)
        }
        let xtream = engine.outputs.xtream(for: user, password: password, base: base(request))
        let outputs = engine.outputs
        let category = query["category_id"].map(String.init)
        func id(_ name: Substring) throws -> Int64 {
            guard let text = query[name], let value = Int64(text) else {
                throw FeatureError(.invalid, "\(name) must be a number")
            }
            return value
        }
        let action = query["action"].map(String.init) ?? ""
        // An expired login sees its account (`status: Expired`, as panels show it) and nothing else.
        if !action.isEmpty && user.isExpired(at: Int64(Date().timeIntervalSince1970)) { throw Self.expired }
        switch query["action"].map(String.init) {
        case nil, "":
            return try Self.json(
                xtream.account(
                    user,
                    activeConnections: open.count(user.username) + engine.live.openStreams(user: user.username),
                    now: Date()))
        case "get_live_categories":
            return try Self.json(
                xtream.categories(try await outputs.lineup(of: user).filter { $0.item.kind == .live }))
        case "get_vod_categories":
            return try Self.json(
                xtream.categories(try await outputs.lineup(of: user).filter { $0.item.kind == .movie }))
        case "get_series_categories":
            return try Self.json(
                xtream.categories(try await outputs.lineup(of: user).filter { $0.item.kind == .series }))
        case "get_live_streams":
            return try Self.json(
                xtream.liveStreams(
                    try await outputs.lineup(of: user).filter { $0.item.kind == .live }, category: category))
        case "get_vod_streams":
            return try Self.json(
                xtream.vodStreams(
                    try await outputs.lineup(of: user).filter { $0.item.kind == .movie }, category: category))
        case "get_series":
            return try Self.json(
                xtream.series(
                    try await outputs.lineup(of: user).filter { $0.item.kind == .series }, category: category))
        case "get_series_info":
            let series = try await outputs.entry(try id("series_id"), of: user)
            return try Self.json(
                xtream.seriesInfo(series, episodes: try await outputs.episodes(ofSeries: series.item.id)))
        case "get_vod_info":
            let movie = try await outputs.entry(try id("vod_id"), of: user)
            return try Self.json(xtream.vodInfo(movie, details: try await outputs.movieDetails(movie.item.id)))
        case "get_short_epg", "get_simple_data_table":
            let table = query["action"] == "get_simple_data_table"
            let channel = try await outputs.entry(try id("stream_id"), of: user)
            let limit = query["limit"].flatMap { Int($0) }.map { min(max($0, 0), 1000) } ?? (table ? nil : 4)
            return try Self.json(
                xtream.listings(
                    try await outputs.programmes(of: channel), of: channel,
                    now: Int64(Date().timeIntervalSince1970),
                    limit: limit, table: table))
        case let action?:
            throw FeatureError(.invalid, "unknown action '\(action.prefix(40))'")
        }
    }

    @Sendable func playlist(request: Request, context: TunerRequestContext) async throws -> Response {
        let query = request.uri.queryParameters
        let password = query["password"].map(String.init)
        let user = try await requireLogin(query["username"].map(String.init), password, context)
        guard let password else { throw FeatureError(.unauthenticated, "wrong username or password") }
        let base = base(request)
        let xtream = engine.outputs.xtream(for: user, password: password, base: base)
        // Live channels as panels list them: `.ts` by default, `.m3u8` for output=m3u8 or hls.
        let liveExtension: String
        switch query["output"].map({ $0.lowercased() }) {
        case nil, ""?, "ts"?, "mpegts"?: liveExtension = "ts"
        case "m3u8"?, "hls"?: liveExtension = "m3u8"
        case let other?:
            throw FeatureError(.invalid, "output must be ts, m3u8 or hls, not '\(other.prefix(20))'")
        }
        let guideURL = "\(base)/xmltv.php?username=\(user.username)&password=\(password)"
        let outputs = engine.outputs
        let channels = try await outputs.lineup(of: user)
        let episodes = try await outputs.storedEpisodes(of: channels)
        return OutputController.text(
            xtream.playlist(channels, episodes: episodes, guideURL: guideURL, liveExtension: liveExtension),
            type: "audio/x-mpegurl; charset=utf-8")
    }

    @Sendable func guide(request: Request, context: TunerRequestContext) async throws -> Response {
        let query = request.uri.queryParameters
        let user = try await requireLogin(
            query["username"].map(String.init), query["password"].map(String.init), context)
        let outputs = engine.outputs
        let base = base(request)
        return OutputController.guideResponse(request) { write in
            try await outputs.guide(of: user, base: base, write: write)
        }
    }

    func stream(kind: String, request: Request, context: TunerRequestContext) async throws -> Response {
        let file = try context.parameters.require("file")
        let user = try await pathLogin(context)
        guard let id = Int64(file.prefix { $0 != "." }) else {
            throw FeatureError(.notFound, "'\(file.prefix(40))' is not a stream")
        }
        if kind == "live" {
            // Checks that the user's profiles hold the channel, then plays it through its session.
            _ = try await engine.outputs.entry(id, of: user)
            if file.lowercased().hasSuffix(".m3u8") {
                return try await hlsPlaylist(id, of: user, request: request, context: context)
            }
            let live = LiveSessions.Request(
                channelID: id,
                profile: try LiveController.profile(
                    of: request, fallback: StreamProfile(rawValue: user.streamProfile) ?? .direct),
                address: LiveController.address(of: context), user: user.username, userLimit: user.maxConnections,
                priority: LiveSessions.Priority.outputUser)
            return try await LiveController.play(live, request, engine: engine)
        }
        let link = try await engine.outputs.xtreamStream(id, episode: kind == "series", of: user)
        let media = await engine.streams.serve(
            link: link, method: request.method == .head ? .head : .get,
            range: kind == "live" ? nil : request.headers[.range], ifRange: nil, requestID: context.id,
            proxyBase: base(request))
        var response = Response(media, channel: context.channel)
        let body = response.body
        let open = open
        let username = user.username
        response.body = ResponseBody(contentLength: body.contentLength) { writer in
            open.opened(username)
            defer { open.closed(username) }
            try await body.write(writer)
        }
        return response
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
        let session = try await engine.live.hls(live, format: .mpegTS)
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
        let user = try await pathLogin(context)
        let file = try context.parameters.require("segment")
        guard let id = Int64(try context.parameters.require("file")),
            let session = engine.live.runningHLS(id: try context.parameters.require("session"), channelID: id),
            let (data, type) = await session.file(file, for: LiveController.address(of: context), user: user.username)
        else {
            throw FeatureError(.notFound, "'\(file.prefix(40))' is not (or no longer) part of a stream")
        }
        return LiveController.hlsFile(data, type: type, head: request.method == .head)
    }

    /// The login a stream path names (`/live/USER/PASS/…`), checked. Path segments arrive
    /// percent-encoded (clients encode more than they must: `%2D` for '-').
    func pathLogin(_ context: TunerRequestContext) async throws -> OutputUser {
        let name = try context.parameters.require("user")
        let password = try context.parameters.require("password")
        return try await requireLogin(
            name.removingPercentEncoding ?? name, password.removingPercentEncoding ?? password, context)
    }

    // MARK: Users API

    func answer(_ user: OutputUser, _ request: Request) -> OutputUserAnswer {
        OutputUserAnswer(
            username: user.username, profiles: user.profileIDs, maxConnections: user.maxConnections,
            serverURL: base(request), streamProfile: user.streamProfile, expiresAt: user.expiresAt)
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

/// Streams open per login (the panel's `active_cons`).
final class OpenStreams: Sendable {
    private let counts = Mutex<[String: Int]>([:])

    func opened(_ name: String) { counts.withLock { $0[name, default: 0] += 1 } }
    func closed(_ name: String) {
        counts.withLock { all in
            let left = (all[name] ?? 1) - 1
            all[name] = left > 0 ? left : nil
        }
    }
    func count(_ name: String) -> Int { counts.withLock { $0[name] ?? 0 } }
}
