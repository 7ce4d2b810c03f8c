/// What a credential must be allowed to do to call an endpoint: the wire twin of TunerApp's
/// `AccessScope` (TunerAPI imports nothing). Each scope includes the ones before it.
public enum APIScope: String, Codable, Sendable, Hashable, CaseIterable {
    /// Look: the catalog, the guide, transfers, statistics, live events.
    case read
    /// Look and watch: play and catch-up links.
    case play
    /// Look, watch and act: downloads, uploads, sources, favourites, the cache, live sessions.
    case manage
    /// Everything: keys, Xtream logins and output profiles (which hold access keys).
    case admin
}
