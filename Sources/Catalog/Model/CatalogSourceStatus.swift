/// Where a source is in its refresh cycle.
public struct CatalogSourceStatus: RawRepresentable, Sendable, Hashable, Codable, CustomStringConvertible {
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }

    /// Added, never imported.
    public static let idle = CatalogSourceStatus(rawValue: "idle")
    public static let refreshing = CatalogSourceStatus(rawValue: "refreshing")
    /// The last import succeeded.
    public static let ok = CatalogSourceStatus(rawValue: "ok")
    /// The last import failed; the previous data is kept and ``CatalogSource/lastError`` says why.
    public static let failed = CatalogSourceStatus(rawValue: "failed")

    public var description: String { rawValue }
}
