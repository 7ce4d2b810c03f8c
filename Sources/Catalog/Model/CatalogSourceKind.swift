/// The kind of a source. A struct rather than an enum so that adding a kind never breaks callers.
public struct CatalogSourceKind: RawRepresentable, Sendable, Hashable, Codable, CustomStringConvertible {
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }

    public static let m3u = CatalogSourceKind(rawValue: "m3u")
    public static let xtream = CatalogSourceKind(rawValue: "xtream")
    public static let xmltv = CatalogSourceKind(rawValue: "xmltv")

    public var description: String { rawValue }
}
