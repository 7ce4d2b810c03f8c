/// What the lineup editor changed of one channel of a profile, besides its name (``OutputProfile/renames``)
/// and number: shown to players instead of the playlist's, kept by identity across refreshes.
public struct OutputChannelEdit: Sendable, Codable, Hashable {
    /// The group (`group-title`, the XMLTV category) players file the channel under.
    public var group: String?
    /// The logo players show: an `http(s)` URL (fetched through the fetch policy, like a
    /// provider's), or `upload:<name>`, a file uploaded to Tuner (``ChannelLogo``).
    public var logo: String?
    /// Kept in the lineup with its number, but left out of every output until enabled again.
    public var disabled: Bool

    public init(group: String? = nil, logo: String? = nil, disabled: Bool = false) {
        self.group = group
        self.logo = logo
        self.disabled = disabled
    }

    /// Nothing changed: the entry can be dropped.
    public var isEmpty: Bool { group == nil && logo == nil && !disabled }
}
