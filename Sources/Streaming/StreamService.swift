import Foundation
import Logging
import MediaCache
import MediaFormats
import NIOCore
import NIOHTTP1
import Synchronization

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
    private let playlists = Mutex<[String: KnownPlaylist]>([:])
    private let prefetching = Mutex<Set<String>>([])
    /// Runs the pre-fetches, so the engine's shutdown cancels and awaits them.
    private let work: BackgroundWork
    private let counters = Mutex<[StreamKind: StreamCounters]>([:])
    /// URLs whose bytes were seen not to be a playlist, so their later requests are not sniffed.
    private let notPlaylists = Mutex<Set<String>>([])

    /// Requests and bytes served for one kind of stream.
    public struct StreamCounters: Sendable, Codable, Equatable {
        public var requests: Int64 = 0
        public var bytes: Int64 = 0
    }

    /// Where a rewritten playlist's URIs point: the proxy's address as the player used it, and
    /// whether the playlist is served at its link's own `/stream/…` path, so its segments can be
    /// named relative to it.
    struct RewriteTarget: Hashable, Sendable {
        var proxyBase: String
        var relativeSegments: Bool
    }

    /// A parsed playlist kept in memory: VOD ones until evicted, live ones for half their target
    /// duration, masters briefly.
    struct KnownPlaylist {
        var playlist: HLSPlaylist
        var finalURL: URL
        var headers: [StreamHeader]
        var expires: ContinuousClock.Instant?
        var lastUsed: ContinuousClock.Instant
        /// The resolved URLs of segments that left a live playlist's window, by media sequence
        /// number: a player a little behind may still ask for them (bounded, the newest kept).
        var departed: [Int: String] = [:]
        /// Rewritten text per proxy base URL (and whether segments were named relatively).
        var rewritten: [RewriteTarget: ByteBuffer]
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
        playlists.withLock { playlists in
            playlists.values.reduce((0, 0)) { sum, known in
                (sum.0 + known.rewritten.count, sum.1 + known.rewritten.values.reduce(0) { $0 + $1.readableBytes })
            }
        }
    }

    /// Per-kind counters (`playlist`, `segment`, `key`, …; links made by users count as `other`).
    public var statistics: [String: StreamCounters] {
        counters.withLock { Dictionary(uniqueKeysWithValues: $0.map { ($0.key.rawValue, $0.value) }) }
    }

    /// Serves one request of a proxy URL. `proxyBase` (like `http://127.0.0.1:8080`) is where the
    /// rewritten URIs of a playlist point. `atStreamPath` says the request's URL is the link's
    /// own `/stream/…` path: a media playlist's segments can then be named relative to it
    /// (`s<number>/<name>`), which keeps a long playlist about as small as the origin's.
    public func serve(
        link: StreamLink, method: MediaRequest.Method, range: String?, ifRange: String?, requestID: String,
        proxyBase: String, atStreamPath: Bool = false
    ) async -> MediaResponse {
        let target = RewriteTarget(proxyBase: proxyBase, relativeSegments: atStreamPath)
        let request = MediaRequest(
            url: link.url, upstreamHeaders: link.headerPairs, method: method, range: range, ifRange: ifRange,
            requestID: requestID, storage: link.kind == .key ? .passthrough : .cache)
        switch link.kind {
        case .playlist:
            // On the pool: the body is collected chunk by chunk behind the origin fetch (a pool
            // task), and a loop-bound reader would cost a thread wake-up per chunk.
            return await withTaskExecutorPreference(globalConcurrentExecutor) {
                await servePlaylist(link, request: request, target: target)
            }
        case .key, .map, .part, .other:
            return counted(await cache.serve(request), kind: link.kind ?? .other)
        case .image:
            return counted(await serveImage(request), kind: .image)
        case .segment:
            // A segment link of its own (made before segments were named by sequence number):
            // served as it is, without pre-fetching.
            return counted(await cache.serve(request), kind: .segment)
        case nil:
            // A link made by a user: a playlist is recognised by its type or its first bytes.
            if method == .get, let known = freshPlaylist(link.url) {
                return await respond(playlist: link, known: known, method: method, target: target)
            }
            let response = await cache.serve(request)
            guard method == .get, mayNeedSniffing(response, url: link.url.absoluteString) else {
                return counted(response, kind: .other)
            }
            return await withTaskExecutorPreference(globalConcurrentExecutor) {
                await sniffPlaylist(link, request: request, response: response, target: target)
            }
        }
    }

    /// What ``serve(link:method:range:ifRange:requestID:proxyBase:atStreamPath:)`` answers to a `GET`
    /// of `link`, when that is cached bytes read now (``MediaCache/serveHeld(_:)``), counted the
    /// same way. Nil for anything else: a playlist (rewritten), a key (never stored), a user's
    /// link not yet seen not to be a playlist, or bytes the cache would have to wait for; the
    /// caller then uses `serve`.
    public func serveHeld(link: StreamLink, range: String?, ifRange: String?, requestID: String) -> MediaResponse? {
        var isNotPlaylist: (MediaResponse) -> Bool = { _ in true }
        switch link.kind {
        case .map, .part, .other, .segment:
            break
        case nil:
            // As `serve` decides it: a known playlist is rewritten, and an answer that may be one
            // is sniffed, unless its URL was seen not to be one.
            guard freshPlaylist(link.url) == nil else { return nil }
            let url = link.url.absoluteString
            isNotPlaylist = { [self] head in !mayNeedSniffing(head, url: url) }
        case .playlist, .key, .image:
            // An image is read whole and checked first (see `serveImage`).
            return nil
        }
        let request = MediaRequest(
            url: link.url, upstreamHeaders: link.headerPairs, method: .get, range: range, ifRange: ifRange,
            requestID: requestID, storage: .cache)
        guard let response = cache.serveHeld(request, accepting: isNotPlaylist) else { return nil }
        return counted(response, kind: link.kind ?? .other)
    }

    /// The largest logo or poster served.
    static let imageLimit = 8 << 20

    /// A logo or poster: served only as a raster image, with the type its first bytes say
    /// (`ProviderContentType.rasterImage`), whether it comes from the origin or from the cache;
    /// anything else (an HTML or SVG "logo") is refused with 502. A range is answered whole.
    private func serveImage(_ request: MediaRequest) async -> MediaResponse {
        var whole = request
        whole.method = .get
        whole.range = nil
        whole.ifRange = nil
        let response = await cache.serve(whole)
        guard response.status == 200 else { return response }
        guard let body = await response.collectBody(limit: Self.imageLimit),
            let type = ProviderContentType.rasterImage(
                contentType: response.headers.first(name: "Content-Type"), firstBytes: body.prefix(16))
        else {
            let text = "the origin's answer is not a PNG, JPEG, GIF or WebP image, so Tuner does not serve it\n"
            var headers = Self.textHeaders
            headers.add(name: "Content-Length", value: String(text.utf8.count))
            return MediaResponse(
                status: 502, headers: headers,
                body: request.method == .head ? nil : MediaBody { try await $0.write(ByteBuffer(string: text)) })
        }
        var headers = HTTPHeaders()
        for (name, value) in response.headers where name.lowercased() != "content-type" {
            headers.add(name: name, value: value)
        }
        headers.replaceOrAdd(name: "Content-Type", value: type)
        var answer = MediaResponse(status: 200, headers: headers, body: nil, finalURL: response.finalURL)
        if request.method != .head { answer = Self.buffered(answer, body: body) }
        return answer
    }

    /// Whether the answer to a user's link (`url`) may be a playlist, so its first bytes must be
    /// read: not when the URL was seen not to be one (checked first: no look at the headers).
    private func mayNeedSniffing(_ response: MediaResponse, url: String) -> Bool {
        !notPlaylists.withLock { $0.contains(url) } && Self.mayBePlaylist(response)
    }

    /// A user's link whose answer may be a playlist: read whole (on the pool, see `.playlist`)
    /// and served rewritten if its first bytes say it is one.
    private func sniffPlaylist(
        _ link: StreamLink, request: MediaRequest, response: MediaResponse, target: RewriteTarget
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
            notPlaylists.withLock { known in
                if known.count >= 10_000 { known.removeAll(keepingCapacity: true) }
                known.insert(link.url.absoluteString)
            }
            return counted(Self.buffered(whole, body: body), kind: .other)
        }
        return await processPlaylist(
            link, bytes: body, finalURL: whole.finalURL ?? link.url, method: method, target: target)
    }

    // MARK: - Playlists

    static let playlistLimit = 16 << 20
    /// Rewritten playlist texts kept per playlist (one per address clients use), and in all.
    static let rewrittenBasesPerPlaylist = 4
    static let rewrittenBytesLimit = 64 << 20
    static let textHeaders: HTTPHeaders = ["Content-Type": "text/plain; charset=utf-8"]

    private func servePlaylist(_ link: StreamLink, request: MediaRequest, target: RewriteTarget) async -> MediaResponse
    {
        if let known = freshPlaylist(link.url) {
            return await respond(playlist: link, known: known, method: request.method, target: target)
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
            link, bytes: body, finalURL: response.finalURL ?? link.url, method: request.method, target: target)
    }

    /// The remembered playlist of `url`, unless it has expired.
    private func freshPlaylist(_ url: URL) -> KnownPlaylist? {
        let now = ContinuousClock.now
        guard let known = playlists.withLock({ $0[url.absoluteString] }), known.expires.map({ now < $0 }) ?? true
        else { return nil }
        return known
    }

    private func processPlaylist(
        _ link: StreamLink, bytes: [UInt8], finalURL: URL, method: MediaRequest.Method, target: RewriteTarget
    ) async -> MediaResponse {
        guard let known = await Self.offLoop({ register(link, bytes: bytes, finalURL: finalURL) }) else {
            return MediaResponse(
                status: 200,
                headers: ["Content-Type": "application/vnd.apple.mpegurl", "Content-Length": String(bytes.count)],
                body: MediaBody { try await $0.write(ByteBuffer(bytes: bytes)) })
        }
        if !known.playlist.isMaster { prefetchStart(of: link.url) }
        return await respond(playlist: link, known: known, method: method, target: target)
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
        var known = KnownPlaylist(
            playlist: playlist, finalURL: finalURL, headers: link.headers, expires: expires, lastUsed: now,
            rewritten: [:])
        let previous = playlists.withLock { $0[link.url.absoluteString] }
        if playlist.isLive, let previous, !previous.playlist.isMaster {
            known.departed = Self.departedSegments(from: previous, before: playlist.mediaSequence)
        }
        playlists.withLock { playlists in
            // Bound memory: forget the least recently used playlists beyond 64.
            if playlists.count >= 64, let oldest = playlists.min(by: { $0.value.lastUsed < $1.value.lastUsed })?.key {
                playlists[oldest] = nil
            }
            playlists[link.url.absoluteString] = known
        }
        return known
    }

    /// How many segments that left a live playlist stay reachable by their sequence numbers.
    static let departedLimit = 256

    /// The segments of `previous` numbered below `first` (the new version's first), with those
    /// that had left before it: the newest `departedLimit` of them.
    private static func departedSegments(from previous: KnownPlaylist, before first: Int) -> [Int: String] {
        var departed = previous.departed
        let rewriter = HLSRewriter(baseURL: previous.finalURL)
        for segment in previous.playlist.segments.suffix(departedLimit)
        where segment.mediaSequenceNumber < first {
            if let url = rewriter.resolveText(segment.uri) { departed[segment.mediaSequenceNumber] = url }
        }
        if departed.count > departedLimit {
            for number in departed.keys.sorted().prefix(departed.count - departedLimit) { departed[number] = nil }
        }
        return departed
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
    public func plannedSegments(link: StreamLink, maxBandwidth: Int? = nil) async throws(StreamError)
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
                throw StreamError(.upstream, "the master playlist has no usable variant")
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
    func loadPlaylist(_ link: StreamLink) async throws(StreamError) -> KnownPlaylist {
        if let known = freshPlaylist(link.url) { return known }
        let response = await cache.serve(MediaRequest(url: link.url, upstreamHeaders: link.headerPairs))
        guard response.status == 200 else {
            throw StreamError(
                .upstream,
                "the origin answered \(response.status) for \(link.url.absoluteString)")
        }
        guard let body = await response.collectBody(limit: Self.playlistLimit), Self.looksLikePlaylist(body),
            let known = await Self.offLoop({ register(link, bytes: body, finalURL: response.finalURL ?? link.url) })
        else {
            throw StreamError(.upstream, "\(link.url.absoluteString) is not an HLS playlist")
        }
        return known
    }

    private func respond(
        playlist link: StreamLink, known: KnownPlaylist, method: MediaRequest.Method, target: RewriteTarget
    ) async -> MediaResponse {
        let bytes: ByteBuffer
        if let cached = known.rewritten[target] {
            bytes = cached
        } else {
            bytes = await Self.offLoop { rewrite(known, link: link, target: target) }
            playlists.withLock { playlists in
                // The base comes from the request's Host: bound how many are kept per playlist,
                // and the rewritten bytes in all, so varying it cannot grow memory.
                let held = playlists.values.reduce(0) { $0 + $1.rewritten.values.reduce(0) { $0 + $1.readableBytes } }
                if held + bytes.readableBytes > Self.rewrittenBytesLimit {
                    for key in playlists.keys { playlists[key]?.rewritten.removeAll() }
                }
                if (playlists[link.url.absoluteString]?.rewritten.count ?? 0) >= Self.rewrittenBasesPerPlaylist {
                    playlists[link.url.absoluteString]?.rewritten.removeAll()
                }
                playlists[link.url.absoluteString]?.rewritten[target] = bytes
            }
        }
        playlists.withLock { $0[link.url.absoluteString]?.lastUsed = .now }
        var headers: HTTPHeaders = [
            "Content-Type": "application/vnd.apple.mpegurl", "Content-Length": String(bytes.readableBytes),
        ]
        headers.add(name: "Cache-Control", value: known.expires == nil ? "max-age=3600" : "no-cache")
        counters.withLock {
            $0[.playlist, default: StreamCounters()].requests += 1
            $0[.playlist, default: StreamCounters()].bytes += Int64(bytes.readableBytes)
        }
        return MediaResponse(
            status: 200, headers: headers,
            body: method == .head ? nil : MediaBody(bytes: bytes),
            finalURL: known.finalURL)
    }

    /// The playlist's text with every URI a proxy URL carrying the same headers.
    ///
    /// A media playlist names its segments by their media sequence numbers under the playlist's
    /// own signed path (`/stream/<nonce>/<sealed playlist link>/s<number>/<name>`): what each
    /// points at is read from the playlist when it is asked for, so a 40,001-segment playlist
    /// needs one signature rather than 40,001 (which took a third of a second), and the same
    /// segment keeps its URL in every version of a live playlist. Served at that path (the
    /// usual case), the playlist names them relatively, `s<number>/<name>`, as origins do, which
    /// keeps it about as small as the origin's. Every other URI (variants of a master, keys,
    /// init sections, parts) is a link of its own, signed and sealed.
    private func rewrite(_ known: KnownPlaylist, link: StreamLink, target: RewriteTarget) -> ByteBuffer {
        let rewriter = HLSRewriter(baseURL: known.finalURL)
        let base = Array(target.proxyBase.utf8)
        var signing = try? StreamLinkSigner.PlaylistSigning(signer: signer, headers: known.headers, playlist: link.url)
        // Before a segment's number: nothing when relative, else the proxy's base and the
        // playlist's own path without its name (`/stream/<nonce>/<sealed>/`).
        let segmentPrefix: [UInt8]? =
            target.relativeSegments
            ? []
            : (try? signer.path(for: link)).map { path in
                var bytes = base + Array(path.utf8)
                bytes.removeSubrange((bytes.lastIndex(of: UInt8(ascii: "/")).map { $0 + 1 } ?? bytes.count)...)
                return bytes
            }
        let perSegment = (segmentPrefix?.count ?? 0) + 32
        let text = rewriter.rewrittenBytes(
            known.playlist, reservingCapacity: known.playlist.segments.count * perSegment
        ) { site, output in
            if let segmentPrefix, let number = site.mediaSequenceNumber,
                let name = Self.segmentName(site.uri, rewriter: rewriter)
            {
                output.append(contentsOf: segmentPrefix)
                output.append(UInt8(ascii: "s"))
                output.append(contentsOf: String(number).utf8)
                output.append(UInt8(ascii: "/"))
                output.append(contentsOf: name.utf8)
                return true
            }
            let mark = output.count
            output.append(contentsOf: base)
            guard let url = rewriter.resolveText(site.uri),
                signing?.appendPath(of: url, kind: StreamKind(site.kind), to: &output) == true
            else {
                output.removeSubrange(mark...)
                return false
            }
            return true
        }
        return ByteBuffer(bytes: text)
    }

    /// The last path segment of a segment's URI, for its proxy URL (players pick a demuxer by
    /// extension); nil when the URI is not http(s), which is then left as written. Read from the
    /// text as written when it is a plain name, as nearly all are.
    static func segmentName(_ uri: String, rewriter: HLSRewriter) -> String? {
        var uri = uri
        let plain = uri.withUTF8 { bytes -> String? in
            var start = 0
            var end = bytes.count
            for (index, byte) in bytes.enumerated() {
                switch byte {
                case UInt8(ascii: "/"): start = index + 1
                case UInt8(ascii: "?"), UInt8(ascii: "#"): end = index
                // A scheme (`https:`, `skd:`) or anything not plain: resolved first.
                case UInt8(ascii: ":"), UInt8(ascii: "%"), UInt8(ascii: "{"): return nil
                default: break
                }
                if end < bytes.count { break }
            }
            guard start < end else { return nil }
            let name = UnsafeBufferPointer(rebasing: bytes[start..<end])
            guard name.allSatisfy(StreamLinkSigner.isPlainComponentByte), !name.allSatisfy({ $0 == UInt8(ascii: ".") })
            else { return nil }
            return String(decoding: name, as: UTF8.self)
        }
        if let plain { return plain }
        guard let text = rewriter.resolveText(uri), let url = URL(string: text),
            let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https"
        else { return nil }
        return StreamLinkSigner.lastComponent(of: url)
    }

    /// Serves segment `number` of the media playlist `playlist` (a link to it, as its rewritten
    /// text names it): the URL is read from the playlist in memory, reloaded when it has expired
    /// or is gone (after a restart, say), or from the segments that left a live playlist lately.
    public func serveSegment(
        of playlist: StreamLink, number: Int, method: MediaRequest.Method, range: String?, ifRange: String?,
        requestID: String
    ) async -> MediaResponse {
        // Only a playlist's link (or a user's, which may be one) has segments: a key's link must
        // not be fetched as one, which would write the key to the disk cache.
        guard playlist.kind == nil || playlist.kind == .playlist else {
            return Self.answer(404, "this link is not a playlist's, so it has no segments")
        }
        var known = playlists.withLock { $0[playlist.url.absoluteString] }
        if known.map({ $0.expires.map { ContinuousClock.now >= $0 } ?? false }) ?? true {
            // A playlist that cannot be reloaded now still names the segments it had.
            known = (try? await loadPlaylist(playlist)) ?? known
        }
        let link: StreamLink
        let position: Int?
        switch Self.segment(number, of: playlist, in: known) {
        case .missing(let answer): return answer
        case .found(let found, let at): (link, position) = (found, at)
        }
        let request = MediaRequest(
            url: link.url, upstreamHeaders: link.headerPairs, method: method, range: range, ifRange: ifRange,
            requestID: requestID)
        let response = await cache.serve(request)
        if method == .get, response.status < 300, let position, let known { prefetch(after: position, of: known) }
        return counted(response, kind: .segment)
    }

    /// What ``serveSegment(of:number:method:range:ifRange:requestID:)`` answers to a `GET`, when
    /// the playlist in memory is current and the answer is cached bytes read now
    /// (``MediaCache/serveHeld(_:accepting:)``), with the same pre-fetch and counting. Nil for
    /// anything else (a playlist to reload, a missing segment, bytes to wait for): then call
    /// `serveSegment`.
    public func serveSegmentHeld(
        of playlist: StreamLink, number: Int, range: String?, ifRange: String?, requestID: String
    ) -> MediaResponse? {
        guard playlist.kind == nil || playlist.kind == .playlist,
            let known = playlists.withLock({ $0[playlist.url.absoluteString] }),
            known.expires.map({ ContinuousClock.now < $0 }) ?? true,
            case .found(let link, let position) = Self.segment(number, of: playlist, in: known)
        else { return nil }
        let request = MediaRequest(
            url: link.url, upstreamHeaders: link.headerPairs, method: .get, range: range, ifRange: ifRange,
            requestID: requestID)
        guard let response = cache.serveHeld(request) else { return nil }
        if response.status < 300, let position { prefetch(after: position, of: known) }
        return counted(response, kind: .segment)
    }

    /// A segment of a playlist in memory: its link and position, or the answer saying why there
    /// is none.
    enum SegmentLookup {
        case found(StreamLink, position: Int?)
        case missing(MediaResponse)
    }

    /// Segment `number` of `known` (the playlist `playlist` links to): in the playlist, or among
    /// the segments that left its live window lately (no position then).
    static func segment(_ number: Int, of playlist: StreamLink, in known: KnownPlaylist?) -> SegmentLookup {
        guard let known, !known.playlist.isMaster else {
            return .missing(answer(404, "the playlist this segment belongs to cannot be read; reload the playlist"))
        }
        let position = known.playlist.segmentPosition(mediaSequenceNumber: number)
        let url: String?
        if let position {
            let segment = known.playlist.segments[position]
            url = isUsable(segment.byteRange) ? HLSRewriter(baseURL: known.finalURL).resolveText(segment.uri) : nil
        } else {
            url = known.departed[number]
        }
        guard let url, let segmentURL = URL(string: url) else {
            return .missing(answer(404, "segment \(number) is not (or no longer) in the playlist; reload the playlist"))
        }
        let link = StreamLink(url: segmentURL, headers: playlist.headers, kind: .segment, playlist: playlist.url)
        guard (try? link.validate()) != nil else {
            return .missing(answer(404, "segment \(number) of the playlist is not an http(s) URL"))
        }
        return .found(link, position: position)
    }

    /// A short plain-text answer.
    static func answer(_ status: Int, _ message: String) -> MediaResponse {
        MediaResponse(
            status: status, headers: textHeaders,
            body: MediaBody(bytes: ByteBuffer(string: message + "\n")))
    }

    // MARK: - Pre-fetching

    /// After a media playlist is served: the first segments of a VOD, the newest of a live one.
    private func prefetchStart(of playlistURL: URL) {
        guard prefetchCount > 0, let known = playlists.withLock({ $0[playlistURL.absoluteString] }) else {
            return
        }
        let count = known.playlist.segments.count
        let range = known.playlist.isLive ? max(0, count - prefetchCount)..<count : 0..<min(prefetchCount, count)
        prefetch(known, segments: range)
    }

    /// After a segment is served: the ones that follow it, which a player asks for next.
    private func prefetch(after position: Int, of known: KnownPlaylist) {
        prefetch(known, segments: (position + 1)..<min(known.playlist.segments.count, position + 1 + prefetchCount))
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
            guard prefetching.withLock({ $0.insert(key).inserted }) else { continue }
            let started = work.start { [self, cache, logger] in
                defer { _ = self.prefetching.withLock { $0.remove(key) } }
                do {
                    _ = try await cache.preload(url: url, upstreamHeaders: headers, range: range)
                } catch {
                    logger.debug("pre-fetch failed", metadata: ["url": "\(url)", "error": "\(error)"])
                }
            }
            if started == nil { _ = prefetching.withLock { $0.remove(key) } }
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
            counters.withLock { $0[kind, default: StreamCounters()].requests += 1 }
            return response
        }
        // Already read, or one region sent whole: counted now, and left as it is so it can go out
        // with the head (or by `sendfile`).
        if let length = body.bytes.map({ Int64($0.readableBytes) }) ?? body.region?.count {
            counters.withLock {
                $0[kind, default: StreamCounters()].requests += 1
                $0[kind, default: StreamCounters()].bytes += length
            }
            return response
        }
        counters.withLock { $0[kind, default: StreamCounters()].requests += 1 }
        var counting = response
        counting.body = MediaBody { [self] sink in
            var tallied: any MediaBodySink = CountingSink(inner: sink) { count in
                self.counters.withLock { $0[kind, default: StreamCounters()].bytes += Int64(count) }
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
