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
    /// Only the entries in `include`, whatever the other conditions say: a lineup picked channel
    /// by channel in the lineup editor rather than described by rules.
    public var pickedOnly: Bool

    public init(
        kinds: [String] = ["live"], sourceIDs: [Int64] = [], groups: [String] = [], favouritesOnly: Bool = false,
        search: String? = nil, include: [String] = [], exclude: [String] = [], pickedOnly: Bool = false
    ) {
        self.kinds = kinds
        self.sourceIDs = sourceIDs
        self.groups = groups
        self.favouritesOnly = favouritesOnly
        self.search = search
        self.include = include
        self.exclude = exclude
        self.pickedOnly = pickedOnly
    }

    /// Reads a selection stored before `pickedOnly` existed as one described by rules.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        kinds = try container.decode([String].self, forKey: .kinds)
        sourceIDs = try container.decode([Int64].self, forKey: .sourceIDs)
        groups = try container.decode([String].self, forKey: .groups)
        favouritesOnly = try container.decode(Bool.self, forKey: .favouritesOnly)
        search = try container.decodeIfPresent(String.self, forKey: .search)
        include = try container.decode([String].self, forKey: .include)
        exclude = try container.decode([String].self, forKey: .exclude)
        pickedOnly = try container.decodeIfPresent(Bool.self, forKey: .pickedOnly) ?? false
    }

    /// Every live channel.
    public static let allLive = OutputSelection()
}
