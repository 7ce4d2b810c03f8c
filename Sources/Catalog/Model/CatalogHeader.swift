/// One HTTP header a provider needs on a stream request (User-Agent, Referer, Origin, …).
public struct CatalogHeader: Sendable, Hashable, Codable {
    public var name: String
    public var value: String

    public init(name: String, value: String) {
        self.name = name
        self.value = value
    }
}
