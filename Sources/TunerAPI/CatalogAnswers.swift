import Foundation

/// A place the catalog imports from, as the API shows it: an Xtream account's password is
/// always empty (it stays in the database).
public struct SourceAnswer: Codable, Sendable, Equatable {
    public var id: Int64
    /// `m3u`, `xtream` or `xmltv`.
    public var kind: String
    public var name: String
    /// The playlist or guide location: an http(s) URL or a local file path.
    public var location: String
    public var xtream: Xtream?
    public var epgURLs: [String]
    /// Seconds between re-imports.
    public var refreshInterval: Double
    public var lastRefresh: Date?
    public var lastError: String?
    public var status: String
    public var maxConnections: Int?
    public var providerMaxConnections: Int?

    /// An Xtream Codes account, its password blanked.
    public struct Xtream: Codable, Sendable, Equatable {
        public var server: String
        public var username: String
        public var password: String

        public init(server: String, username: String, password: String) {
            self.server = server
            self.username = username
            self.password = password
        }
    }

    public init(
        id: Int64, kind: String, name: String, location: String, xtream: Xtream?, epgURLs: [String],
        refreshInterval: Double, lastRefresh: Date?, lastError: String?, status: String, maxConnections: Int?,
        providerMaxConnections: Int?
    ) {
        self.id = id
        self.kind = kind
        self.name = name
        self.location = location
        self.xtream = xtream
        self.epgURLs = epgURLs
        self.refreshInterval = refreshInterval
        self.lastRefresh = lastRefresh
        self.lastError = lastError
        self.status = status
        self.maxConnections = maxConnections
        self.providerMaxConnections = providerMaxConnections
    }
}

/// `GET /api/v1/sources`: every source, without secrets.
public struct SourceList: Codable, Sendable, Equatable {
    public var sources: [SourceAnswer]

    public init(sources: [SourceAnswer]) {
        self.sources = sources
    }
}

/// A group to filter channels by, with how many items it holds.
public struct GroupAnswer: Codable, Sendable, Equatable {
    public var id: Int64
    public var sourceID: Int64
    /// `live`, `movie` or `series`.
    public var kind: String
    public var name: String
    public var itemCount: Int

    public init(id: Int64, sourceID: Int64, kind: String, name: String, itemCount: Int) {
        self.id = id
        self.sourceID = sourceID
        self.kind = kind
        self.name = name
        self.itemCount = itemCount
    }
}

/// `GET /api/v1/groups`.
public struct GroupList: Codable, Sendable, Equatable {
    public var groups: [GroupAnswer]

    public init(groups: [GroupAnswer]) {
        self.groups = groups
    }
}

/// One episode of a series.
public struct EpisodeAnswer: Codable, Sendable, Equatable {
    public var id: Int64
    public var seriesID: Int64
    public var season: Int?
    public var episode: Int?
    public var title: String
    public var url: String
    public var headers: [ChannelAnswer.Header]
    /// Seconds, when known.
    public var duration: Double?

    public init(
        id: Int64, seriesID: Int64, season: Int?, episode: Int?, title: String, url: String,
        headers: [ChannelAnswer.Header], duration: Double?
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

/// A programme of the guide; times are seconds since 1970, UTC.
public struct ProgrammeAnswer: Codable, Sendable, Equatable {
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
    /// The provider's id for requesting the recording.
    public var catchupID: String?

    public init(
        id: Int64, epgID: String, start: Int64, stop: Int64, title: String, subtitle: String?, description: String?,
        category: String?, icon: String?, season: Int?, episode: Int?, catchupID: String?
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

/// `POST /api/v1/sources/{id}/refresh`: the source after the import, and what it imported.
public struct RefreshAnswer: Codable, Sendable, Equatable {
    /// Items imported, by kind.
    public struct Counts: Codable, Sendable, Equatable {
        public var live: Int
        public var movies: Int
        public var series: Int
        public var episodes: Int

        public init(live: Int, movies: Int, series: Int, episodes: Int) {
            self.live = live
            self.movies = movies
            self.series = series
            self.episodes = episodes
        }
    }

    /// What the source's guide import stored and skipped.
    public struct GuideCounts: Codable, Sendable, Equatable {
        public var channels: Int
        public var programmes: Int
        /// Programmes already over before the retention window, or without a usable time.
        public var skipped: Int

        public init(channels: Int, programmes: Int, skipped: Int) {
            self.channels = channels
            self.programmes = programmes
            self.skipped = skipped
        }
    }

    /// The source after the refresh, without its secrets.
    public var source: SourceAnswer?
    public var counts: Counts
    /// The source's guide, imported after its items when it has guide URLs.
    public var guide: GuideCounts?
    /// Why the guide failed (the items were imported; the previous guide is kept).
    public var guideError: String?

    public init(source: SourceAnswer?, counts: Counts, guide: GuideCounts?, guideError: String?) {
        self.source = source
        self.counts = counts
        self.guide = guide
        self.guideError = guideError
    }
}
