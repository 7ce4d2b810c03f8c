import Catalog

/// One channel of a profile's lineup: the catalog entry and the number players know it by.
public struct OutputChannel: Sendable, Hashable {
    /// The number players tune (`GuideNumber`, `tvg-chno`); the XMLTV channel id and M3U
    /// `tvg-id` are made from it (``guideID``), so the three views join on it.
    public var number: Int
    /// The name players show (the profile's rename, or the playlist's name).
    public var name: String
    public var item: CatalogItem

    public init(number: Int, name: String, item: CatalogItem) {
        self.number = number
        self.name = name
        self.item = item
    }

    /// The XMLTV channel id and M3U `tvg-id`: the number with a `.tuner` suffix, since XMLTV
    /// wants ids in domain form (RFC 2838; `tv_validate_file` refuses `"7"`). The bare number is
    /// the channel's first `<display-name>`, which is what players that match by number read.
    public var guideID: String { "\(number).tuner" }
}

/// A live channel as the lineup editor lists it: the catalog entry, and its number when it is in
/// the profile's lineup (disabled or not).
public struct OutputLineupEntry: Sendable, Hashable {
    public var item: CatalogItem
    /// Nil when the channel is not in the lineup.
    public var number: Int?

    public init(item: CatalogItem, number: Int?) {
        self.item = item
        self.number = number
    }
}
