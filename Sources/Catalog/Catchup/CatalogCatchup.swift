/// How a channel offers past programmes: the `catchup`, `catchup-days` and `catchup-source` attributes.
public struct CatalogCatchup: Sendable, Hashable, Codable {
    /// `default`, `append`, `shift`, `flussonic`, `xc`, … as the playlist wrote it.
    public var type: String
    public var days: Int?
    /// The URL template; see ``CatchupURLBuilder``.
    public var source: String?

    public init(type: String, days: Int? = nil, source: String? = nil) {
        self.type = type
        self.days = days
        self.source = source
    }
}
