/// What a provider tells about a movie beyond the listing (Xtream `get_vod_info`).
public struct CatalogMovieDetails: Sendable, Hashable, Codable {
    public var plot: String?
    public var cast: String?
    public var director: String?
    public var genre: String?
    public var releaseDate: String?
    /// Running time in seconds.
    public var durationSeconds: Int?
    public var rating: Double?
    /// The file type the provider serves (`mkv`, `mp4`), which the stream URL ends with.
    public var containerExtension: String?
    public var poster: String?
    public var backdrops: [String]
    public var trailer: String?
    public var tmdbID: String?

    public init(
        plot: String? = nil, cast: String? = nil, director: String? = nil, genre: String? = nil,
        releaseDate: String? = nil,
        durationSeconds: Int? = nil, rating: Double? = nil, containerExtension: String? = nil, poster: String? = nil,
        backdrops: [String] = [], trailer: String? = nil, tmdbID: String? = nil
    ) {
        self.plot = plot
        self.cast = cast
        self.director = director
        self.genre = genre
        self.releaseDate = releaseDate
        self.durationSeconds = durationSeconds
        self.rating = rating
        self.containerExtension = containerExtension
        self.poster = poster
        self.backdrops = backdrops
        self.trailer = trailer
        self.tmdbID = tmdbID
    }
}
