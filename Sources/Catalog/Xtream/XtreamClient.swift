import AsyncHTTPClient
import Fetching
import Foundation
import Logging
import NIOCore

/// Reads an Xtream Codes account through `player_api.php`: categories, live streams, movies and
/// series, and builds their stream URLs.
struct XtreamClient: Sendable {
    let credentials: XtreamCredentials
    let httpClient: HTTPClient
    let configuration: CatalogImporter.Configuration
    let logger: Logger

    struct Category: Decodable, Sendable {
        var category_id: XtreamValue?
        var category_name: String?
    }

    struct LiveStream: Decodable, Sendable {
        var num: XtreamValue?
        var name: String?
        var stream_id: XtreamValue?
        var stream_icon: String?
        var epg_channel_id: String?
        var category_id: XtreamValue?
        var tv_archive: XtreamValue?
        var tv_archive_duration: XtreamValue?
    }

    struct VODStream: Decodable, Sendable {
        var name: String?
        var stream_id: XtreamValue?
        var stream_icon: String?
        var category_id: XtreamValue?
        var container_extension: String?
    }

    struct Series: Decodable, Sendable {
        var name: String?
        var series_id: XtreamValue?
        var cover: String?
        var category_id: XtreamValue?
    }

    struct SeriesInfo: Decodable, Sendable {
        struct Episode: Decodable, Sendable {
            struct Info: Decodable, Sendable { var duration_secs: XtreamValue? }
            var id: XtreamValue?
            var episode_num: XtreamValue?
            var title: String?
            var container_extension: String?
            var season: XtreamValue?
            var info: Info?

            enum CodingKeys: String, CodingKey { case id, episode_num, title, container_extension, season, info }

            init(from decoder: any Decoder) throws {
                let container = try decoder.container(keyedBy: CodingKeys.self)
                id = try container.decodeIfPresent(XtreamValue.self, forKey: .id)
                episode_num = try container.decodeIfPresent(XtreamValue.self, forKey: .episode_num)
                title = try? container.decodeIfPresent(String.self, forKey: .title)
                container_extension = try? container.decodeIfPresent(String.self, forKey: .container_extension)
                season = try container.decodeIfPresent(XtreamValue.self, forKey: .season)
                // `info` is `[]` on some panels when an episode has no details.
                info = try? container.decodeIfPresent(Info.self, forKey: .info)
            }
        }
        /// Every episode with the season it was filed under (`nil` when the panel gave none),
        /// in the panel's order. Panels send `episodes` as an object keyed by season whose values
        /// are lists (or, from PHP's sparse arrays, objects keyed by index), as a list of seasons'
        /// lists, as one flat list of episodes, or as `[]`/`null` when there are none.
        var episodes: [(season: Int?, episode: Episode)]

        enum CodingKeys: String, CodingKey { case episodes }

        /// A list of episodes written as a JSON array or as an object keyed by index.
        struct EpisodeList: Decodable, Sendable {
            var episodes: [Episode]
            init(from decoder: any Decoder) throws {
                let container = try decoder.singleValueContainer()
                if let list = try? container.decode([Episode].self) {
                    episodes = list
                } else if let keyed = try? container.decode([String: Episode].self) {
                    episodes = keyed.sorted { (Int($0.key) ?? 0, $0.key) < (Int($1.key) ?? 0, $1.key) }.map(\.value)
                } else {
                    episodes = []
                }
            }
        }

        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            if let bySeason = try? container.decode([String: EpisodeList].self, forKey: .episodes) {
                episodes = bySeason.sorted { (Int($0.key) ?? 0, $0.key) < (Int($1.key) ?? 0, $1.key) }
                    .flatMap { key, list in list.episodes.map { (Int(key), $0) } }
            } else if let seasons = try? container.decode([[Episode]].self, forKey: .episodes) {
                episodes = seasons.enumerated().flatMap { index, list in list.map { (index + 1, $0) } }
            } else if let flat = try? container.decode([Episode].self, forKey: .episodes) {
                episodes = flat.map { (nil, $0) }
            } else {
                episodes = []
            }
        }
    }

    /// `get_vod_info`: `info` holds the details (an empty `[]` on some panels when there are
    /// none), `movie_data` the stream; numbers arrive as strings or numbers.
    struct VODInfo: Decodable, Sendable {
        struct Info: Decodable, Sendable {
            var plot: String?
            var description: String?
            var cast: String?
            var actors: String?
            var director: String?
            var genre: String?
            var releasedate: String?
            var release_date: String?
            var duration_secs: XtreamValue?
            var duration: String?
            var rating: XtreamValue?
            var movie_image: String?
            var cover_big: String?
            var backdrop_path: BackdropList?
            var youtube_trailer: String?
            var tmdb_id: XtreamValue?
        }
        struct MovieData: Decodable, Sendable {
            var stream_id: XtreamValue?
            var name: String?
            var container_extension: String?
        }
        /// Panels send `backdrop_path` as a list of URLs or as one string.
        struct BackdropList: Decodable, Sendable {
            var urls: [String]
            init(from decoder: any Decoder) throws {
                let container = try decoder.singleValueContainer()
                if let list = try? container.decode([String].self) {
                    urls = list
                } else if let single = try? container.decode(String.self) {
                    urls = single.isEmpty ? [] : [single]
                } else {
                    urls = []
                }
            }
        }
        var info: Info?
        var movie_data: MovieData?

        enum CodingKeys: String, CodingKey { case info, movie_data }

        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            info = try? container.decode(Info.self, forKey: .info)
            movie_data = try? container.decode(MovieData.self, forKey: .movie_data)
        }

        var details: CatalogMovieDetails {
            // Field by field: one expression of this many optionals is too much for the type checker.
            func text(_ value: String?) -> String? { value.flatMap { $0.isEmpty ? nil : $0 } }
            var details = CatalogMovieDetails()
            guard let info else {
                details.containerExtension = text(movie_data?.container_extension)
                return details
            }
            details.plot = text(info.plot) ?? text(info.description)
            details.cast = text(info.cast) ?? text(info.actors)
            details.director = text(info.director)
            details.genre = text(info.genre)
            details.releaseDate = text(info.releasedate) ?? text(info.release_date)
            details.durationSeconds = info.duration_secs?.int ?? info.duration.flatMap(Self.seconds(ofDuration:))
            details.rating = info.rating?.text.flatMap(Double.init)
            details.containerExtension = text(movie_data?.container_extension)
            details.poster = text(info.movie_image) ?? text(info.cover_big)
            details.backdrops = info.backdrop_path?.urls ?? []
            details.trailer = text(info.youtube_trailer)
            details.tmdbID = info.tmdb_id?.string
            return details
        }

        /// `"01:52:10"` → 6730.
        static func seconds(ofDuration text: String) -> Int? {
            let parts = text.split(separator: ":").map { Int($0) }
            guard !parts.isEmpty, parts.count <= 3, !parts.contains(nil) else { return nil }
            var total = 0
            for part in parts {
                // A panel's number: a multiply or add that overflows means no duration, not a trap.
                guard let part, part >= 0 else { return nil }
                let (minutes, overflow1) = total.multipliedReportingOverflow(by: 60)
                let (sum, overflow2) = minutes.addingReportingOverflow(part)
                if overflow1 || overflow2 { return nil }
                total = sum
            }
            return total
        }
    }

    struct ShortEPG: Decodable, Sendable {
        struct Listing: Decodable, Sendable {
            var id: XtreamValue?
            var epg_id: XtreamValue?
            var channel_id: String?
            /// Base64, as panels send titles and descriptions here.
            var title: String?
            var description: String?
            var start_timestamp: XtreamValue?
            var stop_timestamp: XtreamValue?
        }
        var epg_listings: [Listing]?
    }

    func episodeURL(episodeID: String, container: String?) -> String {
        "\(server)/series/\(accountPath)/\(episodeID).\(container ?? "mp4")"
    }

    /// Panels base64-encode EPG text in `get_short_epg`; anything that is not base64 is kept as is.
    static func decodeBase64Text(_ text: String?) -> String? {
        guard let text, !text.isEmpty else { return nil }
        guard let data = Data(base64Encoded: text, options: .ignoreUnknownCharacters),
            let decoded = String(data: data, encoding: .utf8)
        else {
            return text
        }
        return decoded
    }

    struct Account: Decodable, Sendable {
        struct UserInfo: Decodable, Sendable {
            var auth: XtreamValue?
            var max_connections: XtreamValue?
        }
        var user_info: UserInfo?
    }

    /// `server` without a trailing slash.
    var server: String {
        var server = credentials.server
        while server.hasSuffix("/") { server.removeLast() }
        return server
    }

    /// The XMLTV guide of the account.
    var guideURL: String {
        "\(server)/xmltv.php?username=\(encoded(credentials.username))&password=\(encoded(credentials.password))"
    }

    func liveURL(streamID: String) -> String {
        "\(server)/live/\(encoded(credentials.username))/\(encoded(credentials.password))/\(streamID).ts"
    }

    func movieURL(streamID: String, container: String?) -> String {
        "\(server)/movie/\(accountPath)/\(streamID).\(container ?? "mp4")"
    }

    /// `username/password`, each percent-encoded: the account part of Xtream's stream paths.
    var accountPath: String { "\(encoded(credentials.username))/\(encoded(credentials.password))" }

    /// Checks the credentials (panels answer wrong ones with `200` and `auth: 0`) and returns how
    /// many streams the account allows at once, when the panel says so in a sane range (1…1000).
    @discardableResult
    func authenticate() async throws -> Int? {
        let account: Account = try await get(action: nil)
        guard account.user_info?.auth?.int == 1 else {
            throw CatalogError.fetchFailed("the Xtream account was refused (auth 0)")
        }
        return account.user_info?.max_connections?.int.flatMap { (1...1000).contains($0) ? $0 : nil }
    }

    func get<T: Decodable>(action: String?, parameters: [(String, String)] = []) async throws -> T {
        let username = encoded(credentials.username)
        var url = "\(server)/player_api.php?username=\(username)&password=\(encoded(credentials.password))"
        if let action { url += "&action=\(action)" }
        for (name, value) in parameters { url += "&\(name)=\(encoded(value))" }
        var request = HTTPClientRequest(url: url)
        request.headers.add(name: "User-Agent", value: configuration.userAgent)
        let response: HTTPClientResponse
        do {
            response = try await httpClient.execute(
                request, gate: FetchGate(policy: configuration.fetchPolicy), timeout: configuration.requestTimeout,
                logger: logger
            ).response
        } catch {
            throw CatalogError.fetchFailed("\(error)")
        }
        guard response.status.code == 200 else {
            throw CatalogError.fetchFailed("HTTP \(response.status.code) for \(action ?? "account info")")
        }
        let body = try await XtreamAnswer.collect(
            response.body, limit: configuration.maxProviderAnswerBytes, timeout: configuration.requestTimeout,
            what: action ?? "account info")
        do {
            return try JSONDecoder().decode(T.self, from: Data(body.readableBytesView))
        } catch {
            throw CatalogError.fetchFailed("unexpected answer to \(action ?? "account info"): \(error)")
        }
    }

    private func encoded(_ text: String) -> String {
        text.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? text
    }
}
