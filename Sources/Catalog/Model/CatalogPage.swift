/// One page of a listing.
public struct CatalogPage<Element: Sendable & Hashable & Codable>: Sendable, Hashable, Codable {
    public var items: [Element]
    /// How many match in all, across every page.
    public var total: Int
    public var offset: Int
    public var limit: Int

    public init(items: [Element], total: Int, offset: Int, limit: Int) {
        self.items = items
        self.total = total
        self.offset = offset
        self.limit = limit
    }
}
