import Foundation
import Logging
import MediaCache
import MediaFormats
import NIOConcurrencyHelpers
import NIOCore
import NIOHTTP1

/// Plays streams through the cache: media as it is, HLS playlists with every URI rewritten to a
/// signed proxy URL, keys passed through without touching the disk, and the next segments
/// pre-fetched into the cache.
public final class StreamService: Sendable {
    /// How many segments after the one played (or the newest ones of a live playlist) are fetched
    /// ahead; 0 turns pre-fetching off.
    public let prefetchCount: Int
    let cache: MediaCache
    let signer: StreamLinkSigner
    let logger: Logger
    private let playlists = NIOLockedValueBox<[String: KnownPlaylist]>([:])
    private let prefetching = NIOLockedValueBox<Set<String>>([])
    /// Runs the pre-fetches, so the engine's shutdown cancels and awaits them.
    private let work: BackgroundWork
    private let counters = NIOLockedValueBox<[StreamKind: StreamCounters]>([:])
    /// URLs whose bytes were seen not to be a playlist, so their later requests are not sniffed.
    private let notPlaylists = NIOLockedValueBox<Set<String>>([])

    /// Requests and bytes served for one kind of stream.
    public struct StreamCounters: Sendable, Codable, Equatable {
        public var requests: Int64 = 0
        public var bytes: Int64 = 0
    }

    /// A parsed playlist kept in memory: VOD ones until evicted, live ones for half their target
    /// duration, masters briefly.
    struct KnownPlaylist {
        var playlist: HLSPlaylist
        var finalURL: URL
        var headers: [StreamHeader]
        var expires: ContinuousClock.Instant?
        var lastUsed: ContinuousClock.Instant
        /// Resolved segment URL → index in `playlist.segments`.
        var segmentIndex: [String: Int]
        /// Rewritten text per proxy base URL.
        var rewritten: [String: [UInt8]]
    }

    public init(
        cache: MediaCache, signer: StreamLinkSigner, prefetchCount: Int = 3, work: BackgroundWork = BackgroundWork(),
        logger: Logger
    ) {
        self.cache = cache
        self.signer = signer
        self.work = work
        self.prefetchCount = max(0, prefetchCount)
        self.logger = logger
    }

    /// How many rewritten playlist texts are held in memory, and their bytes (for tests and stats).
    var rewrittenTexts: (count: Int, bytes: Int) {
        playlists.withLockedValue { playlists in
            playlists.values.reduce((0, 0)) { sum, known in
                (sum.0 + known.rewritten.count, sum.1 + known.rewritten.values.reduce(0) { $0 + $1.count })
            }
        }
    }

    /// Per-kind counters (`playlist`, `segment`, `key`, …; links made by users count as `other`).
    public var statistics: [String: StreamCounters] {
        counters.withLockedValue { Dictionary(uniqueKeysWithValues: $0.map { ($0.key.rawValue, $0.value) }) }
    }

    /// Serves one request of a proxy URL. `proxyBase` (like `http://127.0.0.1:8080`) is where the
    /// rewritten URIs of a playlist point.
    public func serve(
        link: StreamLink, method: MediaRequest.Method, range: String?, ifRange: String?, requestID: String,
        proxyBase: String
    ) async -> MediaResponse {
        let request = MediaRequest(
            url: link.url, upstreamHeaders: link.headerPairs, method: method, range: range, ifRange: ifRange,
            requestID: requestID, storage: link.kind == .key ? .passthrough : .cache)
        switch link.kind {
        case .playlist:
            // On the pool: the body is collected chunk by chunk behind the origin fetch (a pool
            // task), and a loop-bound reader would cost a thread wake-up per chunk.
            return await withTaskExecutorPreference(globalConcurrentExecutor) {
                await servePlaylist(link, request: request, proxyBase: proxyBase)
            }
        case .key, .map, .part, .other:
            return counted(await cache.serve(request), kind: link.kind ?? .other)
        case .segment:
            let response = await cache.serve(request)
            if method == .get, response.status < 300, let playlist = link.playlist {
                prefetchAfter(segment: link.url, playlist: playlist)
            }
            return counted(response, kind: .segment)
        case nil:
            // A link made by a user: a playlist is recognised by its type or its first bytes.
            if method == .get, let known = freshPlaylist(link.url) {
                return await respond(playlist: link, known: known, method: method, proxyBase: proxyBase)
            }
            let response = await cache.serve(request)
            // The set first: a URL already seen not to be a playlist needs no look at its headers.
            guard method == .get, !notPlaylists.withLockedValue({ $0.contains(link.url.absoluteString) }),
                Self.mayBePlaylist(response)
            else {
                return counted(response, kind: .other)
            }
            return await withTaskExecutorPreference(globalConcurrentExecutor) {
                await sniffPlaylist(link, request: request, response: response, proxyBase: proxyBase)
            }
        }
    }

    /// A user's link whose answer may be a playlist: read whole (on the pool, see `.playlist`)
    /// and served rewritten if its first bytes say it is one.
    private func sniffPlaylist(
        _ link: StreamLink, request: MediaRequest, response: MediaResponse, proxyBase: String
    ) async -> MediaResponse {
        let method = request.method
        var whole = response
        if response.status == 206 {
            // Players such as ffmpeg ask for `bytes=0-` even for playlists: a read from the
            // start is answered whole (a server may ignore Range), so it can be rewritten.
            guard let contentRange = response.headers.first(name: "Content-Range"),
                contentRange.hasPrefix("bytes 0-")
            else {
                return counted(response, kind: .other)
            }
            var full = request
            full.range = nil
            full.ifRange = nil
            whole = await cache.serve(full)
        }
        guard whole.status == 200 else { return counted(whole, kind: .other) }
        guard let body = await whole.collectBody(limit: Self.playlistLimit) else {
            return MediaResponse(
                status: 502, headers: Self.textHeaders,
                body: MediaBody { try await $0.write(ByteBuffer(string: "the origin's answer was cut short\n")) })
        }
        guard Self.looksLikePlaylist(body) else {
            notPlaylists.withLockedValue { known in
                if known.count >= 10_000 { known.removeAll(keepingCapacity: true) }
                known.insert(link.url.absoluteString)
            }
            return counted(Self.buffered(whole, body: body), kind: .other)
        }
        return await processPlaylist(
            link, bytes: body, finalURL: whole.finalURL ?? link.url, method: method, proxyBase: proxyBase)
    }

    // MARK: - Playlists

    static let playlistLimit = 16 << 20
    /// Rewritten playlist texts kept per playlist (one per address clients use), and in all.
    static let rewrittenBasesPerPlaylist = 4
    static let rewrittenBytesLimit = 64 << 20
    static let textHeaders: HTTPHeaders = ["Content-Type": "text/plain; charset=utf-8"]

    private func servePlaylist(_ link: StreamLink, request: MediaRequest, proxyBase: String) async -> MediaResponse {
        if let known = freshPlaylist(link.url) {
            return await respond(playlist: link, known: known, method: request.method, proxyBase: proxyBase)
        }
        // Playlists are fetched whole: a rewritten playlist has its own length.
        var whole = request
        whole.range = nil
        whole.ifRange = nil
        whole.method = .get
        let response = await cache.serve(whole)
        guard response.status == 200 else { return counted(response, kind: .playlist) }
        guard let body = await response.collectBody(limit: Self.playlistLimit) else {
            return MediaResponse(
                status: 502, headers: Self.textHeaders,
                body: MediaBody {
                    try await $0.write(ByteBuffer(string: "the playlist is larger than 16 MiB or was cut short\n"))
                })
        }
        guard Self.looksLikePlaylist(body) else { return counted(Self.buffered(response, body: body), kind: .playlist) }
        return await processPlaylist(
            link, bytes: body, finalURL: response.finalURL ?? link.url, method: request.method, proxyBase: proxyBase)
    }

    /// The remembered playlist of `url`, unless it has expired.
    private func freshPlaylist(_ url: URL) -> KnownPlaylist? {
        let now = ContinuousClock.now
        guard let known = playlists.withLockedValue({ $0[url.absoluteString] }), known.expires.map({ now < $0 }) ?? true
        else { return nil }
        return known
    }

    private func processPlaylist(
        _ link: StreamLink, bytes: [UInt8], finalURL: URL, method: MediaRequest.Method, proxyBase: String
    ) async -> MediaResponse {
        guard let known = await Self.offLoop({ register(link, bytes: bytes, finalURL: finalURL) }) else {
            return MediaResponse(
                status: 200,
                headers: ["Content-Type": "application/vnd.apple.mpegurl", "Content-Length": String(bytes.count)],
                body: MediaBody { try await $0.write(ByteBuffer(bytes: bytes)) })
        }
        if !known.playlist.isMaster { prefetchStart(of: link.url) }
        return await respond(playlist: link, known: known, method: method, proxyBase: proxyBase)
    }

    /// Runs CPU-heavy work (parsing a playlist, rewriting thousands of URIs) on Swift's global
    /// pool: the server runs a stream request's task on its connection's event loop, and that
    /// loop must not stall the other connections it serves for the tens of milliseconds it takes.
    static func offLoop<T>(_ work: () -> T) async -> T {
        await withTaskExecutorPreference(globalConcurrentExecutor) { work() }
    }

    /// Parses a playlist and remembers it: VOD ones stay cached, live ones expire after half
    /// their target duration and are removed from the disk cache, masters expire after 10 s.
    private func register(_ link: StreamLink, bytes: [UInt8], finalURL: URL) -> KnownPlaylist? {
        let playlist: HLSPlaylist
        do {
            playlist = try HLSPlaylist(
                parsing: bytes, configuration: HLSParser.Configuration(throwsOnViolation: false, playlistURL: finalURL))
        } catch {
            logger.info("not an HLS playlist after all", metadata: ["url": "\(link.url)", "error": "\(error)"])
            return nil
        }
        if !playlist.warnings.isEmpty {
            logger.debug(
                "playlist has warnings", metadata: ["url": "\(link.url)", "count": "\(playlist.warnings.count)"])
        }
        let now = ContinuousClock.now
        var expires: ContinuousClock.Instant?
        if playlist.isMaster {
            expires = now + .seconds(10)
        } else if playlist.isLive {
            // Never older than half the target duration (RFC 8216 §6.3.4 asks clients to reload
            // at least that often).
            let target = Double(playlist.targetDuration ?? 2)
            expires = now + .milliseconds(Int64(max(0.5, target / 2) * 1000))
        }
        if expires != nil {
            // Only VOD playlists stay on disk: a live one there would be served stale.
            cache.remove(url: link.url)
        }
        let rewriter = HLSRewriter(baseURL: finalURL)
        var index: [String: Int] = [:]
        if !playlist.isMaster {
            for (position, segment) in playlist.segments.enumerated() {
                if let url = rewriter.resolve(segment.uri) { index[url.absoluteString] = position }
            }
        }
        let known = KnownPlaylist(
            playlist: playlist, finalURL: finalURL, headers: link.headers, expires: expires, lastUsed: now,
            segmentIndex: index, rewritten: [:])
        playlists.withLockedValue { playlists in
            // Bound memory: forget the least recently used playlists beyond 64.
            if playlists.count >= 64, let oldest = playlists.min(by: { $0.value.lastUsed < $1.value.lastUsed })?.key {
                playlists[oldest] = nil
            }
            playlists[link.url.absoluteString] = known
        }
        return known
    }

    /// A segment (or init section) to fetch, as a preload plans it.
    public struct PlannedSegment: Sendable, Equatable {
        public var url: URL
        public var range: Range<Int64>?
        /// 0 for an init section.
        public var duration: Double
        /// Seconds from the start of its playlist.
        public var start: Double = 0
        /// Part of the variant's separate audio rendition rather than of the variant itself.
        public var isAudio = false
    }

    /// The segments of a stream, for preloading: a master's variant is the one with the highest
    /// bandwidth at most `maxBandwidth` (the first variant when nil or none fits), and its init
    /// sections come before the segments that need them. When the variant's audio is a separate
    /// rendition (chosen as a player would, `HLSPlaylist.audioRendition`), its segments are
    /// merged in by start time, so the first seconds come with their sound.
    public func plannedSegments(link: StreamLink, maxBandwidth: Int? = nil) async throws(FeatureError)
        -> [PlannedSegment]
    {
        var known = try await loadPlaylist(link)
        var audio: [PlannedSegment] = []
        if known.playlist.isMaster {
            let master = known.playlist
            let rewriter = HLSRewriter(baseURL: known.finalURL)
            let variants = master.variants
            let chosen =
                maxBandwidth.flatMap { limit in
                    variants.filter { ($0.bandwidth ?? 0) <= limit }.max { ($0.bandwidth ?? 0) < ($1.bandwidth ?? 0) }
                } ?? variants.first
            guard let variant = chosen, let url = rewriter.resolve(variant.uri) else {
                throw FeatureError(.upstream, "the master playlist has no usable variant")
            }
            if let group = variant.audioGroup, let rendition = master.audioRendition(group: group),
                let uri = rendition.uri, let audioURL = rewriter.resolve(uri)
            {
                let audioPlaylist = try await loadPlaylist(
                    StreamLink(url: audioURL, headers: link.headers, kind: .playlist))
                audio = Self.segments(of: audioPlaylist, isAudio: true)
            }
            known = try await loadPlaylist(StreamLink(url: url, headers: link.headers, kind: .playlist))
        }
        let video = Self.segments(of: known, isAudio: false)
        guard !audio.isEmpty else { return video }
        // By start time, the variant's own first on ties; each list keeps its order.
        var merged: [PlannedSegment] = []
        merged.reserveCapacity(video.count + audio.count)
        var v = 0
        var a = 0
        while v < video.count || a < audio.count {
            if a == audio.count || (v < video.count && video[v].start <= audio[a].start) {
                merged.append(video[v])
                v += 1
            } else {
                merged.append(audio[a])
                a += 1
            }
        }
        return merged
    }

    /// A media playlist's init sections and segments, with their start times.
    private static func segments(of known: KnownPlaylist, isAudio: Bool) -> [PlannedSegment] {
        let rewriter = HLSRewriter(baseURL: known.finalURL)
        var planned: [PlannedSegment] = []
        var maps = Set<String>()
        var start = 0.0
        for segment in known.playlist.segments {
            if let map = segment.map, let url = rewriter.resolve(map.uri), Self.isUsable(map.byteRange) {
                let range = map.byteRange.flatMap(Self.byteRange)
                if maps.insert(url.absoluteString + "\(String(describing: range))").inserted {
                    planned.append(PlannedSegment(url: url, range: range, duration: 0, start: start, isAudio: isAudio))
                }
            }
            guard let url = rewriter.resolve(segment.uri), Self.isUsable(segment.byteRange) else { continue }
            planned.append(
                PlannedSegment(
                    url: url, range: segment.byteRange.flatMap(Self.byteRange),
                    duration: segment.duration, start: start, isAudio: isAudio))
            start += segment.duration
        }
        return planned
    }

    /// The parsed playlist of `link`, from memory while fresh, else from the cache or origin.
    func loadPlaylist(_ link: StreamLink) async throws(FeatureError) -> KnownPlaylist {
        if let known = freshPlaylist(link.url) { return known }
        let response = await cache.serve(MediaRequest(url: link.url, upstreamHeaders: link.headerPairs))
        guard response.status == 200 else {
            throw FeatureError(
                .upstream,
                "the origin answered \(response.status) for \(link.url.absoluteString)")
        }
        guard let body = await response.collectBody(limit: Self.playlistLimit), Self.looksLikePlaylist(body),
            let known = await Self.offLoop({ register(link, bytes: body, finalURL: response.finalURL ?? link.url) })
        else {
            throw FeatureError(.upstream, "\(link.url.absoluteString) is not an HLS playlist")
        }
        return known
    }

    private func respond(
        playlist link: StreamLink, known: KnownPlaylist, method: MediaRequest.Method, proxyBase: String
    ) async -> MediaResponse {
        let bytes: [UInt8]
        if let cached = known.rewritten[proxyBase] {
            bytes = cached
        } else {
            bytes = await withTaskExecutorPreference(globalConcurrentExecutor) {
                await rewrite(known, playlistURL: link.url, proxyBase: proxyBase)
            }
            playlists.withLockedValue { playlists in
                // The base comes from the request's Host: bound how many are kept per playlist,
                // and the rewritten bytes in all, so varying it cannot grow memory.
                let held = playlists.values.reduce(0) { $0 + $1.rewritten.values.reduce(0) { $0 + $1.count } }
                if held + bytes.count > Self.rewrittenBytesLimit {
                    for key in playlists.keys { playlists[key]?.rewritten.removeAll() }
                }
                if (playlists[link.url.absoluteString]?.rewritten.count ?? 0) >= Self.rewrittenBasesPerPlaylist {
                    playlists[link.url.absoluteString]?.rewritten.removeAll()
                }
                playlists[link.url.absoluteString]?.rewritten[proxyBase] = bytes
            }
        }
        playlists.withLockedValue { $0[link.url.absoluteString]?.lastUsed = .now }
        var headers: HTTPHeaders = [
            "Content-Type": "application/vnd.apple.mpegurl", "Content-Length": String(bytes.count),
        ]
        headers.add(name: "Cache-Control", value: known.expires == nil ? "max-age=3600" : "no-cache")
        counters.withLockedValue {
            $0[.playlist, default: StreamCounters()].requests += 1
            $0[.playlist, default: StreamCounters()].bytes += Int64(bytes.count)
        }
        return MediaResponse(
            status: 200, headers: headers,
            body: method == .head ? nil : MediaBody { try await $0.write(ByteBuffer(bytes: bytes)) },
            finalURL: known.finalURL)
    }

    /// The playlist's text with every URI a signed proxy URL carrying the same headers.
    ///
    /// Signing is most of the work (an HMAC and a seal per URI, and a long VOD playlist has
    /// 40,001), so the URIs are signed first, in parallel (a share per core), and then put in
    /// place by one rewriting pass.
    private func rewrite(_ known: KnownPlaylist, playlistURL: URL, proxyBase: String) async -> [UInt8] {
        let rewriter = HLSRewriter(baseURL: known.finalURL)
        let uris = rewriter.resolvedURIs(of: known.playlist)
        let shares = max(1, min(ProcessInfo.processInfo.activeProcessorCount, uris.count / 500))
        let shareSize = (uris.count + shares - 1) / shares
        var paths = [String?](repeating: nil, count: uris.count)
        await withTaskGroup(of: (Int, [String?]).self) { group in
            for start in stride(from: 0, to: uris.count, by: max(1, shareSize)) {
                let share = Array(uris[start..<min(uris.count, start + shareSize)])
                group.addTask { [signer, headers = known.headers] in
                    (
                        start,
                        share.map { Self.signedPath(signer, $0.url, $0.kind, headers: headers, playlist: playlistURL) }
                    )
                }
            }
            for await (start, signed) in group {
                paths.replaceSubrange(start..<(start + signed.count), with: signed)
            }
        }
        var position = 0
        let rewritten = rewriter.rewrite(known.playlist) { url, kind in
            defer { position += 1 }
            // The same walk as resolvedURIs, so the positions match; checked all the same.
            let path =
                position < uris.count && uris[position].url == url
                ? paths[position]
                : Self.signedPath(signer, url, kind, headers: known.headers, playlist: playlistURL)
            return path.map { proxyBase + $0 } ?? url.absoluteString
        }
        return rewritten.serializedBytes()
    }

    /// The proxy path of one URI of a playlist, or nil to leave it as it is: keys may be
    /// `skd://` or `data:` URIs that players handle themselves.
    private static func signedPath(
        _ signer: StreamLinkSigner, _ url: URL, _ kind: HLSURIKind, headers: [StreamHeader], playlist: URL
    ) -> String? {
        guard let scheme = url.scheme, scheme.lowercased() == "http" || scheme.lowercased() == "https" else {
            return nil
        }
        let streamKind = StreamKind(kind)
        let link = StreamLink(
            url: url, headers: headers, kind: streamKind, playlist: streamKind == .segment ? playlist : nil)
        return try? signer.path(for: link)
    }

    // MARK: - Pre-fetching

    /// After a media playlist is served: the first segments of a VOD, the newest of a live one.
    private func prefetchStart(of playlistURL: URL) {
        guard prefetchCount > 0, let known = playlists.withLockedValue({ $0[playlistURL.absoluteString] }) else {
            return
        }
        let count = known.playlist.segments.count
        let range = known.playlist.isLive ? max(0, count - prefetchCount)..<count : 0..<min(prefetchCount, count)
        prefetch(known, segments: range)
    }

    /// After a segment is served: the next segments of its playlist.
    private func prefetchAfter(segment: URL, playlist playlistURL: URL) {
        guard prefetchCount > 0, let known = playlists.withLockedValue({ $0[playlistURL.absoluteString] }),
            let position = known.segmentIndex[segment.absoluteString]
        else { return }
        let count = known.playlist.segments.count
        prefetch(known, segments: (position + 1)..<min(count, position + 1 + prefetchCount))
    }

    private func prefetch(_ known: KnownPlaylist, segments positions: Range<Int>) {
        let rewriter = HLSRewriter(baseURL: known.finalURL)
        let headers = known.headers.map { ($0.name, $0.value) }
        for position in positions {
            let segment = known.playlist.segments[position]
            guard let url = rewriter.resolve(segment.uri), Self.isUsable(segment.byteRange) else { continue }
            let range = segment.byteRange.flatMap(Self.byteRange)
            let key = url.absoluteString + (range.map { "#\($0.lowerBound)-\($0.upperBound)" } ?? "")
            if let status = cache.status(of: url), let meta = status.meta,
                status.cachedBytes >= (range.map { $0.upperBound - $0.lowerBound } ?? meta.length),
                range == nil || status.cachedBytes == meta.length
            {
                continue
            }
            guard prefetching.withLockedValue({ $0.insert(key).inserted }) else { continue }
            let started = work.start { [cache, prefetching, logger] in
                defer { _ = prefetching.withLockedValue { $0.remove(key) } }
                do {
                    _ = try await cache.preload(url: url, upstreamHeaders: headers, range: range)
                } catch {
                    logger.debug("pre-fetch failed", metadata: ["url": "\(url)", "error": "\(error)"])
                }
            }
            if started == nil { _ = prefetching.withLockedValue { $0.remove(key) } }
        }
    }

    // MARK: - Helpers

    /// A playlist's byte range as a range of the resource, or nil when it cannot be one (negative,
    /// empty or past Int64.max: a hostile playlist's numbers must not trap the server).
    static func byteRange(_ range: HLSByteRange) -> Range<Int64>? {
        guard range.offset >= 0, range.length > 0 else { return nil }
        let (end, overflow) = Int64(range.offset).addingReportingOverflow(Int64(range.length))
        return overflow ? nil : Int64(range.offset)..<end
    }

    /// Whether a segment's byte range (if it has one) can be fetched; those that cannot are skipped.
    static func isUsable(_ range: HLSByteRange?) -> Bool {
        range.map { byteRange($0) != nil } ?? true
    }

    private func counted(_ response: MediaResponse, kind: StreamKind) -> MediaResponse {
        guard let body = response.body else {
            counters.withLockedValue { $0[kind, default: StreamCounters()].requests += 1 }
            return response
        }
        if let bytes = body.bytes {
            // Already read: counted now, and left as it is so it can go out with the head.
            counters.withLockedValue {
                $0[kind, default: StreamCounters()].requests += 1
                $0[kind, default: StreamCounters()].bytes += Int64(bytes.readableBytes)
            }
            return response
        }
        counters.withLockedValue { $0[kind, default: StreamCounters()].requests += 1 }
        var counting = response
        counting.body = MediaBody { [counters] sink in
            var tallied: any MediaBodySink = CountingSink(inner: sink) { count in
                counters.withLockedValue { $0[kind, default: StreamCounters()].bytes += Int64(count) }
            }
            try await body.write(into: &tallied)
        }
        return counting
    }

    /// Whether a response may hold a playlist: an HLS type, or a small body of a generic type.
    static func mayBePlaylist(_ response: MediaResponse) -> Bool {
        let type = response.headers.first(name: "Content-Type")?.lowercased() ?? ""
        // Byte-wise: Foundation's `contains` on a String was a measurable part of a cached answer.
        if type.utf8.count >= 7, type.utf8.indices.contains(where: { type.utf8[$0...].starts(with: "mpegurl".utf8) }) {
            return true
        }
        let generic =
            type.isEmpty || type.hasPrefix("text/plain") || type.hasPrefix("application/octet-stream")
            || type.hasPrefix("binary/octet-stream")
        // The whole resource's length: a 206 carries it after the slash of Content-Range.
        let total = response.headers.first(name: "Content-Range").flatMap {
            $0.split(separator: "/").last.flatMap { Int($0) }
        }
        let length = total ?? response.headers.first(name: "Content-Length").flatMap(Int.init) ?? Int.max
        return generic && length <= 4 << 20
    }

    /// `#EXTM3U` first, after an optional BOM and white space.
    static func looksLikePlaylist(_ bytes: [UInt8]) -> Bool {
        var index = 0
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { index = 3 }
        while index < bytes.count,
            bytes[index] == 0x20 || bytes[index] == 0x09 || bytes[index] == 0x0A || bytes[index] == 0x0D
        { index += 1 }
        return bytes[index...].starts(with: Array("#EXTM3U".utf8))
    }

    static func buffered(_ response: MediaResponse, body: [UInt8]) -> MediaResponse {
        var copy = response
        copy.body = MediaBody { try await $0.write(ByteBuffer(bytes: body)) }
        return copy
    }
}

/// Reports the size of every buffer passing to another sink.
struct CountingSink: MediaBodySink {
    var inner: any MediaBodySink
    let report: @Sendable (Int) -> Void

    mutating func write(_ buffer: ByteBuffer) async throws {
        report(buffer.readableBytes)
        try await inner.write(buffer)
    }

    mutating func waitUntilHandedOver() async {
        await inner.waitUntilHandedOver()
    }

    mutating func write(_ region: CachedFileRegion) async throws -> Bool {
        guard try await inner.write(region) else { return false }
        report(Int(region.count))
        return true
    }
}

extension StreamKind {
    init(_ kind: HLSURIKind) {
        switch kind {
        case .segment: self = .segment
        case .playlist: self = .playlist
        case .key: self = .key
        case .map: self = .map
        case .part: self = .part
        default: self = .other
        }
    }
}
