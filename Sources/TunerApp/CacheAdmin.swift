import Foundation
import MediaCache
import MediaFormats
import Streaming
import TunerAPI

/// The cache as the API, the CLI and the web app manage it: statistics, clear, trim, preloads,
/// export and pins, behind one set of checks and one error type.
///
/// Sendable; ``changes()`` publishes what each call changed.
public final class CacheAdmin: Sendable {
    /// What changed in the cache through this object.
    public enum Change: Sendable, Equatable {
        case cleared
        case trimmed(freedBytes: Int64)
        case pinned(url: String, pinned: Bool)
        case exported(url: String, path: String)
        case preloadStarted(id: String)
        case preloadCancelled(id: String)
    }

    /// The cache's statistics plus what the proxy served per kind of stream.
    public struct Statistics: Sendable, Encodable {
        public var cache: CacheStatistics
        public var streams: [String: StreamService.StreamCounters]

        enum Keys: String, CodingKey { case streams }

        public func encode(to encoder: any Encoder) throws {
            try cache.encode(to: encoder)
            var container = encoder.container(keyedBy: Keys.self)
            try container.encode(streams, forKey: .streams)
        }
    }

    let cache: MediaCache
    let streams: StreamService
    let preloads: PreloadJobs
    /// Folders exports may write into; nil trusts every path (the CLI: the user owns the files).
    let localFiles: LocalFileAccess?
    let fetchPolicy: FetchPolicy
    private let feed = ChangeFeed<Change>()
    /// Minute by minute, what the cache served (the server records it; the web app charts it).
    public let history = CacheHistory()

    /// A pinned resource as shown: its URL without secrets, and the key that unpins it.
    public struct Pin: Sendable, Hashable, Codable {
        public var key: String
        public var url: String
        public var bytes: Int64
    }

    public init(
        cache: MediaCache, streams: StreamService, preloads: PreloadJobs, localFiles: LocalFileAccess?,
        fetchPolicy: FetchPolicy = .any
    ) {
        self.cache = cache
        self.streams = streams
        self.preloads = preloads
        self.localFiles = localFiles
        self.fetchPolicy = fetchPolicy
    }

    /// Every change made through this object from now on.
    public func changes() -> AsyncStream<Change> { feed.subscribe() }

    public func statistics() -> Statistics {
        Statistics(cache: cache.statistics(), streams: streams.statistics)
    }

    /// Drops every cached byte (pinned resources too).
    public func clear() throws(FeatureError) {
        do {
            try cache.clear()
        } catch {
            throw FeatureError(.failed, "the cache could not be cleared: \(error)")
        }
        feed.publish(.cleared)
    }

    /// Evicts least recently used resources until the cache holds at most `bytes` (default: its
    /// configured size).
    public func trim(downTo bytes: Int64? = nil) throws(FeatureError) -> MediaCache.TrimReport {
        let budget = bytes ?? cache.configuration.maxBytes
        guard budget >= 0 else { throw FeatureError(.invalid, "bytes must not be negative") }
        let report = cache.trim(downTo: budget)
        feed.publish(.trimmed(freedBytes: report.bytesFreed))
        return report
    }

    /// Starts fetching a file's first bytes, or an HLS stream's first seconds or segments.
    public func startPreload(_ request: PreloadRequest) throws(FeatureError) -> PreloadJobs.Job {
        if let bytes = request.bytes, bytes <= 0 { throw FeatureError(.invalid, "'bytes' must be positive") }
        if let seconds = request.seconds, !(seconds > 0) { throw FeatureError(.invalid, "'seconds' must be positive") }
        if let segments = request.segments, segments <= 0 {
            throw FeatureError(.invalid, "'segments' must be positive")
        }
        if request.bytes != nil && (request.seconds != nil || request.segments != nil) {
            throw FeatureError(
                .invalid, "give 'bytes' for a file, or 'seconds'/'segments' for an HLS stream, not both")
        }
        let link = try FeatureError.streaming { () throws(StreamError) in
            try StreamLink.requested(url: request.url, headers: request.headers, fetchPolicy: fetchPolicy)
        }
        let job =
            request.seconds != nil || request.segments != nil
            ? try preloads.startHLS(
                link: link, seconds: request.seconds, segments: request.segments, maxBandwidth: request.maxBandwidth)
            : try preloads.start(link: link, byteCount: request.bytes)
        feed.publish(.preloadStarted(id: job.id))
        return job
    }

    public var preloadJobs: [PreloadJobs.Job] { preloads.all }

    public func preload(id: String) throws(FeatureError) -> PreloadJobs.Job {
        guard let job = preloads.job(id: id) else { throw FeatureError(.notFound, "no preload with id \(id)") }
        return job
    }

    public func cancelPreload(id: String) throws(FeatureError) {
        guard preloads.cancel(id: id) else { throw FeatureError(.notFound, "no preload with id \(id)") }
        feed.publish(.preloadCancelled(id: id))
    }

    /// Hard-links a fully cached resource to `path`, inside the allowed folders; answers the path.
    public func export(_ request: CacheResourceRequest) throws(FeatureError) -> String {
        guard let requested = request.path, requested.hasPrefix("/") else {
            throw FeatureError(.invalid, "'path' must be an absolute file path")
        }
        guard let url = URL(string: request.url) else { throw FeatureError(.invalid, "'url' is not a URL") }
        var path = requested
        if let localFiles {
            do {
                path = try localFiles.fileToWrite(requested)
            } catch {
                throw FeatureError(.forbidden, error.description)
            }
        }
        do {
            try cache.export(url: url, to: path)
        } catch {
            throw FeatureError(.conflict, "\(error)")
        }
        feed.publish(.exported(url: request.url, path: path))
        return path
    }

    /// Adds this minute to ``history`` (the server calls it every ``CacheHistory/interval``).
    public func recordHistory(at date: Date = Date()) {
        let statistics = cache.statistics()
        history.record(hitBytes: statistics.hitBytes, missBytes: statistics.missBytes, at: date)
    }

    /// The pinned resources, their URLs redacted (a provider's URL may carry its password).
    public func pins() -> [Pin] {
        cache.pinnedResources().map { Pin(key: $0.key, url: SecretRedactor.redact($0.url), bytes: $0.bytes) }
    }

    /// Lets a pinned resource be evicted again, by the key ``pins()`` gave.
    public func unpin(key: String) throws(FeatureError) {
        let url = cache.pinnedResources().first { $0.key == key }?.url ?? key
        let found: Bool
        do {
            found = try cache.unpin(key: key)
        } catch {
            throw FeatureError(.failed, "the pin could not be removed: \(error)")
        }
        guard found else { throw FeatureError(.notFound, "no cached resource has the key \(key)") }
        feed.publish(.pinned(url: url, pinned: false))
    }

    /// Keeps a resource from eviction (or lets it go again); answers whether it is pinned now.
    public func pin(_ request: CacheResourceRequest) throws(FeatureError) -> Bool {
        guard let url = URL(string: request.url) else { throw FeatureError(.invalid, "'url' is not a URL") }
        let pinned = request.pinned ?? true
        do {
            try cache.setPinned(pinned, url: url)
        } catch {
            throw FeatureError(.failed, "the pin could not be recorded: \(error)")
        }
        feed.publish(.pinned(url: request.url, pinned: pinned))
        return pinned
    }
}
