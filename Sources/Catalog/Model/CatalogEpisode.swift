/// One episode of a series item.
public struct CatalogEpisode: Sendable, Hashable, Codable, Identifiable {
    public var id: Int64
    public var seriesID: Int64
    public var season: Int?
    public var episode: Int?
    public var title: String
    public var url: String
    public var headers: [CatalogHeader]
    /// Seconds, when known.
    public var duration: Double?

    public init(
        id: Int64, seriesID: Int64, season: Int?, episode: Int?, title: String, url: String,
        headers: [CatalogHeader] = [], duration: Double? = nil
    ) {
        self.id = id
        self.seriesID = seriesID
        self.season = season
        self.episode = episode
        self.title = title
        self.url = url
        self.headers = headers
        self.duration = duration
    }
}
