import Foundation

/// What a new source is made of; the store assigns the id and the bookkeeping fields.
public struct CatalogSourceDraft: Sendable, Hashable, Codable {
    public var kind: CatalogSourceKind
    public var name: String
    public var location: String
    public var xtream: XtreamCredentials?
    public var epgURLs: [String]
    public var refreshInterval: TimeInterval

    public init(
        kind: CatalogSourceKind, name: String? = nil, location: String, xtream: XtreamCredentials? = nil,
        epgURLs: [String] = [], refreshInterval: TimeInterval = CatalogSource.defaultRefreshInterval
    ) {
        self.kind = kind
        self.name = name ?? Self.defaultName(for: location)
        self.location = location
        self.xtream = xtream
        self.epgURLs = epgURLs
        self.refreshInterval = refreshInterval
    }

    /// The last path component without its extension, or the host: what a user would recognise.
    static func defaultName(for location: String) -> String {
        if let url = URL(string: location), let scheme = url.scheme, scheme.hasPrefix("http") {
            let last = url.deletingPathExtension().lastPathComponent
            if !last.isEmpty, last != "/" { return last }
            return url.host ?? location
        }
        let last = URL(fileURLWithPath: location).deletingPathExtension().lastPathComponent
        return last.isEmpty ? location : last
    }
}
