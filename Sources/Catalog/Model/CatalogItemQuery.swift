/// A filtered, paged listing of items.
public struct CatalogItemQuery: Sendable, Hashable, Codable {
    public var kind: CatalogItemKind?
    public var sourceID: Int64?
    /// Only items in the group with this name.
    public var group: String?
    public var favouritesOnly: Bool
    /// Words to search names and groups for, each as a prefix, accents ignored. When set, results
    /// are ranked by relevance rather than listed in order.
    public var search: String?
    public var offset: Int
    public var limit: Int

    public init(
        kind: CatalogItemKind? = nil, sourceID: Int64? = nil, group: String? = nil, favouritesOnly: Bool = false,
        search: String? = nil, offset: Int = 0, limit: Int = 100
    ) {
        self.kind = kind
        self.sourceID = sourceID
        self.group = group
        self.favouritesOnly = favouritesOnly
        self.search = search
        self.offset = offset
        self.limit = limit
    }
}
