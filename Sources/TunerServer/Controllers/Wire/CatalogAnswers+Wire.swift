import Catalog
import Hummingbird
import TunerAPI
import TunerApp

extension SourceAnswer: ResponseEncodable {
    /// `source` as the library gives it to clients (``CatalogSource/forClients``: no password).
    init(_ source: CatalogSource) {
        self.init(
            id: source.id, kind: source.kind.rawValue, name: source.name, location: source.location,
            xtream: source.xtream.map { Xtream(server: $0.server, username: $0.username, password: $0.password) },
            epgURLs: source.epgURLs, refreshInterval: source.refreshInterval, lastRefresh: source.lastRefresh,
            lastError: source.lastError, status: source.status.rawValue, maxConnections: source.maxConnections,
            providerMaxConnections: source.providerMaxConnections)
    }
}

extension SourceList: ResponseEncodable {}

extension GroupAnswer {
    init(_ group: CatalogGroup) {
        self.init(
            id: group.id, sourceID: group.sourceID, kind: group.kind.rawValue, name: group.name,
            itemCount: group.itemCount)
    }
}

extension GroupList: ResponseEncodable {}

extension EpisodeAnswer {
    init(_ episode: CatalogEpisode) {
        self.init(
            id: episode.id, seriesID: episode.seriesID, season: episode.season, episode: episode.episode,
            title: episode.title, url: episode.url,
            headers: episode.headers.map { ChannelAnswer.Header(name: $0.name, value: $0.value) },
            duration: episode.duration)
    }
}

extension ProgrammeAnswer {
    init(_ programme: GuideProgramme) {
        self.init(
            id: programme.id, epgID: programme.epgID, start: programme.start, stop: programme.stop,
            title: programme.title, subtitle: programme.subtitle, description: programme.description,
            category: programme.category, icon: programme.icon, season: programme.season,
            episode: programme.episode, catchupID: programme.catchupID)
    }
}

extension PlayAnswer: ResponseEncodable {}

extension FavouriteAnswer: ResponseEncodable {}

extension EpisodesAnswer: ResponseEncodable {}

extension EpisodePlayAnswer: ResponseEncodable {}

extension ShortEPGAnswer: ResponseEncodable {}

extension RefreshAnswer: ResponseEncodable {
    init(_ refreshed: Library.Refreshed) {
        let counts = refreshed.counts
        self.init(
            source: refreshed.source.map(SourceAnswer.init),
            counts: Counts(live: counts.live, movies: counts.movies, series: counts.series, episodes: counts.episodes),
            guide: refreshed.guide.map {
                GuideCounts(channels: $0.channels, programmes: $0.programmes, skipped: $0.skipped)
            },
            guideError: refreshed.guideError)
    }
}
