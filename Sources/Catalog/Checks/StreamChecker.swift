import AsyncHTTPClient
import Fetching
import Foundation
import Logging
import MediaFormats
import NIOCore
import NIOHTTP1

/// Probes items' streams to tell which are online, a few at a time, and stores the outcome.
///
/// A stream is asked with `HEAD`; a server that refuses `HEAD` (many IPTV panels answer it with
/// 405, 403 or 404) is asked again with a `GET` of its first bytes. An HLS playlist (by its URL,
/// type or first bytes) is fetched and parsed: a master leads to its first variant, and a media
/// playlist is online when it lists segments (and, if asked, when its first segment answers).
public struct StreamChecker: Sendable {
    /// How hard to probe.
    public struct Configuration: Sendable {
        /// Probes in flight at once: providers limit connections per account.
        public var concurrency: Int
        /// Per request.
        public var timeout: TimeAmount
        /// Also probe the first segment of HLS media playlists.
        public var probeFirstSegment: Bool
        public var userAgent: String
        /// Where probes may go: every hop, redirects included, is checked on its resolved addresses.
        public var fetchPolicy: FetchPolicy = .any

        public init(
            concurrency: Int = 8, timeout: TimeAmount = .seconds(10), probeFirstSegment: Bool = true,
            userAgent: String = "Tuner/1.0"
        ) {
            self.concurrency = concurrency
            self.timeout = timeout
            self.probeFirstSegment = probeFirstSegment
            self.userAgent = userAgent
        }
    }

    public let store: any CatalogStore
    let configuration: Configuration
    let logger: Logger

    public init(store: any CatalogStore, configuration: Configuration = Configuration(), logger: Logger) {
        self.store = store
        self.configuration = configuration
        self.logger = logger
    }

    /// A client of its own for each round of checks: a refused connection must fail at once
    /// (a shared client retries it until the deadline, and dead channels are common), and
    /// redirects are followed here so that every hop gets the channel's headers.
    private func withClient<T>(_ body: (HTTPClient) async throws -> T) async rethrows -> T {
        var clientConfiguration = HTTPClient.Configuration(
            redirectConfiguration: .disallow,
            timeout: .init(connect: configuration.timeout, read: configuration.timeout))
        clientConfiguration.connectionPool.retryConnectionEstablishment = false
        let client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: clientConfiguration)
        do {
            let result = try await body(client)
            try? await client.shutdown()
            return result
        } catch {
            try? await client.shutdown()
            throw error
        }
    }

    /// Checks the items of `ids` (every live channel when `nil`), or of one source, stores the
    /// results and returns them in the items' order.
    public func check(ids: [Int64]? = nil, sourceID: Int64? = nil) async throws -> [CatalogStreamCheck] {
        let items = try await store.streamItems(ids: ids, sourceID: sourceID, kind: ids == nil ? .live : nil)
        if let ids, let missing = Set(ids).subtracting(items.map(\.id)).first {
            throw CatalogError.itemNotFound(missing)
        }
        let checks = await check(items)
        try await store.recordStreamChecks(checks)
        return checks
    }

    /// Probes `items` with at most `concurrency` probes at once; results are in `items`' order.
    public func check(_ items: [CatalogItem]) async -> [CatalogStreamCheck] {
        await withClient { client in await check(items, client: client) }
    }

    private func check(_ items: [CatalogItem], client: HTTPClient) async -> [CatalogStreamCheck] {
        var results = [CatalogStreamCheck?](repeating: nil, count: items.count)
        await withTaskGroup(of: (Int, CatalogStreamCheck).self) { group in
            var next = 0
            func startNext() {
                guard next < items.count else { return }
                let index = next
                let item = items[next]
                next += 1
                group.addTask {
                    let (online, reason) = await probe(
                        item.url ?? "", headers: item.headers, client: client, playlistDepth: 0, isSegment: false)
                    return (
                        index, CatalogStreamCheck(itemID: item.id, online: online, checkedAt: Date(), reason: reason)
                    )
                }
            }
            for _ in 0..<max(1, configuration.concurrency) { startNext() }
            for await (index, check) in group {
                results[index] = check
                startNext()
            }
        }
        return results.compactMap { $0 }
    }

    /// Whether `url` plays, and what was seen.
    public func probe(_ url: String, headers: [CatalogHeader] = []) async -> (online: Bool, reason: String) {
        await withClient { client in
            await probe(url, headers: headers, client: client, playlistDepth: 0, isSegment: false)
        }
    }

    private func probe(_ url: String, headers: [CatalogHeader], client: HTTPClient, playlistDepth: Int, isSegment: Bool)
        async -> (online: Bool, reason: String)
    {
        guard let scheme = URL(string: url)?.scheme?.lowercased(), scheme == "http" || scheme == "https" else {
            return (false, "not an http(s) URL")
        }
        if !isSegment, Self.looksLikePlaylist(url: url, contentType: nil) {
            return await probePlaylist(url, headers: headers, client: client, depth: playlistDepth)
        }
        do {
            let head = try await send(.HEAD, client: client, url, headers: headers)
            if (200..<300).contains(head.status) {
                if !isSegment, Self.looksLikePlaylist(url: head.finalURL, contentType: head.contentType) {
                    return await probePlaylist(head.finalURL, headers: headers, client: client, depth: playlistDepth)
                }
                return (true, "HTTP \(head.status)")
            }
            // HEAD refused or answered oddly: what counts is whether a GET streams.
            let get = try await send(.GET, client: client, url, headers: headers, firstBytes: true)
            guard (200..<300).contains(get.status) else { return (false, "HTTP \(get.status)") }
            if !isSegment,
                get.firstBytes.starts(with: Array("#EXTM3U".utf8))
                    || Self.looksLikePlaylist(url: get.finalURL, contentType: get.contentType)
            {
                return await probePlaylist(get.finalURL, headers: headers, client: client, depth: playlistDepth)
            }
            return (true, "HTTP \(get.status) (GET)")
        } catch {
            return (false, "unreachable: \(Self.describe(error))")
        }
    }

    private func probePlaylist(_ url: String, headers: [CatalogHeader], client: HTTPClient, depth: Int) async -> (
        online: Bool, reason: String
    ) {
        let answer: Answer
        do {
            answer = try await send(.GET, client: client, url, headers: headers, collectUpTo: 4 << 20)
        } catch {
            return (false, "unreachable: \(Self.describe(error))")
        }
        guard (200..<300).contains(answer.status) else { return (false, "HTTP \(answer.status)") }
        guard
            answer.body.starts(with: Array("#EXTM3U".utf8))
                || answer.body.starts(with: [0xEF, 0xBB, 0xBF] + Array("#EXTM3U".utf8))
        else {
            return (false, "not an HLS playlist")
        }
        let playlist: HLSPlaylist
        do {
            playlist = try HLSPlaylist(parsing: answer.body, configuration: .lenient)
        } catch {
            return (false, "unreadable playlist: \(error)")
        }
        if let variant = playlist.variants.first {
            guard depth < 2, let variantURL = Self.resolve(variant.uri, against: answer.finalURL) else {
                return (false, "playlist variants lead nowhere")
            }
            let outcome = await probePlaylist(variantURL, headers: headers, client: client, depth: depth + 1)
            return outcome.online
                ? (true, "HLS master: \(outcome.reason)") : (false, "first variant: \(outcome.reason)")
        }
        guard let segment = playlist.segments.first else { return (false, "playlist without segments") }
        let count = playlist.segments.count
        guard configuration.probeFirstSegment else { return (true, "HLS playlist, \(count) segments") }
        guard let segmentURL = Self.resolve(segment.uri, against: answer.finalURL) else {
            return (false, "bad segment URI \(segment.uri)")
        }
        let outcome = await probe(segmentURL, headers: headers, client: client, playlistDepth: depth, isSegment: true)
        return outcome.online
            ? (true, "HLS playlist, \(count) segments, first segment \(outcome.reason)")
            : (false, "first segment: \(outcome.reason)")
    }

    // MARK: - HTTP

    private struct Answer {
        var status: UInt
        var finalURL: String
        var contentType: String?
        var firstBytes: [UInt8] = []
        var body: [UInt8] = []
    }

    /// Sends one request, following redirects by hand through the fetch policy's gate (the
    /// client follows none): every hop is checked and the channel's credentials stay with its origin.
    private func send(
        _ method: HTTPMethod, client: HTTPClient, _ url: String, headers: [CatalogHeader], firstBytes: Bool = false,
        collectUpTo: Int? = nil
    ) async throws -> Answer {
        var request = HTTPClientRequest(url: url)
        request.method = method
        request.headers.add(name: "User-Agent", value: configuration.userAgent)
        for header in headers { request.headers.replaceOrAdd(name: header.name, value: header.value) }
        if firstBytes { request.headers.add(name: "Range", value: "bytes=0-1023") }
        let fetched: FetchedResponse
        do {
            fetched = try await client.execute(
                request, gate: FetchGate(policy: configuration.fetchPolicy), timeout: configuration.timeout,
                logger: logger)
        } catch let error as FetchError {
            throw CatalogError.fetchFailed("\(error)")
        }
        let response = fetched.response
        var answer = Answer(
            status: response.status.code, finalURL: fetched.url.absoluteString,
            contentType: response.headers.first(name: "content-type"))
        if let collectUpTo {
            let body = try await response.body.collect(upTo: collectUpTo)
            answer.body = Array(body.readableBytesView)
        } else if firstBytes {
            // A few bytes are enough: leaving the rest unread ends the request.
            for try await chunk in response.body {
                answer.firstBytes = Array(chunk.readableBytesView.prefix(1024))
                if !answer.firstBytes.isEmpty { break }
            }
        }
        return answer
    }

    static func looksLikePlaylist(url: String, contentType: String?) -> Bool {
        if let type = contentType?.lowercased(), type.contains("mpegurl") { return true }
        let path = url.split(separator: "?", maxSplits: 1).first.map(String.init)?.lowercased() ?? ""
        return path.hasSuffix(".m3u8")
    }

    static func resolve(_ reference: String, against base: String) -> String? {
        guard let baseURL = URL(string: base), let resolved = URL(string: reference, relativeTo: baseURL) else {
            return nil
        }
        return resolved.absoluteString
    }

    static func describe(_ error: any Error) -> String {
        if let error = error as? HTTPClientError {
            if error == .deadlineExceeded || error == .readTimeout || error == .connectTimeout { return "timed out" }
        }
        let text = "\(error)"
        return text.count > 200 ? String(text.prefix(200)) + "…" : text
    }
}
