/// `GET /api/v1/channels/{id}/play`: a signed proxy URL that plays the item.
public struct PlayAnswer: Codable, Sendable, Equatable {
    public var proxyURL: String
    public var item: ChannelAnswer
    /// A live channel as HLS with fMP4 segments, for browsers.
    public var hlsURL: String?

    public init(proxyURL: String, item: ChannelAnswer, hlsURL: String?) {
        self.proxyURL = proxyURL
        self.item = item
        self.hlsURL = hlsURL
    }
}

/// `PUT`/`DELETE /api/v1/favourites/{id}`: what was done, the item, and where it now stands.
public struct FavouriteAnswer: Codable, Sendable, Equatable {
    public var message: String
    public var item: ChannelAnswer
    /// 0 is first; absent once removed.
    public var position: Int?

    public init(message: String, item: ChannelAnswer, position: Int?) {
        self.message = message
        self.item = item
        self.position = position
    }
}

/// `GET /api/v1/channels/{id}/episodes`: a series' episodes by season.
public struct EpisodesAnswer: Codable, Sendable, Equatable {
    /// One season's episodes (`season` absent for episodes without one).
    public struct Season: Codable, Sendable, Equatable {
        public var season: Int?
        public var episodes: [EpisodeAnswer]

        public init(season: Int?, episodes: [EpisodeAnswer]) {
            self.season = season
            self.episodes = episodes
        }
    }

    public var series: ChannelAnswer
    public var total: Int
    public var seasons: [Season]

    public init(series: ChannelAnswer, total: Int, seasons: [Season]) {
        self.series = series
        self.total = total
        self.seasons = seasons
    }
}

/// `GET /api/v1/episodes/{id}/play`: a signed proxy URL for an episode, with its series.
public struct EpisodePlayAnswer: Codable, Sendable, Equatable {
    public var proxyURL: String
    public var episode: EpisodeAnswer
    public var series: ChannelAnswer?

    public init(proxyURL: String, episode: EpisodeAnswer, series: ChannelAnswer?) {
        self.proxyURL = proxyURL
        self.episode = episode
        self.series = series
    }
}

/// `GET /api/v1/channels/{id}/short-epg`: an Xtream channel's next programmes from its panel.
public struct ShortEPGAnswer: Codable, Sendable, Equatable {
    public var itemID: Int64
    public var programmes: [ProgrammeAnswer]

    public init(itemID: Int64, programmes: [ProgrammeAnswer]) {
        self.itemID = itemID
        self.programmes = programmes
    }
}
