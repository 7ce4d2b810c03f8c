import Foundation

/// A place the catalog imports from: an M3U playlist, an Xtream Codes account or an XMLTV guide.
public struct CatalogSource: Sendable, Hashable, Codable, Identifiable {
    public var id: Int64
    public var kind: CatalogSourceKind
    /// A display name chosen by the user (or derived from the location).
    public var name: String
    /// The playlist or guide location: an http(s) URL or a local file path. For Xtream, the server URL.
    public var location: String
    /// Xtream Codes credentials; `nil` for other kinds.
    public var xtream: XtreamCredentials?
    /// Guide URLs to import with this source (from the playlist's `x-tvg-url` or set by the user).
    public var epgURLs: [String]
    /// How often the refresher should re-import this source, in seconds.
    public var refreshInterval: TimeInterval
    /// When the last import finished successfully.
    public var lastRefresh: Date?
    /// Why the last import failed. After a success, `nil`, or what the import refused without
    /// failing (locations the provider named that are not http(s), which Tuner never opens).
    public var lastError: String?
    public var status: CatalogSourceStatus
    /// How many streams the account allows at once, as the user set it (nil: not set).
    public var maxConnections: Int?
    /// What the provider says the account allows (an Xtream panel's `user_info.max_connections`).
    public var providerMaxConnections: Int?

    /// The limit live sessions keep to: the user's, else the provider's; nil is unlimited (the
    /// default for an M3U playlist, whose provider says nothing).
    public var connectionLimit: Int? { maxConnections ?? providerMaxConnections }

    public init(
        id: Int64, kind: CatalogSourceKind, name: String, location: String, xtream: XtreamCredentials? = nil,
        epgURLs: [String] = [], refreshInterval: TimeInterval = CatalogSource.defaultRefreshInterval,
        lastRefresh: Date? = nil, lastError: String? = nil, status: CatalogSourceStatus = .idle,
        maxConnections: Int? = nil, providerMaxConnections: Int? = nil
    ) {
        self.id = id
        self.kind = kind
        self.name = name
        self.location = location
        self.xtream = xtream
        self.epgURLs = epgURLs
        self.refreshInterval = refreshInterval
        self.lastRefresh = lastRefresh
        self.lastError = lastError
        self.status = status
        self.maxConnections = maxConnections
        self.providerMaxConnections = providerMaxConnections
    }

    /// Daily: providers rarely change playlists more often, and a refresh costs them bandwidth.
    public static let defaultRefreshInterval: TimeInterval = 86_400

    /// Whether ``location`` names a local file rather than a URL.
    public var isLocalFile: Bool {
        let lower = location.lowercased()
        return !(lower.hasPrefix("http://") || lower.hasPrefix("https://"))
    }
}
