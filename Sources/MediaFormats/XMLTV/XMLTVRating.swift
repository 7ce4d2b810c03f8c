/// A `<rating>` or `<star-rating>`: a value in some rating system, with an optional icon.
public struct XMLTVRating: Sendable, Hashable {
    /// The `system` attribute (`MPAA`, `VCHIP`, `CSA`…).
    public var system: String?
    /// The `<value>` text (`TV-14`, `3/5`…).
    public var value: String
    /// The rating's `<icon>`s.
    public var icons: [XMLTVIcon]

    public init(system: String? = nil, value: String, icons: [XMLTVIcon] = []) {
        self.system = system
        self.value = value
        self.icons = icons
    }
}
