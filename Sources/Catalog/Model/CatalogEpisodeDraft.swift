/// An episode as an importer produces it.
public struct CatalogEpisodeDraft: Sendable, Hashable {
    public var season: Int?
    public var episode: Int?
    public var title: String
    public var url: String
    public var headers: [CatalogHeader]
    public var duration: Double?

    public init(
        season: Int?, episode: Int?, title: String, url: String, headers: [CatalogHeader] = [], duration: Double? = nil
    ) {
        self.season = season
        self.episode = episode
        self.title = title
        self.url = url
        self.headers = headers
        self.duration = duration
    }
}
