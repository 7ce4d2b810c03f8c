/// A resource kept from eviction, as listed: its cache key (what unpinning names), its URL and
/// the bytes held.
public struct PinnedResource: Sendable, Hashable {
    public var key: String
    /// The URL as requested (it may carry a provider's credentials: redact before showing it).
    public var url: String
    public var bytes: Int64
}
