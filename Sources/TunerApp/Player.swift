import Catalog
import Foundation
import LiveTV
import MediaFormats
import Outputs
import Streaming

/// Play links: what a user opens to watch a channel, a film, an episode or a past programme.
///
/// A feature object: the HTTP API, the CLI (`tuner open`) and the web app call it alike, so
/// what "play channel 42" means is decided here once. Stateless apart from its parts, so it is
/// `Sendable` and called from many requests at once.
public final class Player: Sendable {
    let catalog: any CatalogStore
    let signer: StreamLinkSigner
    /// The clock catch-up compares programme times with, in seconds since 1970.
    let now: @Sendable () -> Int64
    /// Where the server may fetch from: a proxy URL for anywhere else would only fail later.
    let fetchPolicy: FetchPolicy
    /// The time-shift windows, whose channels marked for local catch-up offer it where the
    /// provider has none.
    let timeshift: Timeshift?

    public init(
        catalog: any CatalogStore, signer: StreamLinkSigner, fetchPolicy: FetchPolicy = .any,
        timeshift: Timeshift? = nil, now: @escaping @Sendable () -> Int64 = { Int64(Date().timeIntervalSince1970) }
    ) {
        self.catalog = catalog
        self.signer = signer
        self.fetchPolicy = fetchPolicy
        self.timeshift = timeshift
        self.now = now
    }

    /// A signed proxy URL for any `url`, with `headers` sent upstream on every fetch, on the
    /// server at `baseURL`.
    public func proxyURL(for text: String, headers: [String: String]?, baseURL: String) throws(FeatureError) -> String {
        try FeatureError.streaming { () throws(StreamError) in
            let link = try StreamLink.requested(url: text, headers: headers, fetchPolicy: fetchPolicy)
            return try signer.proxyURL(for: link, baseURL: baseURL)
        }
    }

    /// A signed proxy URL that plays item `id` (a channel, film or episode) on the server at
    /// `baseURL`, with the headers its provider needs.
    public func play(itemID id: Int64, baseURL: String) async throws -> PlayLink {
        let item = try await item(id)
        guard let text = item.url, let url = URL(string: text) else {
            throw FeatureError(.notPlayable, "item \(id) has no stream of its own (a series plays by episode)")
        }
        // A live channel's link plays through its live session: one upstream for every viewer. An
        // HLS channel shares its segments through the cache instead.
        let live = item.kind == .live && !LiveSessions.isHLS(url)
        // Every live channel's link names it: a TS one plays through its session, an HLS one is
        // counted against its source's connections while it plays.
        let link = try proxyURL(url, item: item, baseURL: baseURL, live: item.kind == .live)
        // Browsers: a TS channel as HLS with fMP4 segments (same signed path, another name); an
        // HLS channel as it is.
        var hls: String?
        if live, let slash = link.lastIndex(of: "/") {
            hls = link[...slash] + LiveHLSSession.playlistName
        } else if item.kind == .live {
            hls = link
        }
        return PlayLink(proxyURL: link, item: item, hlsURL: hls)
    }

    /// A signed proxy URL for item `id`'s logo on the server at `baseURL`: pages and players fetch
    /// logos through Tuner, never from the provider's address. Throws `notFound` when the item has
    /// no http(s) logo.
    public func logoURL(itemID id: Int64, baseURL: String) async throws(FeatureError) -> String {
        let found: CatalogItem?
        do {
            found = try await catalog.item(id: id)
        } catch {
            throw FeatureError(.failed, "the catalog could not be read: \(error)", cause: error)
        }
        guard let item = found else { throw FeatureError(.notFound, "no item with id \(id)") }
        guard let url = Self.logoURL(of: item, player: self, baseURL: baseURL) else {
            throw FeatureError(.notFound, "item \(id) has no logo")
        }
        return url
    }

    /// The proxied logo of `item`, or nil when it has none (or none Tuner may fetch).
    static func logoURL(of item: CatalogItem, player: Player, baseURL: String) -> String? {
        // A logo uploaded to Tuner (the lineup editor's): served by Tuner itself.
        if let logo = item.logo, let uploaded = ChannelLogo(reference: logo) {
            return baseURL + "/logos/" + uploaded.name
        }
        guard let logo = item.logo, logo.hasPrefix("http://") || logo.hasPrefix("https://") else { return nil }
        // An image link: served only as a raster image, never as the HTML or SVG a provider may send.
        guard var link = try? StreamLink.requested(url: logo, headers: nil, fetchPolicy: player.fetchPolicy) else {
            return nil
        }
        link.kind = .image
        return try? player.signer.proxyURL(for: link, baseURL: baseURL)
    }

    /// What a past programme of a channel is: one from the guide, or a time span.
    public enum CatchupTarget: Sendable, Equatable {
        case programme(id: Int64)
        case span(start: Int64, end: Int64)
        /// The programme on the channel at this time, or, without a guide there, an hour from it.
        case at(Int64)
    }

    /// A URL that plays a past programme of channel `id`: a signed proxy URL from the channel's
    /// catch-up settings (templates or Xtream timeshift), or, for a channel marked for local
    /// catch-up, its time-shift window as MP4 for browsers.
    public func catchup(itemID id: Int64, target: CatchupTarget, baseURL: String) async throws -> CatchupLink {
        let item = try await item(id)
        if let days = localCatchupDays(of: item) {
            let (start, end, programme) = try await span(of: item, target: target, days: days)
            return CatchupLink(
                proxyURL: baseURL + "/api/v1/channels/\(id)/timeshift/stream.mp4?from=\(start)&to=\(end)",
                start: start, end: end, programme: programme)
        }
        let (url, start, end, programme) = try await catchupSource(item, target: target)
        return CatchupLink(
            proxyURL: try proxyURL(url, item: item, baseURL: baseURL), start: start, end: end, programme: programme)
    }

    /// Where a past programme plays from.
    public enum CatchupPlayback: Sendable {
        /// The provider's catch-up URL, with the headers it needs.
        case provider(StreamLink)
        /// The channel's own time-shift window (local catch-up), over `[start, end)` in seconds.
        case window(TimeshiftWindow, start: Int64, end: Int64)
    }

    /// Where a past programme of channel `id` plays from: what the outputs' `/play?utc=` and
    /// Xtream's `/timeshift/` answer.
    public func catchupPlayback(itemID id: Int64, target: CatchupTarget) async throws -> CatchupPlayback {
        let item = try await item(id)
        if let days = localCatchupDays(of: item) {
            let (start, end, _) = try await span(of: item, target: target, days: days)
            guard let window = timeshift?.window(for: id),
                TimeshiftReader.holds(window, from: start * 1000, to: end * 1000)
            else {
                throw FeatureError(
                    .notFound,
                    "channel \(id)'s local catch-up holds nothing of that time: it keeps what played since it was "
                        + "marked, \(days) days at most")
            }
            return .window(window, start: start, end: end)
        }
        let (url, _, _, _) = try await catchupSource(item, target: target)
        return .provider(
            StreamLink(url: url, headers: item.headers.map { StreamHeader(name: $0.name, value: $0.value) }))
    }

    /// The days of local catch-up `item` offers: marked, and without catch-up of its provider's.
    func localCatchupDays(of item: CatalogItem) -> Int? {
        guard item.kind == .live, item.catchup == nil else { return nil }
        return timeshift?.catchupDays(of: item.id)
    }

    /// `item` as players are told about it: a channel marked for local catch-up carries catch-up
    /// of type `local` with its days, where its provider offers none.
    public func withLocalCatchup(_ item: CatalogItem) -> CatalogItem {
        guard let days = localCatchupDays(of: item) else { return item }
        var shown = item
        shown.catchup = CatalogCatchup(type: "local", days: days)
        return shown
    }

    private func catchupSource(_ item: CatalogItem, target: CatchupTarget) async throws
        -> (URL, Int64, Int64, GuideProgramme?)
    {
        let id = item.id
        guard let catchup = item.catchup, let streamURL = item.url else {
            throw FeatureError(.notPlayable, "channel \(id) has no catch-up (its playlist sets no catchup attributes)")
        }
        let (start, end, programme) = try await span(of: item, target: target, days: catchup.days)
        let request = CatchupURLBuilder.Request(
            streamURL: streamURL, catchup: catchup, start: start, end: end, now: now(), catchupID: programme?.catchupID)
        guard let text = CatchupURLBuilder.url(for: request), let url = URL(string: text) else {
            throw FeatureError(.notPlayable, "channel \(id)'s catch-up settings (type \(catchup.type)) give no URL")
        }
        return (url, start, end, programme)
    }

    /// The span of a past programme: from the guide, a span, or the programme at an instant;
    /// refused when it has not started or is older than `days` of catch-up.
    private func span(of item: CatalogItem, target: CatchupTarget, days: Int?) async throws
        -> (start: Int64, end: Int64, programme: GuideProgramme?)
    {
        let id = item.id
        var programme: GuideProgramme?
        let start: Int64
        let end: Int64
        switch target {
        case .programme(let programmeID):
            guard let found = try await catalog.programme(id: programmeID) else {
                throw FeatureError(.notFound, "no programme with id \(programmeID) (old programmes are pruned)")
            }
            programme = found
            (start, end) = (found.start, found.stop)
        case .span(let from, let until):
            (start, end) = (from, until)
        case .at(let time):
            guard GuideTime.supported.contains(time) else {
                throw FeatureError(.invalid, "the time is outside the years 1 to 9999")
            }
            // In the supported years, so `time + 1` and `time + 3600` cannot overflow.
            let covering = try await catalog.guide(itemIDs: [id], from: time, to: time + 1)[id]?.first {
                $0.start <= time && time < $0.stop
            }
            programme = covering
            (start, end) = covering.map { ($0.start, $0.stop) } ?? (time, GuideTime.clamped(time + 3600))
        }
        guard end > start else { throw FeatureError(.invalid, "'end' must be after 'start'") }
        guard GuideTime.supported.contains(start), GuideTime.supported.contains(end) else {
            throw FeatureError(.invalid, "the programme's times are outside the years 1 to 9999")
        }
        let now = now()
        guard start < now else {
            throw FeatureError(.notPlayable, "the programme has not started yet; play the channel live")
        }
        // `days` comes from the playlist: compare in days rather than multiply, so no value overflows.
        if let days, days > 0, (now - start) / 86_400 >= Int64(days) {
            throw FeatureError(.notPlayable, "catch-up keeps \(days) days; this programme is older")
        }
        return (start, end, programme)
    }

    private func item(_ id: Int64) async throws -> CatalogItem {
        guard let item = try await catalog.item(id: id) else {
            throw FeatureError(.notFound, "no channel with id \(id)")
        }
        return item
    }

    private func proxyURL(_ url: URL, item: CatalogItem, baseURL: String, live: Bool = false) throws -> String {
        let headers = item.headers.map { StreamHeader(name: $0.name, value: $0.value) }
        do {
            return try signer.proxyURL(
                for: StreamLink(url: url, headers: headers, channel: live ? item.id : nil), baseURL: baseURL)
        } catch {
            throw FeatureError(.invalid, error.description)
        }
    }
}

/// A signed URL that plays a catalog item, with the item.
public struct PlayLink: Sendable, Codable, Equatable {
    public var proxyURL: String
    public var item: CatalogItem
    /// For a live channel: HLS with fMP4 segments, what browsers and Apple players play.
    public var hlsURL: String?
}

/// A signed URL that plays a past programme, with its times and, when known, the programme.
public struct CatchupLink: Sendable, Codable, Equatable {
    public var proxyURL: String
    public var start: Int64
    public var end: Int64
    public var programme: GuideProgramme?
}
