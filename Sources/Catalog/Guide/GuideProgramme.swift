/// A programme of the guide as the catalog stores it; times are seconds since 1970, UTC.
public struct GuideProgramme: Sendable, Hashable, Codable, Identifiable {
    public var id: Int64
    /// The XMLTV channel id it airs on.
    public var epgID: String
    public var start: Int64
    public var stop: Int64
    public var title: String
    public var subtitle: String?
    public var description: String?
    public var category: String?
    public var icon: String?
    public var season: Int?
    public var episode: Int?
    /// The provider's id for requesting the recording; see ``CatchupURLBuilder``.
    public var catchupID: String?

    public init(
        id: Int64, epgID: String, start: Int64, stop: Int64, title: String, subtitle: String? = nil,
        description: String? = nil,
        category: String? = nil, icon: String? = nil, season: Int? = nil, episode: Int? = nil, catchupID: String? = nil
    ) {
        self.id = id
        self.epgID = epgID
        self.start = start
        self.stop = stop
        self.title = title
        self.subtitle = subtitle
        self.description = description
        self.category = category
        self.icon = icon
        self.season = season
        self.episode = episode
        self.catchupID = catchupID
    }
}
