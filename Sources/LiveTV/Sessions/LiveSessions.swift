import AsyncHTTPClient
import Catalog
import Fetching
import Foundation
import Logging
import MediaFormats
import NIOCore
import Streaming
import Synchronization
import TunerAPI

/// The live-session registry: every route that plays a live channel (the proxy's channel links,
/// the outputs' `/play`, Xtream's `/live/`, the lineup) asks it for a viewer, so a channel has
/// one upstream and one ffmpeg per profile however many watch it, and every limit is kept here:
/// a source's connections (its accounts), an output user's streams and an output profile's tuners.
///
/// A feature object: `Sendable`, its state behind a lock, shared by all requests.
public final class LiveSessions: Sendable {
    /// How many more times (every 100 ms) a viewer's node asks for a channel's place in the
    /// cluster while its new holder has not yet said where it is, before answering busy.
    static let claimRetries = 20

    public let settings: LiveSettings
    let catalog: any CatalogStore
    let client: HTTPClient
    /// Owns every session's task (MPEG-TS and HLS): one lifecycle, ended by ``shutdown()``.
    let work = BackgroundWork()
    let fetchPolicy: FetchPolicy
    let signer: StreamLinkSigner
    let logger: Logger
    /// Where HLS sessions write their segments (a folder each, removed when they end).
    let workDirectory: String
    /// The cluster this node plays channels in, if any: it says which node reads a channel's
    /// provider, and counts a source's connections over every node.
    let cluster: (any LiveCluster)?
    /// The time-shift windows the channels' base sessions write to, when the settings keep them.
    public let timeshift: Timeshift?
    private let state = Mutex(RegistryState())

    /// What a session plays: each transcode size is a profile of its own (one ffmpeg each).
    struct Key: Hashable {
        var channelID: Int64
        var profile: StreamProfile
        var size: TranscodeSize?
    }

    /// What an HLS session plays: the channel, its segments' format, and the session it reads.
    struct HLSKey: Hashable {
        var channelID: Int64
        var format: LiveHLSSession.Format
        var profile: StreamProfile
    }

    struct RegistryState {
        var byKey: [Key: LiveSession] = [:]
        var byID: [String: LiveSession] = [:]
        /// HLS sessions: for browsers one per channel, for Xtream logins one per channel and profile.
        var hls: [HLSKey: LiveHLSSession] = [:]
        /// HLS channels played through the proxy (their segments shared by the cache): each holds
        /// one connection of its source while a player asked for its playlist recently.
        var hlsPlayers: [Int64: HLSPlayers] = [:]
        /// Where ffmpeg reaches this server (for HLS channels through the proxy).
        var localBaseURL = "http://127.0.0.1"
        var closed = false
        /// What ended sessions added up to, so the totals never go down.
        var ended = Totals()
        /// The cluster claims each session holds (by session id), given back when it ends.
        var claims: [String: LiveClaims] = [:]
    }

    /// Who played an HLS channel's playlist through the proxy, and when.
    struct HLSPlayers {
        var sourceID: Int64
        var channelName: String
        var startedAt = Date()
        var addresses: [String: ContinuousClock.Instant] = [:]
        var lastRequest = ContinuousClock.now
        let id = LiveSessions.newID()

        /// Held while a playlist was asked for in the last 30 seconds (players poll every target
        /// duration, a few seconds).
        func isActive(at now: ContinuousClock.Instant) -> Bool { lastRequest.duration(to: now) < .seconds(30) }
    }

    /// Counts since the server started, for `/metrics`.
    public struct Totals: Sendable, Equatable {
        public var sessionsOpened = 0
        public var upstreamBytes: Int64 = 0
        public var downstreamBytes: Int64 = 0
        public var failovers = 0
        public var resyncs = 0
    }

    /// Totals over ended and open sessions.
    public var totals: Totals {
        let (ended, open) = state.withLock { ($0.ended, Array($0.byID.values)) }
        return open.map(\.info).reduce(into: ended) { totals, info in
            totals.upstreamBytes &+= info.upstreamBytes
            totals.downstreamBytes &+= info.downstreamBytes
            totals.failovers += info.failovers.count
            totals.resyncs += info.resyncs
        }
    }

    /// Who asks to watch, and what limits apply to them.
    public struct Request: Sendable {
        public var channelID: Int64
        public var profile: StreamProfile
        /// The size the player named (HDHomeRun's `?transcode=`), for the transcode profile only.
        public var transcodeSize: TranscodeSize?
        /// The client's address, as the server saw it.
        public var address: String
        /// An output user (Xtream login) and the streams it may have open at once.
        public var user: String?
        public var userLimit: Int?
        /// An output profile (HDHomeRun, M3U) and how many channels it may tune at once.
        public var outputProfile: String?
        public var profileLimit: Int?
        /// Preemption stops a session only for a request of higher priority than its viewers'.
        public var priority: Int
        /// Another node of the cluster relays this viewer to its own: it is served from a session
        /// of this node (reading the provider), never from a relay again.
        public var relayed = false

        public init(
            channelID: Int64, profile: StreamProfile = .direct, transcodeSize: TranscodeSize? = nil, address: String,
            user: String? = nil, userLimit: Int? = nil, outputProfile: String? = nil, profileLimit: Int? = nil,
            priority: Int = Priority.owner
        ) {
            self.channelID = channelID
            self.profile = profile
            self.transcodeSize = transcodeSize
            self.address = address
            self.user = user
            self.userLimit = userLimit
            self.outputProfile = outputProfile
            self.profileLimit = profileLimit
            self.priority = priority
        }
    }

    /// The priorities of the ways in: the owner's own screens over the players given an output,
    /// over Xtream logins (usually lent to others).
    public enum Priority {
        public static let owner = 100
        public static let outputProfile = 50
        public static let outputUser = 10
        /// ffmpeg reading a channel for a remux or transcode session: it carries its viewers'.
        static let internalReader = 0
    }

    public init(
        settings: LiveSettings, catalog: any CatalogStore, signer: StreamLinkSigner, fetchPolicy: FetchPolicy,
        workDirectory: String, cluster: (any LiveCluster)? = nil, timeshift: Timeshift? = nil, logger: Logger
    ) {
        self.cluster = cluster
        self.timeshift = timeshift
        self.settings = settings
        self.workDirectory = workDirectory
        // Segments of a previous run are of no use to anyone.
        try? FileManager.default.removeItem(atPath: workDirectory)
        self.catalog = catalog
        self.signer = signer
        self.fetchPolicy = fetchPolicy
        self.logger = logger
        client = LiveHTTPUpstream.makeClient()
    }

    /// Where ffmpeg reaches this server; the server sets it once it listens.
    public func setLocalBaseURL(_ base: String) {
        state.withLock { $0.localBaseURL = base }
    }

    // MARK: - Watching

    /// A viewer of channel `request.channelID` in `request.profile`: joins the session playing it,
    /// or opens one on a source with a free connection (the channel's own, else an alternative's).
    public func watch(_ request: Request) async throws(LiveError) -> LiveViewer {
        let item: CatalogItem
        do {
            guard let found = try await catalog.item(id: request.channelID) else {
                throw LiveError(.notFound, "no channel with id \(request.channelID)")
            }
            item = found
        } catch let error as LiveError {
            throw error
        } catch {
            throw LiveError(.failed, "the catalog could not be read: \(error)")
        }
        guard item.kind == .live else {
            throw LiveError(.notPlayable, "item \(item.id) is not a live channel")
        }
        guard let text = item.url, let url = URL(string: text) else {
            throw LiveError(.notPlayable, "channel \(item.id) has no stream")
        }
        var profile = request.profile
        let isHLS = Self.isHLS(url)
        // An HLS channel has no single TS body to share: as TS it always goes through ffmpeg.
        if isHLS, profile == .direct { profile = .remux }
        let size = profile == .transcode ? request.transcodeSize : nil
        let key = Key(channelID: item.id, profile: profile, size: size)
        let info = LiveViewerInfo(
            address: request.address, user: request.user, outputProfile: request.outputProfile, joinedAt: Date(),
            bytes: 0)

        if let viewer = try joinExisting(key, request: request, info: info) { return viewer }
        try checkLimits(key, request)

        let sources = await sourcesByID()
        if profile.usesFFmpeg, !isHLS {
            // One provider connection serves both: ffmpeg reads the channel's direct session.
            var reader = request
            reader.profile = .direct
            reader.transcodeSize = nil
            reader.address = "ffmpeg"
            reader.user = nil
            reader.userLimit = nil
            reader.outputProfile = nil
            reader.profileLimit = nil
            let internalRequest = reader
            let first = try await watch(internalRequest)
            let pending = PendingViewer(first)
            let upstream = LiveFFmpegUpstream.make(
                channelID: item.id, sourceID: nil, sourceName: nil, profile: profile, size: size,
                input: { [self] in
                    if let viewer = pending.take() { return .pipe(viewer) }
                    return .pipe(try await watch(internalRequest))
                }, settings: settings, logger: logger)
            do {
                return try open(key, item: item, upstream: upstream, request: request, info: info, sources: sources) {
                    failed, failures in
                    await Self.retry(upstream: failed, failures: failures)
                }
            } catch {
                first.close()
                throw error
            }
        }

        // In a cluster, one node reads a channel's provider; the others relay it.
        let claims = LiveClaims()
        if let cluster, !isHLS {
            var claim = await cluster.claim(channelID: item.id)
            // A node that has just taken the channel says where it is a moment later (two viewers
            // tuning at once on two nodes): ask again for a while before refusing the viewer.
            for _ in 0..<Self.claimRetries {
                guard case .unavailable = claim, !Task.isCancelled else { break }
                try? await Task.sleep(for: .milliseconds(100))
                claim = await cluster.claim(channelID: item.id)
            }
            switch claim {
            case .local:
                claims.add()
            case .relay(let relay):
                if request.relayed {
                    throw LiveError(.busy, "node \(relay.node) plays channel \(item.id) now; relay it from there")
                }
                let upstream = LiveRelayUpstream.make(relay: relay, channelID: item.id, client: client)
                return try open(
                    key, item: item, upstream: upstream, request: request, info: info, sources: sources, claims: claims
                ) { [self] failed, failures in
                    await nextInCluster(after: failed, failures: failures, of: item, size: size, claims: claims)
                }
            case .unavailable(let reason):
                throw LiveError(.busy, "channel \(item.id) cannot be placed in the cluster now (\(reason)); try again")
            }
        }
        do {
            return try await openOnProvider(
                key, item: item, request: request, info: info, sources: sources, isHLS: isHLS, size: size,
                claims: claims)
        } catch {
            await claims.releaseAll(channelID: item.id, cluster: cluster)
            throw error
        }
    }

    /// Opens a session of `item` on its provider (or a pooled account's alternative), preempting a
    /// lower-priority session when every connection is in use and settings allow.
    private func openOnProvider(
        _ key: Key, item: CatalogItem, request: Request, info: LiveViewerInfo, sources: [Int64: CatalogSource],
        isHLS: Bool, size: TranscodeSize?, claims: LiveClaims
    ) async throws(LiveError) -> LiveViewer {
        let profile = key.profile
        let candidates: [CatalogItem]
        if hasRoom(sourceID: item.sourceID, sources: sources, excluding: nil) {
            candidates = [item]
        } else {
            // The channel's account is full: take the same channel on a pooled account.
            candidates = [item] + ((try? await catalog.alternatives(of: item.id)) ?? [])
        }
        var chosen = await firstWithRoom(candidates, for: item.id, sources: sources, excluding: nil)
        if chosen == nil, settings.preemptWhenFull,
            await preempt(for: request, sourceIDs: Set(candidates.map(\.sourceID)))
        {
            chosen = await firstWithRoom(candidates, for: item.id, sources: sources, excluding: nil)
        }
        guard let chosen else {
            let limit = sources[item.sourceID]?.connectionLimit ?? 0
            throw LiveError(
                .busy,
                "every connection the provider allows is in use (\(limit) on source \(item.sourceID), and no "
                    + "alternative has a free one); try again when a stream stops")
        }
        let resumePoints = LiveResumePoints()
        let upstream = upstream(
            for: chosen, profile: profile, size: size, isHLS: isHLS, sources: sources, resumePoints: resumePoints)
        let chosenProfile = profile
        return try open(
            key, item: item, upstream: upstream, request: request, info: info, sources: sources, claims: claims
        ) { [self] failed, failures in
            await nextUpstream(
                after: failed, failures: failures, of: item, profile: chosenProfile, size: size,
                resumePoints: resumePoints)
        }
    }

    /// The first of `candidates` whose source has a free connection here and, in a cluster, over
    /// every node (the claimed channel `channelID` then reads it).
    private func firstWithRoom(
        _ candidates: [CatalogItem], for channelID: Int64, sources: [Int64: CatalogSource], excluding: Int64?
    ) async -> CatalogItem? {
        for candidate in candidates where hasRoom(sourceID: candidate.sourceID, sources: sources, excluding: excluding)
        {
            guard let cluster else { return candidate }
            let limit = sources[candidate.sourceID]?.connectionLimit
            if await cluster.use(sourceID: candidate.sourceID, limit: limit, for: channelID) { return candidate }
        }
        return nil
    }

    /// After a relay (or, once this node took the claim over, a provider) stopped: the claim is
    /// asked for again. Another holder is relayed; a free claim is taken and the channel read from
    /// its provider here, so viewers of this node keep their connections when the holder dies.
    private func nextInCluster(
        after failed: LiveUpstream, failures: Int, of item: CatalogItem, size: TranscodeSize?, claims: LiveClaims
    ) async -> LiveUpstream? {
        guard let cluster, failures <= 20 else { return nil }
        // A provider upstream of this node's own claim fails over as any other.
        if claims.count > 0 {
            return await nextUpstream(
                after: failed, failures: failures, of: item, profile: .direct, size: size,
                resumePoints: LiveResumePoints())
        }
        if failures > 1 { try? await Task.sleep(for: .milliseconds(500)) }
        switch await cluster.claim(channelID: item.id) {
        case .relay(let relay):
            return LiveRelayUpstream.make(relay: relay, channelID: item.id, client: client)
        case .unavailable:
            return LiveUpstream(channelID: item.id, sourceID: nil, sourceName: nil, label: "the cluster") { _ in
                throw LiveUpstreamError("the cluster cannot say which node plays channel \(item.id)")
            }
        case .local:
            claims.add()
            let sources = await sourcesByID()
            let candidates = [item] + ((try? await catalog.alternatives(of: item.id)) ?? [])
            guard let chosen = await firstWithRoom(candidates, for: item.id, sources: sources, excluding: nil) else {
                await claims.releaseAll(channelID: item.id, cluster: cluster)
                return LiveUpstream(channelID: item.id, sourceID: nil, sourceName: nil, label: "the cluster") { _ in
                    throw LiveUpstreamError("every connection the provider allows is in use in the cluster")
                }
            }
            let isHLS = chosen.url.flatMap(URL.init(string:)).map(Self.isHLS) ?? false
            return upstream(
                for: chosen, profile: .direct, size: size, isHLS: isHLS, sources: sources,
                resumePoints: LiveResumePoints())
        }
    }

    /// The upstream that reads `channel`: its URL, or ffmpeg on its HLS playlist through the proxy.
    /// `resumePoints`: the session's, so a file it was playing goes on where it stopped.
    private func upstream(
        for channel: CatalogItem, profile: StreamProfile, size: TranscodeSize?, isHLS: Bool,
        sources: [Int64: CatalogSource], resumePoints: LiveResumePoints
    ) -> LiveUpstream {
        guard isHLS else {
            return LiveHTTPUpstream.make(
                channel: channel, source: sources[channel.sourceID], client: client,
                fetchGate: FetchGate(policy: fetchPolicy),
                resumePoint: resumePoints.point(for: channel.id))
        }
        let signer = signer
        let base = state.withLock { $0.localBaseURL }
        return LiveFFmpegUpstream.make(
            channelID: channel.id, sourceID: channel.sourceID, sourceName: sources[channel.sourceID]?.name,
            profile: profile, size: size,
            input: {
                guard let text = channel.url, let url = URL(string: text) else {
                    throw LiveUpstreamError("channel \(channel.id) has no stream")
                }
                let link = StreamLink(
                    url: url, headers: channel.headers.map { StreamHeader(name: $0.name, value: $0.value) })
                do {
                    return .url(try signer.proxyURL(for: link, baseURL: base))
                } catch {
                    throw LiveUpstreamError("channel \(channel.id)'s link cannot be signed: \(error)")
                }
            }, settings: settings, logger: logger)
    }

    /// Joins the session playing `key`, if there is one (the join counts against the user's
    /// limit, not the profile's or the source's: it opens nothing).
    private func joinExisting(_ key: Key, request: Request, info: LiveViewerInfo) throws(LiveError) -> LiveViewer? {
        let session = state.withLock { $0.byKey[key] }
        guard let session, !session.hasEnded else { return nil }
        try checkUserLimit(request)
        guard let id = session.join(info, priority: request.priority) else { return nil }
        return LiveViewer(session: session, id: id)
    }

    /// Registers a new session for `key` and starts it, unless one appeared meanwhile (then the
    /// viewer joins that one and `upstream` is never opened).
    private func open(
        _ key: Key, item: CatalogItem, upstream: LiveUpstream, request: Request, info: LiveViewerInfo,
        sources: [Int64: CatalogSource], claims: LiveClaims = LiveClaims(),
        next: @escaping LiveSession.NextUpstream
    ) throws(LiveError) -> LiveViewer {
        let session = LiveSession(
            id: Self.newID(), channelID: item.id, channelName: item.name, profile: key.profile, settings: settings,
            logger: logger)
        // The channel's base session (the one its other profiles read) fills its window.
        let isHLS = item.url.flatMap(URL.init(string:)).map(Self.isHLS) ?? false
        let isBase = key.size == nil && (key.profile == .direct || (key.profile == .remux && isHLS))
        let window = isBase ? timeshift?.windowForSession(channelID: item.id, isFavourite: item.isFavourite) : nil
        let outcome: Result<(LiveSession, Bool), LiveError> = state.withLock { state in
            if state.closed { return .failure(LiveError(.failed, "the server is shutting down")) }
            if let existing = state.byKey[key], !existing.hasEnded { return .success((existing, false)) }
            let now = ContinuousClock.now
            if let sourceID = upstream.sourceID, let limit = sources[sourceID]?.connectionLimit,
                state.byID.values.filter({ !$0.hasEnded && $0.sourceID == sourceID }).count
                    + state.hlsPlayers.values.filter({ $0.sourceID == sourceID && $0.isActive(at: now) }).count
                    >= limit
            {
                return .failure(
                    LiveError(
                        .busy, "every connection source \(sourceID) allows (\(limit)) is in use; try again later"))
            }
            session.prepare(upstream)
            if let window { session.keep(in: window) }
            state.ended.sessionsOpened += 1
            state.byKey[key] = session
            state.byID[session.id] = session
            state.claims[session.id] = claims
            return .success((session, true))
        }
        let (target, created): (LiveSession, Bool)
        do {
            (target, created) = try outcome.get()
        } catch {
            releaseLater(claims, channelID: item.id)
            throw error
        }
        // Joined a session another request opened meanwhile: its claims are that session's.
        if !created { releaseLater(claims, channelID: item.id) }
        guard let id = target.join(info, priority: request.priority) else {
            throw LiveError(.busy, "the channel's session is closing; try again")
        }
        if created {
            logger.info("live session opened", metadata: ["session": "\(session.id)", "channel": "\(item.id)"])
            session.start(upstream, next: next, work: work) { [weak self] ended in self?.remove(ended) }
        }
        return LiveViewer(session: target, id: id)
    }

    /// Gives `claims` back to the cluster as a task of the engine's work (callers may hold no
    /// `await`; at shutdown the claims die with the node's connection).
    private func releaseLater(_ claims: LiveClaims, channelID: Int64) {
        guard let cluster, claims.count > 0 else { return }
        _ = work.start { await claims.releaseAll(channelID: channelID, cluster: cluster) }
    }

    private func remove(_ session: LiveSession) {
        let info = session.info
        if let claims = state.withLock({ $0.claims.removeValue(forKey: session.id) }) {
            releaseLater(claims, channelID: session.channelID)
        }
        state.withLock { state in
            guard state.byID.removeValue(forKey: session.id) != nil else { return }
            state.ended.upstreamBytes &+= info.upstreamBytes
            state.ended.downstreamBytes &+= info.downstreamBytes
            state.ended.failovers += info.failovers.count
            state.ended.resyncs += info.resyncs
            // Found by identity: the key's transcode size is the registry's, not the session's.
            if let key = state.byKey.first(where: { $0.value === session })?.key { state.byKey[key] = nil }
        }
    }

    /// After `failed` stopped: the next of the channel and its alternatives (in order, after the
    /// failed one) whose source has a free connection, two rounds at most, a second apart between
    /// rounds.
    private func nextUpstream(
        after failed: LiveUpstream, failures: Int, of item: CatalogItem, profile: StreamProfile,
        size: TranscodeSize?, resumePoints: LiveResumePoints
    ) async -> LiveUpstream? {
        let candidates = [item] + ((try? await catalog.alternatives(of: item.id)) ?? [])
        guard failures <= candidates.count * 2 else { return nil }
        let sources = await sourcesByID()
        let start = candidates.firstIndex { $0.id == failed.channelID } ?? 0
        for step in 1...candidates.count {
            let index = (start + step) % candidates.count
            // Coming back round to where it started: give the providers a moment.
            if index <= start || candidates.count == 1 { try? await Task.sleep(for: .seconds(1)) }
            let candidate = candidates[index]
            guard await firstWithRoom([candidate], for: item.id, sources: sources, excluding: failed.sourceID) != nil
            else { continue }
            let isHLS = candidate.url.flatMap(URL.init(string:)).map(Self.isHLS) ?? false
            return upstream(
                for: candidate, profile: profile, size: size, isHLS: isHLS, sources: sources,
                resumePoints: resumePoints)
        }
        return nil
    }

    /// ffmpeg sessions start ffmpeg again, three times at most, a second apart.
    private static func retry(upstream: LiveUpstream, failures: Int) async -> LiveUpstream? {
        guard failures <= 3 else { return nil }
        try? await Task.sleep(for: .seconds(1))
        return upstream
    }

    // MARK: - HLS channels through the proxy

    /// Notes that `address` asked for HLS channel `channelID`'s playlist; a channel not playing yet
    /// takes one of its source's connections, or is refused (busy) when they are all in use.
    public func noteHLSPlayer(channelID: Int64, address: String, link: StreamLink) async throws(LiveError) {
        let now = ContinuousClock.now
        let known = state.withLock { state -> Bool in
            guard var players = state.hlsPlayers[channelID], players.isActive(at: now) else { return false }
            players.addresses[address] = now
            players.lastRequest = now
            state.hlsPlayers[channelID] = players
            return true
        }
        if known { return }
        guard let item = try? await catalog.item(id: channelID) else { return }
        let sources = await sourcesByID()
        guard hasRoom(sourceID: item.sourceID, sources: sources, excluding: nil) else {
            let limit = sources[item.sourceID]?.connectionLimit ?? 0
            throw LiveError(
                .busy,
                "every connection source \(item.sourceID) allows (\(limit)) is in use; try again when a stream stops")
        }
        state.withLock { state in
            var players = HLSPlayers(sourceID: item.sourceID, channelName: item.name)
            players.addresses[address] = now
            state.hlsPlayers[channelID] = players
        }
    }

    // MARK: - HLS sessions

    /// The browser HLS session of live channel `channelID` (made on first use; it reads the
    /// channel's direct session, so the source's limits apply as to any viewer).
    public func hls(channelID: Int64, address: String) async throws(LiveError) -> LiveHLSSession {
        try await hls(Request(channelID: channelID, address: address, priority: Priority.owner), format: .browser)
    }

    /// The HLS session in `format` that plays `request.channelID`, made on first use. It reads the
    /// channel's session in `request.profile` (direct for browsers), so the source's limits apply as
    /// to any viewer. An output user is counted as a viewer once per address: a new address over
    /// its limit (its TS streams and its HLS addresses together) is refused.
    public func hls(_ request: Request, format: LiveHLSSession.Format) async throws(LiveError) -> LiveHLSSession {
        let profile = format == .browser ? .direct : request.profile
        let key = HLSKey(channelID: request.channelID, format: format, profile: profile)
        let existing = state.withLock { $0.hls[key] }.flatMap { $0.hasEnded ? nil : $0 }
        if existing?.isWatching(request.address) != true { try checkUserLimit(request) }
        if let existing { return existing }
        var internalRequest = Request(
            channelID: request.channelID, profile: profile, transcodeSize: request.transcodeSize,
            address: format == .browser ? "ffmpeg (hls)" : "ffmpeg (hls-ts)", priority: request.priority)
        internalRequest.outputProfile = request.outputProfile
        let reader = try await watch(internalRequest)
        if format == .browser, reader.session.profile != .direct {
            reader.close()
            throw LiveError(.notPlayable, "channel \(request.channelID) is HLS already: play its proxy URL")
        }
        let id = Self.newID()
        let session = LiveHLSSession(
            id: id, channelID: request.channelID, channelName: reader.session.channelName, format: format,
            directory: workDirectory + "/" + id, settings: settings, logger: logger)
        let winner = state.withLock { state -> LiveHLSSession in
            if let existing = state.hls[key], !existing.hasEnded { return existing }
            state.hls[key] = session
            return session
        }
        guard winner === session else {
            reader.close()
            return winner
        }
        session.start(reader: reader, work: work) { [weak self] ended in
            self?.state.withLock { state in
                if state.hls[key] === ended { state.hls[key] = nil }
            }
        }
        return session
    }

    /// The running HLS session `id` of `channelID`, if any: segments are served only from a session
    /// a playlist request made.
    public func runningHLS(id: String, channelID: Int64) -> LiveHLSSession? {
        state.withLock { state in
            state.hls.values.first { $0.id == id && $0.channelID == channelID && !$0.hasEnded }
        }
    }

    // MARK: - Alternatives

    /// The channels a session of `channelID` fails over to, in order, and whether the user chose
    /// them (else they are found by tvg-id and name in other sources).
    public func alternatives(of channelID: Int64) async throws(LiveError) -> (items: [CatalogItem], chosen: Bool) {
        do {
            let chosen = try await catalog.chosenAlternatives(of: channelID)
            if !chosen.isEmpty { return (chosen, true) }
            return (try await catalog.alternatives(of: channelID), false)
        } catch let error as CatalogError where error.isNotFound {
            throw LiveError(.notFound, "no channel with id \(channelID)")
        } catch {
            throw LiveError(.failed, "the catalog could not be read: \(error)")
        }
    }

    /// Sets the alternatives of `channelID` in order (at most 20 other live channels); an empty
    /// list goes back to the automatic ones.
    public func setAlternatives(of channelID: Int64, to ids: [Int64]) async throws(LiveError) {
        guard ids.count <= 20, Set(ids).count == ids.count, !ids.contains(channelID) else {
            throw LiveError(.invalid, "alternatives are at most 20 other channels, each once")
        }
        do {
            try await catalog.setAlternatives(of: channelID, to: ids)
        } catch let error as CatalogError where error.isNotFound {
            throw LiveError(.notFound, "\(error.description): alternatives must be live channels")
        } catch {
            throw LiveError(.failed, "the alternatives could not be stored: \(error)")
        }
    }

    // MARK: - Limits

    private func sourcesByID() async -> [Int64: CatalogSource] {
        let sources = (try? await catalog.sources()) ?? []
        return Dictionary(sources.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
    }

    /// Whether source `sourceID` has a free connection; `excluding` is a connection about to be
    /// given back (a session moving off it).
    private func hasRoom(sourceID: Int64, sources: [Int64: CatalogSource], excluding: Int64?) -> Bool {
        guard let limit = sources[sourceID]?.connectionLimit else { return true }
        let now = ContinuousClock.now
        var used = state.withLock { state in
            state.byID.values.filter { !$0.hasEnded && $0.sourceID == sourceID }.count
                + state.hlsPlayers.values.filter { $0.sourceID == sourceID && $0.isActive(at: now) }.count
        }
        if excluding == sourceID { used -= 1 }
        return used < limit
    }

    /// The streams output users have open and the channels output profiles tune on this node
    /// (reported with a cluster node's heartbeat).
    public var usage: LiveUsage {
        state.withLock { state in
            var usage = LiveUsage()
            for session in state.byID.values {
                for viewer in session.viewerInfos {
                    if let user = viewer.user { usage.users[user, default: 0] += 1 }
                    if let profile = viewer.outputProfile {
                        usage.profiles[profile, default: []].insert(session.channelID)
                    }
                }
            }
            for hls in state.hls.values {
                for (user, count) in hls.viewersByUser { usage.users[user, default: 0] += count }
            }
            return usage
        }
    }

    private func checkUserLimit(_ request: Request) throws(LiveError) {
        guard let user = request.user, let limit = request.userLimit else { return }
        let here = state.withLock { state in
            state.byID.values.reduce(0) { $0 + $1.viewers { $0.user == user } }
                + state.hls.values.reduce(0) { $0 + $1.viewers(as: user) }
        }
        // In a cluster the user's streams on the other nodes count too.
        let open = here + (cluster?.usageElsewhere.users[user] ?? 0)
        if open >= limit {
            throw LiveError(
                .busy, "user '\(user)' already has \(open) stream(s) open, the most it may (\(limit)); stop one first")
        }
    }

    private func checkLimits(_ key: Key, _ request: Request) throws(LiveError) {
        try checkUserLimit(request)
        guard let profile = request.outputProfile, let limit = request.profileLimit else { return }
        // A tuner is a channel: the same channel in another stream profile tunes nothing new.
        let tuned = state.withLock { state in
            Set(state.byID.values.filter { $0.viewers { $0.outputProfile == profile } > 0 }.map(\.channelID))
        }.union(cluster?.usageElsewhere.profiles[profile] ?? [])
        if !tuned.contains(key.channelID), tuned.count >= limit {
            throw LiveError(
                .busy,
                "output profile '\(profile)' already plays \(tuned.count) channel(s), "
                    + "as many as it has tuners (\(limit))"
            )
        }
    }

    /// Stops the lowest-priority session on one of `sourceIDs` whose viewers all rank below the
    /// request; returns whether one was stopped.
    private func preempt(for request: Request, sourceIDs: Set<Int64>) async -> Bool {
        let victim = state.withLock { state in
            state.byID.values.filter { session in
                guard let sourceID = session.sourceID, sourceIDs.contains(sourceID) else { return false }
                return session.priority < request.priority
            }.min { ($0.priority, $0.viewerCount) < ($1.priority, $1.viewerCount) }
        }
        guard let victim else { return false }
        logger.info("live session preempted", metadata: ["session": "\(victim.id)", "channel": "\(victim.channelID)"])
        await victim.stopAndWait("stopped for a viewer of higher priority (the account had no free connection)")
        return true
    }

    // MARK: - The streams list

    /// The live sessions open now, oldest first.
    public var streams: [LiveStreamInfo] {
        let now = ContinuousClock.now
        let (sessions, sizes, hls, proxied) = state.withLock { state in
            // Forget HLS players that stopped asking.
            state.hlsPlayers = state.hlsPlayers.filter { $0.value.isActive(at: now) }
            // The size a transcode session makes is in its key, not in the session.
            let sizes = Dictionary(
                state.byKey.compactMap { key, session in key.size.map { (session.id, $0.rawValue) } },
                uniquingKeysWith: { first, _ in first })
            return (Array(state.byID.values), sizes, Array(state.hls.values), state.hlsPlayers)
        }
        let players = proxied.map { channelID, players in
            LiveStreamInfo(
                id: players.id, channelID: channelID, channelName: players.channelName, profile: "hls-proxy",
                upstreamChannelID: channelID, sourceID: players.sourceID, sourceName: nil,
                viewers: players.addresses.filter { $0.value.duration(to: now) < .seconds(30) }.keys.sorted().map {
                    LiveViewerInfo(address: $0, user: nil, outputProfile: nil, joinedAt: players.startedAt, bytes: 0)
                },
                upstreamBytesPerSecond: 0, downstreamBytesPerSecond: 0, upstreamBytes: 0, downstreamBytes: 0,
                startedAt: players.startedAt, failovers: [], resyncs: 0, continuityErrors: 0)
        }
        let infos = sessions.map { session in
            var info = session.info
            info.transcodeSize = sizes[session.id]
            return info
        }
        return (infos + hls.map(\.info) + players).sorted {
            ($0.startedAt, $0.id) < ($1.startedAt, $1.id)
        }
    }

    /// How many streams output user `user` has open (Xtream's `active_cons`).
    public func openStreams(user: String) -> Int {
        state.withLock { state in state.byID.values.reduce(0) { $0 + $1.viewers { $0.user == user } } }
    }

    /// Stops session `id`: its viewers' streams end.
    public func stop(id: String) async throws(LiveError) {
        let (session, hls) = state.withLock { state in
            (state.byID[id], state.hls.values.first { $0.id == id })
        }
        if let hls {
            await hls.stopAndWait("stopped by the user")
            return
        }
        guard let session else { throw LiveError(.notFound, "no live stream with id '\(id)'") }
        await session.stopAndWait("stopped by the user")
    }

    /// Stops every session and refuses new ones; the server calls it when it begins to shut down
    /// (endless answers would hold its graceful shutdown), the engine again at the end.
    public func shutdown() async {
        let (sessions, hls) = state.withLock { state in
            state.closed = true
            return (Array(state.byID.values), Array(state.hls.values))
        }
        for session in hls { await session.stopAndWait("the server is shutting down") }
        for session in sessions { await session.stopAndWait("the server is shutting down") }
        // Whatever still runs (a session that started while the others stopped) ends here.
        await work.shutdown()
    }

    /// Closes the live client; for the engine's shutdown, after ``shutdown()``.
    public func closeClient() async {
        try? await client.shutdown()
    }

    /// Whether `url` names an HLS playlist (by its extension, as players decide).
    public static func isHLS(_ url: URL) -> Bool {
        let ext = url.pathExtension.lowercased()
        return ext == "m3u8" || ext == "m3u"
    }

    static func newID() -> String {
        var generator = SystemRandomNumberGenerator()
        return String(generator.next() as UInt64, radix: 16)
    }
}

/// The cluster claims one session holds: taken when it opened on (or took over) the provider,
/// given back when it ends.
final class LiveClaims: Sendable {
    private let held = Mutex(0)

    var count: Int { held.withLock { $0 } }

    func add() { held.withLock { $0 += 1 } }

    /// Gives every claim back, once.
    func releaseAll(channelID: Int64, cluster: (any LiveCluster)?) async {
        let count = held.withLock { count in
            defer { count = 0 }
            return count
        }
        guard let cluster else { return }
        for _ in 0..<count { await cluster.release(channelID: channelID) }
    }
}

/// The direct-session viewer opened before an ffmpeg session starts: its first input takes it,
/// later inputs (after a restart) open a new one.
private final class PendingViewer: Sendable {
    private let viewer: Mutex<LiveViewer?>

    init(_ viewer: LiveViewer) { self.viewer = Mutex(viewer) }

    func take() -> LiveViewer? { viewer.withLock { $0.take() } }
}
