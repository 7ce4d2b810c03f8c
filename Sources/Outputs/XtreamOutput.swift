import Catalog
import Foundation
import MediaFormats

/// A lineup in the shapes of the Xtream Codes panel API (`player_api.php`), for players that take
/// only an Xtream login: account info, categories and streams of each kind, series and film
/// details, and short guides. Stream ids are the catalog's item ids, which stay while a channel's
/// identity does; category ids are derived from the group names, so they stay too.
public struct XtreamOutput: Sendable {
    /// `scheme://host:port` as the player reached Tuner.
    public var base: String
    public var username: String
    public var password: String
    public var logo: @Sendable (CatalogItem) -> String?

    public init(base: String, username: String, password: String, logo: @escaping @Sendable (CatalogItem) -> String?) {
        self.base = base.hasSuffix("/") ? String(base.dropLast()) : base
        self.username = username
        self.password = password
        self.logo = logo
    }

    // MARK: Account

    public struct Account: Encodable, Sendable {
        public struct UserInfo: Encodable, Sendable {
            var username: String
            /// Echoed as panels do: the client sent it, and clients build stream URLs from it.
            var password: String
            var message = ""
            var auth = 1
            /// `Active` or `Expired`.
            var status: String
            var exp_date: StringOrNull
            var is_trial = "0"
            var active_cons: String
            var created_at: String
            var max_connections: String
            /// What `/live/` serves: MPEG-TS (`.ts`) and HLS with MPEG-TS segments (`.m3u8`).
            var allowed_output_formats = ["m3u8", "ts"]
        }
        public struct ServerInfo: Encodable, Sendable {
            var url: String
            var port: String
            var https_port: String
            var server_protocol: String
            var rtmp_port = ""
            var timezone = "UTC"
            var timestamp_now: Int64
            var time_now: String
        }
        var user_info: UserInfo
        var server_info: ServerInfo
    }

    /// A string, or JSON `null` when there is none: panels send `"exp_date": null` for a login that
    /// never expires, and clients read the key unconditionally (a missing key fails their login).
    public struct StringOrNull: Encodable, Sendable, Equatable {
        public var value: String?

        public init(_ value: String?) { self.value = value }

        public func encode(to encoder: any Encoder) throws {
            var container = encoder.singleValueContainer()
            if let value { try container.encode(value) } else { try container.encodeNil() }
        }
    }

    /// What a panel answers a login with. `activeConnections` is how many streams the login has open.
    public func account(_ user: OutputUser, activeConnections: Int, now: Date) -> Account {
        let url = URL(string: base)
        let secure = url?.scheme == "https"
        let port = String(url?.port ?? (secure ? 443 : 80))
        let seconds = Self.seconds(now)
        return Account(
            user_info: .init(
                username: user.username, password: password,
                status: user.isDisabled ? "Disabled" : user.isExpired(at: seconds) ? "Expired" : "Active",
                exp_date: StringOrNull(user.expiresAt.map { String($0) }), active_cons: String(activeConnections),
                created_at: String(Self.seconds(user.createdAt)), max_connections: String(user.maxConnections)),
            server_info: .init(
                url: url?.host ?? "127.0.0.1", port: port, https_port: secure ? port : "",
                server_protocol: secure ? "https" : "http", timestamp_now: seconds, time_now: Self.dateTime(seconds)))
    }

    /// Whole seconds since 1970, clamped to what panels' times can say (never a trap on odd dates).
    static func seconds(_ date: Date) -> Int64 {
        let value = date.timeIntervalSince1970
        guard value.isFinite else { return 0 }
        return Int64(min(max(value, 0), 253_402_300_799))
    }

    /// A failed login, as panels answer it.
    public static let refused = #"{"user_info":{"auth":0}}"#

    // MARK: Lists

    public struct Category: Encodable, Sendable, Equatable {
        var category_id: String
        var category_name: String
        var parent_id = 0
    }

    /// The groups of `channels`, once each, in order of first appearance.
    public func categories(_ channels: [OutputChannel]) -> [Category] {
        var seen = Set<String>()
        return channels.compactMap { channel in
            guard let group = channel.item.group, seen.insert(group).inserted else { return nil }
            return Category(category_id: Self.categoryID(group), category_name: OutputText.line(group))
        }
    }

    public struct LiveStream: Encodable, Sendable {
        var num: Int
        var name: String
        var stream_type = "live"
        var stream_id: Int64
        var stream_icon: String
        var epg_channel_id: String
        var added = "0"
        var category_id: String
        var custom_sid = ""
        var tv_archive: Int
        var direct_source = ""
        var tv_archive_duration: Int
    }

    public func liveStreams(_ channels: [OutputChannel], category: String?) -> [LiveStream] {
        filtered(channels, category).map { channel in
            LiveStream(
                num: channel.number, name: OutputText.line(channel.name), stream_id: channel.item.id,
                stream_icon: icon(channel), epg_channel_id: channel.guideID,
                category_id: channel.item.group.map(Self.categoryID) ?? "",
                // Catch-up (the provider's, or Tuner's own window) plays at `/timeshift/`.
                tv_archive: channel.item.catchup == nil ? 0 : 1,
                tv_archive_duration: channel.item.catchup.map { max(1, $0.days ?? 1) } ?? 0)
        }
    }

    public struct VODStream: Encodable, Sendable {
        var num: Int
        var name: String
        var stream_type = "movie"
        var stream_id: Int64
        var stream_icon: String
        var rating = ""
        var added = "0"
        var category_id: String
        var container_extension: String
        var custom_sid = ""
        var direct_source = ""
    }

    public func vodStreams(_ channels: [OutputChannel], category: String?) -> [VODStream] {
        filtered(channels, category).map { channel in
            VODStream(
                num: channel.number, name: OutputText.line(channel.name), stream_id: channel.item.id,
                stream_icon: icon(channel), category_id: channel.item.group.map(Self.categoryID) ?? "",
                container_extension: Self.container(of: channel.item.url))
        }
    }

    public struct Series: Encodable, Sendable {
        var num: Int
        var name: String
        var series_id: Int64
        var cover: String
        var plot = ""
        var cast = ""
        var director = ""
        var genre = ""
        var releaseDate = ""
        var last_modified = "0"
        var rating = ""
        var category_id: String
    }

    public func series(_ channels: [OutputChannel], category: String?) -> [Series] {
        filtered(channels, category).map { channel in
            Series(
                num: channel.number, name: OutputText.line(channel.name), series_id: channel.item.id,
                cover: icon(channel), category_id: channel.item.group.map(Self.categoryID) ?? "")
        }
    }

    // MARK: Details

    public struct SeriesInfo: Encodable, Sendable {
        /// The series as panels describe it (Tuner knows its name, cover and group; the rest is "").
        public struct Info: Encodable, Sendable {
            var name: String
            var cover: String
            var plot = ""
            var cast = ""
            var director = ""
            var genre = ""
            var releaseDate = ""
            var last_modified = "0"
            var rating = ""
            var rating_5based = 0
            var backdrop_path: [String] = []
            var youtube_trailer = ""
            var episode_run_time = ""
            var category_id: String
        }
        /// One entry per season that has episodes: clients build their season list from these
        /// and take each season's episodes from `episodes[String(season_number)]`.
        public struct Season: Encodable, Sendable, Equatable {
            var air_date = ""
            var episode_count: Int
            /// Tuner has no season ids: the number stands in.
            var id: Int
            var name: String
            var overview = ""
            var season_number: Int
            var cover: String
            var cover_big: String
        }
        public struct Episode: Encodable, Sendable {
            public struct Details: Encodable, Sendable { var duration_secs: Int }
            var id: String
            var episode_num: Int
            var title: String
            var container_extension: String
            var info: Details
            var custom_sid = ""
            var added = "0"
            var season: Int
            var direct_source = ""
        }
        var seasons: [Season]
        var info: Info
        var episodes: [String: [Episode]]
    }

    /// `get_series_info`: the seasons (in order) and their episodes keyed by season number, an
    /// episode without a season in season 1 and without a number numbered in its season's order.
    public func seriesInfo(_ channel: OutputChannel, episodes: [CatalogEpisode]) -> SeriesInfo {
        var bySeason: [Int: [SeriesInfo.Episode]] = [:]
        for episode in episodes {
            let season = episode.season ?? 1
            let position = (bySeason[season]?.count ?? 0) + 1
            bySeason[season, default: []].append(
                .init(
                    id: String(episode.id), episode_num: episode.episode ?? position,
                    title: OutputText.line(episode.title), container_extension: Self.container(of: episode.url),
                    info: .init(duration_secs: episode.duration.map(Self.wholeSeconds) ?? 0), season: season))
        }
        let cover = icon(channel)
        let seasons = bySeason.keys.sorted().map { number in
            SeriesInfo.Season(
                episode_count: bySeason[number]?.count ?? 0, id: number, name: "Season \(number)",
                season_number: number, cover: cover, cover_big: cover)
        }
        return SeriesInfo(
            seasons: seasons,
            info: .init(
                name: OutputText.line(channel.name), cover: cover,
                category_id: channel.item.group.map(Self.categoryID) ?? ""),
            episodes: Dictionary(uniqueKeysWithValues: bySeason.map { (String($0.key), $0.value) }))
    }

    /// A provider's duration as whole seconds: 0 when it is not a sane number (never a trap).
    static func wholeSeconds(_ value: Double) -> Int {
        guard value.isFinite, value > 0 else { return 0 }
        return Int(min(value, 10_000_000))
    }

    public struct VODInfo: Encodable, Sendable {
        public struct Info: Encodable, Sendable {
            var name: String
            var plot: String
            var genre: String
            var director: String
            var cast: String
            var releasedate: String
            var duration_secs: Int
            var rating: String
            var movie_image: String
        }
        public struct MovieData: Encodable, Sendable {
            var stream_id: Int64
            var name: String
            var container_extension: String
        }
        var info: Info
        var movie_data: MovieData
    }

    public func vodInfo(_ channel: OutputChannel, details: CatalogMovieDetails?) -> VODInfo {
        VODInfo(
            info: .init(
                name: OutputText.line(channel.name), plot: OutputText.line(details?.plot ?? ""),
                genre: OutputText.line(details?.genre ?? ""), director: OutputText.line(details?.director ?? ""),
                cast: OutputText.line(details?.cast ?? ""), releasedate: OutputText.line(details?.releaseDate ?? ""),
                duration_secs: details?.durationSeconds ?? 0, rating: details?.rating.map { String($0) } ?? "",
                movie_image: icon(channel)),
            movie_data: .init(
                stream_id: channel.item.id, name: OutputText.line(channel.name),
                container_extension: Self.container(of: channel.item.url)
            ))
    }

    public struct Listings: Encodable, Sendable {
        public struct Listing: Encodable, Sendable {
            var id: String
            var epg_id: String
            var title: String
            var lang = ""
            var start: String
            var end: String
            var description: String
            var channel_id: String
            var start_timestamp: String
            var stop_timestamp: String
            var now_playing: Int?
            var has_archive: Int?
        }
        var epg_listings: [Listing]
    }

    /// `get_short_epg` (the next `limit` programmes) and `get_simple_data_table` (all, marked
    /// `now_playing`). Titles and descriptions are base64, as panels send them.
    public func listings(
        _ programmes: [GuideProgramme], of channel: OutputChannel, now: Int64, limit: Int?, table: Bool
    ) -> Listings {
        var chosen = programmes.filter { table || $0.stop > now }
        if let limit { chosen = Array(chosen.prefix(max(0, limit))) }
        return Listings(
            epg_listings: chosen.map { programme in
                Listings.Listing(
                    id: String(programme.id), epg_id: String(programme.id),
                    title: Self.base64(programme.title), start: Self.dateTime(programme.start),
                    end: Self.dateTime(programme.stop), description: Self.base64(programme.description ?? ""),
                    channel_id: channel.guideID, start_timestamp: String(programme.start),
                    stop_timestamp: String(programme.stop),
                    now_playing: table ? (programme.start <= now && now < programme.stop ? 1 : 0) : nil,
                    has_archive: table ? 0 : nil)
            })
    }

    // MARK: URLs

    /// A channel's stream as `get.php` lists it.
    public func streamURL(_ channel: OutputChannel, liveExtension: String = "ts") -> String {
        let kind = channel.item.kind == .movie ? "movie" : "live"
        let container = channel.item.kind == .movie ? Self.container(of: channel.item.url) : liveExtension
        return "\(base)/\(kind)/\(username)/\(password)/\(channel.item.id).\(container)"
    }

    /// An episode's stream, as panels list it: `/series/USER/PASS/EPISODE_ID.ext`.
    public func episodeURL(_ episode: CatalogEpisode) -> String {
        "\(base)/series/\(username)/\(password)/\(episode.id).\(Self.container(of: episode.url))"
    }

    /// `get.php?type=m3u_plus`, as panels write it: live channels (`/live/…/ID.ts`, or `ID.m3u8`
    /// when `liveExtension` says so, for `output=m3u8`), films
    /// (`/movie/…/ID.ext`) and each series' `episodes` (`/series/…/EPISODE_ID.ext`, named
    /// "Name S01 E02", in the series' group; a series without loaded episodes lists none). Live
    /// channels and films carry their login-wide ``OutputChannel/guideID``; episodes have no guide.
    /// Names, groups and URLs pass ``OutputText`` (one line each, no `"` in attributes), so a
    /// provider's name never adds an `#EXTINF` or URL line.
    public func playlist(
        _ channels: [OutputChannel], episodes: [Int64: [CatalogEpisode]] = [:], guideURL: String,
        liveExtension: String = "ts"
    ) -> String {
        let guide = OutputText.attribute(guideURL)
        var text = "#EXTM3U url-tvg=\"\(guide)\" x-tvg-url=\"\(guide)\"\n"
        for channel in channels {
            let logo = logo(channel.item).map { " tvg-logo=\"\(OutputText.attribute($0))\"" } ?? ""
            let group = channel.item.group.map { " group-title=\"\(OutputText.attribute($0))\"" } ?? ""
            guard channel.item.kind != .series else {
                for episode in episodes[channel.item.id] ?? [] {
                    let season = Self.twoDigits(episode.season ?? 1)
                    let name = OutputText.line("\(channel.name) S\(season) E\(Self.twoDigits(episode.episode ?? 0))")
                    text += "#EXTINF:-1 tvg-id=\"\" tvg-name=\"\(OutputText.attribute(name))\"\(logo)\(group),\(name)\n"
                    text += "\(OutputText.line(episodeURL(episode)))\n"
                }
                continue
            }
            let name = OutputText.line(channel.name)
            text += "#EXTINF:-1 tvg-id=\"\(channel.guideID)\" tvg-name=\"\(OutputText.attribute(name))\"\(logo)"
            let url = OutputText.line(streamURL(channel, liveExtension: liveExtension))
            text += " tvg-chno=\"\(channel.number)\"\(group),\(name)\n\(url)\n"
        }
        return text
    }

    /// A season or episode number as panels write it in names: at least two digits.
    static func twoDigits(_ number: Int) -> String {
        number >= 0 && number < 10 ? "0\(number)" : String(number)
    }

    // MARK: Helpers

    /// A channel's logo URL on one line, or "" (what panels send for none).
    func icon(_ channel: OutputChannel) -> String {
        OutputText.line(logo(channel.item) ?? "")
    }

    /// Guide text as panels send it (base64), cleaned first: players show it decoded.
    static func base64(_ text: String) -> String {
        Data(OutputText.line(text).utf8).base64EncodedString()
    }

    func filtered(_ channels: [OutputChannel], _ category: String?) -> [OutputChannel] {
        guard let category, !category.isEmpty else { return channels }
        return channels.filter { $0.item.group.map(Self.categoryID) == category }
    }

    /// A stable id for a group name: FNV-1a, 31 bits, never 0.
    public static func categoryID(_ name: String) -> String {
        var hash: UInt32 = 2_166_136_261
        for byte in name.utf8 {
            hash ^= UInt32(byte)
            hash = hash &* 16_777_619
        }
        return String(max(1, hash & 0x7FFF_FFFF))
    }

    /// The file extension of a stream URL (`mp4`, `mkv`), `mp4` when it has none.
    static func container(of url: String?) -> String {
        guard let url, let path = URL(string: url)?.path, let dot = path.lastIndex(of: ".") else { return "mp4" }
        let ext = path[path.index(after: dot)...]
        guard (1...5).contains(ext.count), ext.allSatisfy({ $0.isLetter || $0.isNumber }) else { return "mp4" }
        return String(ext).lowercased()
    }

    /// `YYYY-MM-DD hh:mm:ss` in UTC, as panels write times.
    static func dateTime(_ seconds: Int64) -> String {
        // `YYYYMMDDhhmmss +0000` regrouped.
        let compact = Array(XMLTVDate(secondsSince1970: seconds).description.utf8.prefix(14))
        func part(_ range: Range<Int>) -> String { String(decoding: compact[range], as: UTF8.self) }
        return "\(part(0..<4))-\(part(4..<6))-\(part(6..<8)) \(part(8..<10)):\(part(10..<12)):\(part(12..<14))"
    }
}
