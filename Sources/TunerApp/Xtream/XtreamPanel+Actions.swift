import Catalog
import Foundation
import Outputs

/// `player_api.php`, `get.php` and `xmltv.php`: what each answers, as values the controller encodes.
extension XtreamPanel {
    /// A `player_api.php` request: its query parameters by name (the first of each name).
    public struct APIRequest: Sendable {
        public var parameters: [String: String]

        public init(parameters: [String: String]) { self.parameters = parameters }

        public subscript(_ name: String) -> String? { parameters[name] }
    }

    /// A `player_api.php` answer.
    public enum APIAnswer: Sendable {
        /// The panel's own refusal (`{"user_info":{"auth":0}}`) for a wrong or throttled login,
        /// at once: players know no 401 or 429.
        case refused
        /// The action's answer, encoded as JSON.
        case value(any Encodable & Sendable)
    }

    /// Answers a `player_api.php` request: the account without an action, else the action's
    /// categories, streams, series or film details, or short guide. URLs are on `base`.
    public func answer(_ request: APIRequest, address: String, base: String) async throws -> APIAnswer {
        guard case .user(let user) = try await login(request["username"], request["password"], address: address),
            let password = request["password"]
        else {
            return .refused
        }
        let xtream = outputs.xtream(for: user, password: password, base: base)
        let category = request["category_id"]
        func id(_ name: String) throws(FeatureError) -> Int64 {
            guard let text = request[name], let value = Int64(text) else {
                throw FeatureError(.invalid, "\(name) must be a number")
            }
            return value
        }
        let action = request["action"] ?? ""
        // A disabled or expired login sees its account (`status: Disabled` or `Expired`, as panels
        // show it) and nothing else.
        if !action.isEmpty && user.isDisabled { throw Self.disabled }
        if !action.isEmpty && user.isExpired(at: Int64(Date().timeIntervalSince1970)) { throw Self.expired }
        switch request["action"] {
        case nil, "":
            let active = open.count(user.username) + liveStreams(user.username)
            return .value(xtream.account(user, activeConnections: active, now: Date()))
        case "get_live_categories":
            return .value(xtream.categories(try await lineup(of: user, .live)))
        case "get_vod_categories":
            return .value(
                xtream.categories(try await lineup(of: user, .movie))
                    + xtream.recordingCategories(try await recordings(), series: false))
        case "get_series_categories":
            return .value(
                xtream.categories(try await lineup(of: user, .series))
                    + xtream.recordingCategories(try await recordings(), series: true))
        case "get_live_streams":
            return .value(xtream.liveStreams(try await lineup(of: user, .live), category: category))
        case "get_vod_streams":
            return .value(
                xtream.vodStreams(try await lineup(of: user, .movie), category: category)
                    + xtream.recordingVODStreams(try await recordings(), category: category))
        case "get_series":
            return .value(
                xtream.series(try await lineup(of: user, .series), category: category)
                    + xtream.recordingSeries(try await recordings(), category: category))
        case "get_series_info" where try id("series_id") >= XtreamOutput.recordingIDBase:
            let rule = try id("series_id") - XtreamOutput.recordingIDBase
            let episodes = try await recordings().filter { $0.ruleID == rule }
            guard let first = episodes.first else { throw FeatureError(.notFound, "no series \(rule)") }
            return .value(xtream.recordingSeriesInfo(episodes, name: first.ruleName ?? first.title))
        case "get_vod_info" where try id("vod_id") >= XtreamOutput.recordingIDBase:
            let wanted = try id("vod_id")
            guard let recording = try await recordings().first(where: { $0.streamID == wanted }) else {
                throw FeatureError(.notFound, "no film \(wanted)")
            }
            return .value(xtream.recordingVODInfo(recording))
        case "get_series_info":
            let series = try await outputs.entry(try id("series_id"), of: user)
            return .value(xtream.seriesInfo(series, episodes: try await outputs.episodes(ofSeries: series.item.id)))
        case "get_vod_info":
            let movie = try await outputs.entry(try id("vod_id"), of: user)
            return .value(xtream.vodInfo(movie, details: try await outputs.movieDetails(movie.item.id)))
        case "get_short_epg", "get_simple_data_table":
            let table = action == "get_simple_data_table"
            let channel = try await outputs.entry(try id("stream_id"), of: user)
            let limit = request["limit"].flatMap { Int($0) }.map { min(max($0, 0), 1000) } ?? (table ? nil : 4)
            return .value(
                xtream.listings(
                    try await outputs.programmes(of: channel), of: channel, now: Int64(Date().timeIntervalSince1970),
                    limit: limit, table: table))
        case let action?:
            throw FeatureError(.invalid, "unknown action '\(action.prefix(40))'")
        }
    }

    /// The finished recordings every login sees (none without a DVR).
    private func recordings() async throws(FeatureError) -> [XtreamRecording] {
        try await dvr?.xtreamRecordings() ?? []
    }

    /// The login's lineup entries of one kind.
    private func lineup(of user: OutputUser, _ kind: CatalogItemKind) async throws(FeatureError) -> [OutputChannel] {
        try await outputs.lineup(of: user).filter { $0.item.kind == kind }
    }

    /// `get.php`: the login's M3U, live channels as `.ts` (`output` empty, `ts` or `mpegts`) or
    /// `.m3u8` (`m3u8` or `hls`), with the guide's URL on `base`.
    public func playlist(
        username: String?, password: String?, output: String?, address: String, base: String
    ) async throws -> String {
        let user = try await requireLogin(username, password, address: address)
        guard let password else { throw Self.wrongLogin }
        let xtream = outputs.xtream(for: user, password: password, base: base)
        let liveExtension: String
        switch output.map({ $0.lowercased() }) {
        case nil, ""?, "ts"?, "mpegts"?: liveExtension = "ts"
        case "m3u8"?, "hls"?: liveExtension = "m3u8"
        case let other?:
            throw FeatureError(.invalid, "output must be ts, m3u8 or hls, not '\(other.prefix(20))'")
        }
        let guideURL = "\(base)/xmltv.php?username=\(user.username)&password=\(password)"
        let channels = try await outputs.lineup(of: user)
        let episodes = try await outputs.storedEpisodes(of: channels)
        return xtream.playlist(channels, episodes: episodes, guideURL: guideURL, liveExtension: liveExtension)
    }

    /// `xmltv.php`: checks the login now (so a wrong one is refused before the answer starts) and
    /// gives what writes the login's guide, a piece at a time.
    public func guide(
        username: String?, password: String?, address: String, base: String
    ) async throws -> @Sendable (_ write: (String) async throws -> Void) async throws -> Void {
        let user = try await requireLogin(username, password, address: address)
        let outputs = outputs
        return { write in try await outputs.guide(of: user, base: base, write: write) }
    }
}
