import Foundation

/// Everything a user can open in Tuner, as one value: parsed from and printed to `tuner://…`
/// deep links and the web app's paths, so the CLI (`tuner open`), the web app and an Apple app
/// shell all mean the same thing by a link.
///
/// Deep links and web paths share their shape: `tuner://channel/42/play` is `/channel/42/play`.
/// The web paths stay clear of the server's own URL space (`/api/`, `/stream/`, `/play/`,
/// `/output/`, `/assets/`, the HDHomeRun and Xtream paths), hence `/tv`, `/films` and `/shows`.
/// Anything else parses to ``notFound(_:)``; parsing never traps.
public enum Route: Hashable, Sendable {
    /// The start page (Live TV).
    case home
    /// Live TV, optionally one group.
    case liveTV(group: String?)
    /// Live TV's favourites, in the user's order.
    case favourites
    /// One channel's page.
    case channel(id: Int64)
    /// Play a channel (or film) now, or from `at` (seconds since 1970) by catch-up.
    case play(channel: Int64, at: Int64?)
    /// The guide grid, from `at` (seconds since 1970) or from now.
    case guide(at: Int64?)
    /// The DVR: upcoming, running, done and failed recordings, and the rules.
    case recordings
    /// Films, or one film.
    case films
    case film(id: Int64)
    /// Series, or one series.
    case shows
    case show(id: Int64)
    /// Play one episode of a series (episodes have ids of their own).
    case episode(id: Int64)
    /// Search everything.
    case search(query: String)
    /// The download list, or a new download of `url`.
    case downloads
    case download(url: URL)
    case uploads
    /// Sources, or one source.
    case sources
    case source(id: Int64)
    case outputs
    /// The lineup editor of one output profile (its id: `a-z`, `0-9`, `-`, up to 32).
    case lineup(profile: String)
    case streams
    case cache
    case settings
    /// A link Tuner does not know, with its path (decoded).
    case notFound(String)

    /// The scheme of deep links.
    public static let scheme = "tuner"

    // MARK: - Printing

    /// The web app's path (with query) of this route.
    public var webPath: String {
        let (segments, query) = parts
        var text = "/" + segments.map(Self.escapeSegment).joined(separator: "/")
        if !query.isEmpty {
            text += "?" + query.map { "\($0.name)=\(Self.escapeQueryValue($0.value))" }.joined(separator: "&")
        }
        return text
    }

    /// The `tuner://` deep link of this route.
    public var deepLink: URL {
        let path = webPath
        let body = path == "/" ? "home" : String(path.dropFirst())
        // Every part is escaped above, so this always forms a URL.
        return URL(string: "\(Self.scheme)://\(body)")!
    }

    private var parts: (segments: [String], query: [(name: String, value: String)]) {
        switch self {
        case .home: return ([], [])
        case .liveTV(let group): return (["tv"], group.map { [("group", $0)] } ?? [])
        case .favourites: return (["favourites"], [])
        case .channel(let id): return (["channel", String(id)], [])
        case .play(let id, let at): return (["channel", String(id), "play"], at.map { [("at", String($0))] } ?? [])
        case .guide(let at): return (["guide"], at.map { [("at", String($0))] } ?? [])
        case .recordings: return (["recordings"], [])
        case .films: return (["films"], [])
        case .film(let id): return (["films", String(id)], [])
        case .shows: return (["shows"], [])
        case .show(let id): return (["shows", String(id)], [])
        case .episode(let id): return (["episode", String(id), "play"], [])
        case .search(let query): return (["search"], [("q", query)])
        case .downloads: return (["downloads"], [])
        case .download(let url): return (["downloads", "new"], [("url", url.absoluteString)])
        case .uploads: return (["uploads"], [])
        case .sources: return (["sources"], [])
        case .source(let id): return (["sources", String(id)], [])
        case .outputs: return (["outputs"], [])
        case .lineup(let profile): return (["outputs", profile, "lineup"], [])
        case .streams: return (["streams"], [])
        case .cache: return (["cache"], [])
        case .settings: return (["settings"], [])
        case .notFound(let path):
            return (path.split(separator: "/", omittingEmptySubsequences: true).map(String.init), [])
        }
    }

    // MARK: - Parsing

    /// Parses a deep link (`tuner://channel/42/play`) or a web URL (`http://host/channel/42/play`).
    public init(url: URL) {
        guard let components = URLComponents(url: url, resolvingAgainstBaseURL: false) else {
            self = .notFound(url.absoluteString)
            return
        }
        var segments = components.percentEncodedPath.split(separator: "/", omittingEmptySubsequences: true).map(
            String.init)
        let scheme = components.scheme?.lowercased()
        guard scheme == Self.scheme || scheme == "http" || scheme == "https" else {
            self = .notFound(url.absoluteString)
            return
        }
        if scheme == Self.scheme {
            // In `tuner://channel/42`, the first segment is the URL's host.
            guard let host = components.percentEncodedHost, !host.isEmpty else {
                self = .notFound(url.absoluteString)
                return
            }
            segments.insert(host, at: 0)
            if segments == ["home"] { segments = [] }
        }
        self.init(percentEncodedSegments: segments, query: components.percentEncodedQuery)
    }

    /// Parses a web path with its query, like `/channel/42/play?at=1700000000`.
    public init(webPath: String) {
        let pieces = webPath.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false)
        let path = pieces.first.map(String.init) ?? ""
        let segments = path.split(separator: "/", omittingEmptySubsequences: true).map(String.init)
        self.init(percentEncodedSegments: segments, query: pieces.count > 1 ? String(pieces[1]) : nil)
    }

    private init(percentEncodedSegments raw: [String], query rawQuery: String?) {
        let segments = raw.map { $0.removingPercentEncoding ?? $0 }
        let query = Self.queryItems(rawQuery)
        let notFound = Route.notFound("/" + segments.joined(separator: "/"))
        func id(_ text: String) -> Int64? {
            // Digits only: `Int64("+1")` and signs are not ids.
            guard !text.isEmpty, text.utf8.allSatisfy({ $0 >= 48 && $0 <= 57 }) else { return nil }
            return Int64(text)
        }
        /// A time parameter: digits, or absent. A malformed one makes the link unknown.
        func time(_ name: String) -> Int64?? {
            guard let text = query[name] else { return .some(nil) }
            guard let value = id(text) else { return nil }
            return .some(value)
        }
        switch segments.first?.lowercased() {
        case nil:
            self = .home
        case "tv" where segments.count == 1:
            self = .liveTV(group: query["group"].flatMap { $0.isEmpty ? nil : $0 })
        case "favourites" where segments.count == 1: self = .favourites
        case "channel" where segments.count == 2:
            guard let value = id(segments[1]) else {
                self = notFound
                return
            }
            self = .channel(id: value)
        case "channel" where segments.count == 3 && segments[2].lowercased() == "play":
            guard let value = id(segments[1]), let at = time("at") else {
                self = notFound
                return
            }
            self = .play(channel: value, at: at)
        case "guide" where segments.count == 1:
            guard let at = time("at") else {
                self = notFound
                return
            }
            self = .guide(at: at)
        case "recordings" where segments.count == 1: self = .recordings
        case "films" where segments.count == 1: self = .films
        case "films" where segments.count == 2:
            guard let value = id(segments[1]) else {
                self = notFound
                return
            }
            self = .film(id: value)
        case "shows" where segments.count == 1: self = .shows
        case "shows" where segments.count == 2:
            guard let value = id(segments[1]) else {
                self = notFound
                return
            }
            self = .show(id: value)
        case "episode" where segments.count == 3 && segments[2].lowercased() == "play":
            guard let value = id(segments[1]) else {
                self = notFound
                return
            }
            self = .episode(id: value)
        case "search" where segments.count == 1:
            self = .search(query: query["q"] ?? "")
        case "downloads" where segments.count == 1: self = .downloads
        case "downloads" where segments.count == 2 && segments[1].lowercased() == "new":
            guard let text = query["url"], let url = URL(string: text), let scheme = url.scheme?.lowercased(),
                scheme == "http" || scheme == "https", url.host != nil
            else {
                self = notFound
                return
            }
            self = .download(url: url)
        case "uploads" where segments.count == 1: self = .uploads
        case "sources" where segments.count == 1: self = .sources
        case "sources" where segments.count == 2:
            guard let value = id(segments[1]) else {
                self = notFound
                return
            }
            self = .source(id: value)
        case "outputs" where segments.count == 1: self = .outputs
        case "outputs" where segments.count == 3 && segments[2].lowercased() == "lineup":
            let profile = segments[1]
            guard (1...32).contains(profile.utf8.count),
                profile.utf8.allSatisfy({ (0x61...0x7A).contains($0) || (0x30...0x39).contains($0) || $0 == 0x2D })
            else {
                self = notFound
                return
            }
            self = .lineup(profile: profile)
        case "streams" where segments.count == 1: self = .streams
        case "cache" where segments.count == 1: self = .cache
        case "settings" where segments.count == 1: self = .settings
        default:
            self = notFound
        }
    }

    /// The query's values by name (the first of each name), decoded; `+` is a space, as forms send it.
    private static func queryItems(_ query: String?) -> [String: String] {
        guard let query, !query.isEmpty else { return [:] }
        var items: [String: String] = [:]
        for pair in query.split(separator: "&", omittingEmptySubsequences: true) {
            let halves = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let decode = { (text: Substring) in
                String(text).replacingOccurrences(of: "+", with: " ").removingPercentEncoding ?? String(text)
            }
            let name = decode(halves[0])
            if items[name] == nil { items[name] = halves.count > 1 ? decode(halves[1]) : "" }
        }
        return items
    }

    // MARK: - Escaping

    private static let segmentAllowed = CharacterSet.alphanumerics.union(CharacterSet(charactersIn: "-._~"))
        .intersection(CharacterSet(charactersIn: Unicode.Scalar(0)..<Unicode.Scalar(128)))

    private static func escapeSegment(_ text: String) -> String {
        text.addingPercentEncoding(withAllowedCharacters: segmentAllowed) ?? ""
    }

    private static func escapeQueryValue(_ text: String) -> String {
        // Unreserved characters only: `&`, `=`, `+`, `#` and `%` in a value are escaped.
        text.addingPercentEncoding(withAllowedCharacters: segmentAllowed) ?? ""
    }
}
