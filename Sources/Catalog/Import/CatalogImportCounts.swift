/// How many things an import added.
public struct CatalogImportCounts: Sendable, Hashable, Codable {
    public var live = 0
    public var movies = 0
    public var series = 0
    public var episodes = 0

    public init(live: Int = 0, movies: Int = 0, series: Int = 0, episodes: Int = 0) {
        self.live = live
        self.movies = movies
        self.series = series
        self.episodes = episodes
    }

    /// Every item and episode.
    public var total: Int { live + movies + series + episodes }
}
