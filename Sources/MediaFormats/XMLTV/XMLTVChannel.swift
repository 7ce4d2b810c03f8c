/// A `<channel>` of an XMLTV guide: the id programmes refer to, its names and logos.
public struct XMLTVChannel: Sendable, Hashable {
    /// The `id` attribute, which playlists match with `tvg-id`.
    public var id: String
    /// `<display-name>`s in guide order; the first is the preferred one.
    public var displayNames: [XMLTVText]
    /// `<icon>`s in guide order.
    public var icons: [XMLTVIcon]
    /// `<url>`s of the channel's web site.
    public var urls: [String]

    public init(id: String, displayNames: [XMLTVText] = [], icons: [XMLTVIcon] = [], urls: [String] = []) {
        self.id = id
        self.displayNames = displayNames
        self.icons = icons
        self.urls = urls
    }

    /// The first display name, or the id when there is none.
    public var name: String { displayNames.first?.value ?? id }
}
