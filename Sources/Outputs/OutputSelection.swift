/// Which catalog entries a profile shows. Every condition narrows the set; `include` adds
/// entries back whatever the other conditions say, and `exclude` removes them last.
public struct OutputSelection: Sendable, Codable, Hashable {
    /// `live` (the default), `movie` or `series`; players of the HDHomeRun and M3U outputs show
    /// live channels, the Xtream output all three.
    public var kinds: [String]
    /// Only entries of these sources; empty means every source.
    public var sourceIDs: [Int64]
    /// Only entries in these groups (`group-title`), compared exactly; empty means every group.
    public var groups: [String]
    /// Only the user's favourites.
    public var favouritesOnly: Bool
    /// Words every name (or group) must contain as prefixes, as the catalog's search reads them.
    public var search: String?
    /// Entry identities shown whatever the conditions above say.
    public var include: [String]
    /// Entry identities never shown.
    public var exclude: [String]

    public init(
        kinds: [String] = ["live"], sourceIDs: [Int64] = [], groups: [String] = [], favouritesOnly: Bool = false,
        search: String? = nil, include: [String] = [], exclude: [String] = []
    ) {
        self.kinds = kinds
        self.sourceIDs = sourceIDs
        self.groups = groups
        self.favouritesOnly = favouritesOnly
        self.search = search
        self.include = include
        self.exclude = exclude
    }

    /// Every live channel.
    public static let allLive = OutputSelection()
}
