import Foundation

/// The outcome of probing an item's stream: whether it answered, when, and why not.
public struct CatalogStreamCheck: Sendable, Hashable, Codable {
    public var itemID: Int64
    public var online: Bool
    public var checkedAt: Date
    /// What the probe saw (`HTTP 200`, `HTTP 404`, `unreachable: …`, `playlist without segments`).
    public var reason: String

    public init(itemID: Int64, online: Bool, checkedAt: Date, reason: String) {
        self.itemID = itemID
        self.online = online
        self.checkedAt = checkedAt
        self.reason = reason
    }
}
