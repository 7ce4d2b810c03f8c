/// What a catalog item is: a live channel, a movie (VOD) or a series (whose episodes hang off it).
public struct CatalogItemKind: RawRepresentable, Sendable, Hashable, Codable, CustomStringConvertible {
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }

    public static let live = CatalogItemKind(rawValue: "live")
    public static let movie = CatalogItemKind(rawValue: "movie")
    public static let series = CatalogItemKind(rawValue: "series")

    public var description: String { rawValue }
}
