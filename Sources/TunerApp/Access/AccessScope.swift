/// What a credential may do. Each scope includes the ones before it: `read` < `play` < `manage`
/// < `admin`.
public enum AccessScope: String, Codable, Sendable, Hashable, Comparable, CaseIterable {
    /// Look: pages, the catalog, the guide, transfers, statistics, live events.
    case read
    /// Look and watch: play and catch-up links, proxy URLs.
    case play
    /// Look, watch and act: downloads, uploads, sources, favourites, the cache, live sessions.
    case manage
    /// Everything, keys, Xtream logins and output profiles (which hold access keys) included.
    case admin

    public static func < (lhs: AccessScope, rhs: AccessScope) -> Bool {
        allCases.firstIndex(of: lhs)! < allCases.firstIndex(of: rhs)!
    }
}

/// Who a request acts as: the owner (the access token, or any local program when Tuner listens
/// on loopback only), or an API key, directly or through a signed-in browser's session.
public struct AccessPrincipal: Sendable, Hashable {
    public var scope: AccessScope
    /// The API key, or nil for the owner.
    public var keyID: Int64?
    /// The key's name, or `owner`.
    public var name: String

    public init(scope: AccessScope, keyID: Int64?, name: String) {
        self.scope = scope
        self.keyID = keyID
        self.name = name
    }

    /// The owner: every power.
    public static let owner = AccessPrincipal(scope: .admin, keyID: nil, name: "owner")

    /// Whose idempotency keys these are (a key's never answer another's request).
    public var caller: String { keyID.map { "key:\($0)" } ?? "owner" }
}
