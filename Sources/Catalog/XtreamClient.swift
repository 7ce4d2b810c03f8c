import AsyncHTTPClient
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
        }
        /// Episodes by season number; panels send an object keyed by season (or, when empty, `[]`).
        var episodes: [String: [Episode]]

        enum CodingKeys: String, CodingKey { case episodes }

        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            episodes = (try? container.decode([String: [Episode]].self, forKey: .episodes)) ?? [:]
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
        "\(server)/series/\(encoded(credentials.username))/\(encoded(credentials.password))/\(episodeID).\(container ?? "mp4")"
    }

    /// Panels base64-encode EPG text in `get_short_epg`; anything that is not base64 is kept as is.
    static func decodeBase64Text(_ text: String?) -> String? {
        guard let text, !text.isEmpty else { return nil }
        guard let data = Data(base64Encoded: text, options: .ignoreUnknownCharacters), let decoded = String(data: data, encoding: .utf8) else {
            return text
        }
        return decoded
    }

    struct Account: Decodable, Sendable {
        struct UserInfo: Decodable, Sendable { var auth: XtreamValue? }
        var user_info: UserInfo?
    }

    /// `server` without a trailing slash.
    var server: String {
        var server = credentials.server
        while server.hasSuffix("/") { server.removeLast() }
        return server
    }

    /// The XMLTV guide of the account.
    var guideURL: String { "\(server)/xmltv.php?username=\(encoded(credentials.username))&password=\(encoded(credentials.password))" }

    func liveURL(streamID: String) -> String { "\(server)/live/\(encoded(credentials.username))/\(encoded(credentials.password))/\(streamID).ts" }

    func movieURL(streamID: String, container: String?) -> String {
        "\(server)/movie/\(encoded(credentials.username))/\(encoded(credentials.password))/\(streamID).\(container ?? "mp4")"
    }

    /// Checks the credentials: panels answer wrong ones with `200` and `auth: 0`.
    func authenticate() async throws {
        let account: Account = try await get(action: nil)
        guard account.user_info?.auth?.int == 1 else { throw CatalogError.fetchFailed("the Xtream account was refused (auth 0)") }
    }

    func get<T: Decodable>(action: String?, parameters: [(String, String)] = []) async throws -> T {
        var url = "\(server)/player_api.php?username=\(encoded(credentials.username))&password=\(encoded(credentials.password))"
        if let action { url += "&action=\(action)" }
        for (name, value) in parameters { url += "&\(name)=\(encoded(value))" }
        var request = HTTPClientRequest(url: url)
        request.headers.add(name: "User-Agent", value: configuration.userAgent)
        let response: HTTPClientResponse
        do {
            response = try await httpClient.execute(request, timeout: configuration.requestTimeout, logger: logger)
        } catch {
            throw CatalogError.fetchFailed("\(error)")
        }
        guard response.status.code == 200 else {
            throw CatalogError.fetchFailed("HTTP \(response.status.code) for \(action ?? "account info")")
        }
        let body = try await response.body.collect(upTo: Int(min(configuration.maxDownloadBytes, Int64(Int.max))))
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
