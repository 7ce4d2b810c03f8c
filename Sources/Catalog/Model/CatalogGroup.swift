/// A group (category) of items, with how many items it holds.
public struct CatalogGroup: Sendable, Hashable, Codable {
    public var id: Int64
    public var sourceID: Int64
    public var kind: CatalogItemKind
    public var name: String
    public var itemCount: Int

    public init(id: Int64, sourceID: Int64, kind: CatalogItemKind, name: String, itemCount: Int) {
        self.id = id
        self.sourceID = sourceID
        self.kind = kind
        self.name = name
        self.itemCount = itemCount
    }
}
