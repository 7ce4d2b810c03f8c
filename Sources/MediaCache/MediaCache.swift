import AsyncHTTPClient
import Fetching
import Foundation
import Logging
import MediaFormats
import NIOCore
import Synchronization

/// A range-sliced disk cache of media resources that serves while it fetches.
///
/// Each resource is one sparse data file plus its spans in a SQLite index. A request is planned
/// as parts on disk and missing parts; every missing part is fetched from the origin once, however
/// many readers want it, and the bytes stream to all of them as they are written.
public final class MediaCache: Sendable {
    public let configuration: MediaCacheConfiguration
    let logger: Logger
    let index: CacheIndex
    let upstream: UpstreamClient
    private let ownsHTTPClient: Bool
    private let entries: Mutex<[String: ResourceEntry]>
    let counters: Mutex<Counters>
    private let evicting = Mutex(false)
    private let closingFiles = Mutex(false)
    private let recentErrors: Mutex<[String: UpstreamErrorRecord]>
    /// URL → cache key, so a player's many range requests skip the normalisation and hashing.
    private let keys = Mutex<[String: String]>([:])
    let allocator = ByteBufferAllocator()
    /// Free space on the cache's disk, measured only as often as the reserve needs.
    let freeSpace: FreeSpaceGauge

    struct Counters {
        var hitBytes: Int64 = 0
        var missBytes: Int64 = 0
        var originBytes: Int64 = 0
        var durableBytes: Int64 = 0
    }

    /// Opens (or creates) the cache in `configuration.directory`.
    /// - Parameter httpClient: the client for origin requests; by default the cache makes its own
    ///   (redirects are always followed by the cache itself, to refuse non-http(s) hops).
    public init(
        configuration: MediaCacheConfiguration, httpClient: HTTPClient? = nil,
        logger: Logger = Logger(label: "tuner.cache")
    ) throws {
        self.configuration = configuration
        self.logger = logger
        self.freeSpace = FreeSpaceGauge(path: configuration.directory)
        try FileManager.default.createDirectory(atPath: configuration.directory, withIntermediateDirectories: true)
        index = try CacheIndex(path: configuration.directory + "/index.sqlite")
        var loaded: [String: ResourceEntry] = [:]
        var durable: Int64 = 0
        for stored in try index.loadAll() {
            loaded[stored.key] = ResourceEntry(
                stored: stored, path: Self.dataPath(directory: configuration.directory, key: stored.key))
            durable += stored.spans.count
        }
        entries = Mutex(loaded)
        let savedCounters = try index.loadCounters()
        counters = Mutex(
            Counters(
                hitBytes: savedCounters["hitBytes"] ?? 0, missBytes: savedCounters["missBytes"] ?? 0,
                originBytes: savedCounters["originBytes"] ?? 0, durableBytes: durable))
        var errors: [String: UpstreamErrorRecord] = [:]
        for record in try index.loadErrors() { errors[record.url] = record }
        recentErrors = Mutex(errors)
        // The client last, once nothing can throw: one made and dropped unshut traps (debug builds).
        let client: HTTPClient
        if let httpClient {
            client = httpClient
            ownsHTTPClient = false
        } else {
            client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: Self.httpClientConfiguration())
            ownsHTTPClient = true
        }
        upstream = UpstreamClient(
            httpClient: client, headTimeout: .seconds(configuration.headTimeoutSeconds), logger: logger,
            fetchGate: FetchGate(policy: configuration.fetchPolicy))
        logger.info(
            "cache opened",
            metadata: ["directory": "\(configuration.directory)", "entries": "\(loaded.count)", "bytes": "\(durable)"])
    }

    /// The HTTP client settings the cache uses for origins: no automatic redirects, a read
    /// timeout for stalled bodies, and enough connections per host for many parallel fetches.
    public static func httpClientConfiguration(readTimeoutSeconds: Int64 = 30) -> HTTPClient.Configuration {
        var configuration = HTTPClient.Configuration(
            redirectConfiguration: .disallow,
            timeout: .init(connect: .seconds(10), read: .seconds(readTimeoutSeconds))
        )
        configuration.connectionPool = .init(idleTimeout: .seconds(60), concurrentHTTP1ConnectionsPerHostSoftLimit: 64)
        configuration.decompression = .disabled
        return configuration
    }

    static func dataPath(directory: String, key: String) -> String {
        "\(directory)/\(key.prefix(2))/\(key)"
    }

    /// Saves access times and counters, cancels fetches, and closes the HTTP client if owned.
    public func shutdown() async throws {
        // Cancelled fetches sync and index what they wrote on their way out: wait for them, or a
        // stop would lose the last part of every download in flight.
        let tasks = entries.withLock { $0.values.flatMap { $0.cancelAllFetches() } }
        for task in tasks { await task.value }
        flush()
        if ownsHTTPClient { try await upstream.httpClient.shutdown() }
    }

    /// Runs until cancelled, saving access times and counters every `interval`, then once more.
    public func run(interval: Duration = .seconds(30)) async {
        while !Task.isCancelled {
            try? await Task.sleep(for: interval)
            flush()
        }
        flush()
    }

    /// Writes access times and counters to the index.
    public func flush() {
        let times = entries.withLock { $0.values.map { ($0.key, $0.snapshot.lastAccess) } }
        let counters = counters.withLock { $0 }
        do {
            try index.saveAccessTimes(times)
            try index.saveCounters([
                "hitBytes": counters.hitBytes, "missBytes": counters.missBytes, "originBytes": counters.originBytes,
            ])
        } catch {
            logger.warning("cache flush failed", metadata: ["error": "\(error)"])
        }
    }

    // MARK: - Entries

    /// The entry of `key` when it exists, is not evicted and its data file can be opened;
    /// nil otherwise (then ``entry(key:url:)`` makes or replaces it).
    func existingEntry(key: String) -> ResourceEntry? {
        closeIdleFilesIfOverLimit()
        return entries.withLock { entries in
            guard let existing = entries[key], !existing.isEvicted, existing.meta != nil, existing.openFileIfNeeded()
            else { return nil }
            return existing
        }
    }

    /// The entry of `key`, created if new. An entry loaded from the index whose data file is
    /// gone is replaced by a blank one, so the index never serves bytes that are not on disk.
    func entry(key: String, url: String) -> ResourceEntry {
        closeIdleFilesIfOverLimit()
        let path = Self.dataPath(directory: configuration.directory, key: key)
        return entries.withLock { entries in
            if let existing = entries[key], !existing.isEvicted {
                if existing.meta == nil || existing.openFileIfNeeded() { return existing }
            }
            try? FileManager.default.createDirectory(
                atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
            let entry = ResourceEntry(key: key, path: path, url: url)
            entries[key] = entry
            return entry
        }
    }

    /// Before an entry's file may be opened: ``closeIdleFiles()`` when over `maxOpenFiles`.
    private func closeIdleFilesIfOverLimit() {
        if DataFile.openCount.withLock({ $0 }) > configuration.maxOpenFiles { closeIdleFiles() }
    }

    /// Closes the data files of the least recently used idle entries until three quarters of
    /// `maxOpenFiles` are open. Runs only when over the limit, so its scan is rare.
    func closeIdleFiles() {
        guard
            closingFiles.withLock({ busy in
                if busy { return false }
                busy = true
                return true
            })
        else { return }
        defer { closingFiles.withLock { $0 = false } }
        let target = configuration.maxOpenFiles * 3 / 4
        let byAge = entries.withLock { Array($0.values) }.map { ($0, $0.snapshot.lastAccess) }.sorted {
            $0.1 < $1.1
        }
        for (entry, _) in byAge {
            guard DataFile.openCount.withLock({ $0 }) > target else { break }
            _ = entry.closeFileIfIdle()
        }
    }

    /// Whether the disk keeps its free reserve, after evicting what can go. False means: do not
    /// write more to the cache (stream through instead).
    func hasDiskRoom() -> Bool {
        let reserve = configuration.minimumFreeDiskBytes
        guard reserve > 0 else { return true }
        if (freeSpace.freeBytes(reserve: reserve) ?? .max) >= reserve { return true }
        evictIfNeeded()
        return (freeSpace.freeBytes(reserve: reserve, fresh: true) ?? .max) >= reserve
    }

    /// The cache key of `url`, remembered for the URLs seen recently.
    func cacheKey(for url: URL) -> String {
        let text = url.absoluteString
        if let key = keys.withLock({ $0[text] }) { return key }
        let key = configuration.keyRules.key(for: url)
        keys.withLock { keys in
            if keys.count >= 10_000 { keys.removeAll(keepingCapacity: true) }
            keys[text] = key
        }
        return key
    }

    func existingEntry(for url: URL) -> ResourceEntry? {
        let key = cacheKey(for: url)
        return entries.withLock { $0[key] }
    }

    func addDurableBytes(_ delta: Int64) {
        counters.withLock { $0.durableBytes += delta }
    }

    func recordError(url: String, error: MediaCacheError) {
        // Kept, shown and stored without credentials: provider URLs carry them in paths and queries.
        let shown = SecretRedactor.redactURL(url)
        let record = UpstreamErrorRecord(
            url: shown, status: error.status, message: SecretRedactor.redact(error.description), at: Date())
        recentErrors.withLock { errors in
            errors[shown] = record
            if errors.count > 100, let oldest = errors.values.min(by: { $0.at < $1.at }) { errors[oldest.url] = nil }
        }
        try? index.recordError(record)
    }

    // MARK: - Statistics

    public func statistics() -> CacheStatistics {
        let snapshots = entries.withLock { $0.values.map(\.snapshot) }
        let counters = counters.withLock { $0 }
        let errors = recentErrors.withLock { Array($0.values) }.sorted { $0.at > $1.at }
        return CacheStatistics(
            entries: snapshots.filter { $0.meta != nil }.count,
            bytes: snapshots.reduce(0) { $0 + $1.durableBytes },
            capacity: configuration.maxBytes,
            hitBytes: counters.hitBytes, missBytes: counters.missBytes, originBytes: counters.originBytes,
            activeFetches: snapshots.reduce(0) { $0 + $1.activeFetches },
            lastErrors: errors
        )
    }

    /// What the cache holds of one URL (nil when nothing).
    public func status(of url: URL) -> (meta: ResourceMeta?, cachedBytes: Int64)? {
        guard let entry = existingEntry(for: url), !entry.isEvicted else { return nil }
        let snapshot = entry.snapshot
        return (snapshot.meta, snapshot.durableBytes)
    }

    // MARK: - Eviction

    /// Evicts least recently used resources until the cache is within its byte budget and the
    /// disk keeps its free reserve. Resources in use or pinned are never evicted.
    @discardableResult
    public func evictIfNeeded() -> Int {
        evict(downTo: configuration.maxBytes)
    }

    /// What ``trim(downTo:)`` did.
    public struct TrimReport: Sendable, Codable {
        public var evicted: Int
        public var bytesFreed: Int64
        /// What the cache holds afterwards.
        public var entries: Int
        public var bytes: Int64
        /// How long the eviction took.
        public var milliseconds: Double
    }

    /// ``evict(downTo:)``, timed and reported (for `tuner cache trim` and its API route).
    public func trim(downTo budget: Int64) -> TrimReport {
        let before = statistics().bytes
        let started = ContinuousClock.now
        let evicted = evict(downTo: budget)
        let (seconds, attoseconds) = (ContinuousClock.now - started).components
        let after = statistics()
        return TrimReport(
            evicted: evicted, bytesFreed: before - after.bytes, entries: after.entries, bytes: after.bytes,
            milliseconds: Double(seconds) * 1000 + Double(attoseconds) / 1e15)
    }

    /// Evicts least recently used resources until the cache holds at most `budget` bytes (and
    /// the disk keeps its free reserve). Resources in use or pinned are never evicted. Returns
    /// how many resources went.
    @discardableResult
    public func evict(downTo budget: Int64) -> Int {
        guard
            evicting.withLock({ busy in
                if busy { return false }
                busy = true
                return true
            })
        else { return 0 }
        defer { evicting.withLock { $0 = false } }

        let total = counters.withLock { $0.durableBytes }
        var excess = total - max(0, budget)
        if let free = freeSpace.freeBytes(reserve: configuration.minimumFreeDiskBytes, fresh: true),
            free < configuration.minimumFreeDiskBytes
        {
            excess = max(excess, configuration.minimumFreeDiskBytes - free)
        }
        guard excess > 0 else { return 0 }
        let candidates = entries.withLock { $0.values.map(\.snapshot) }
        let plan = EvictionPlanner.plan(
            candidates: candidates.map {
                .init(
                    key: $0.key, bytes: $0.durableBytes, lastAccess: $0.lastAccess, inUse: $0.inUse, pinned: $0.pinned)
            },
            bytesToFree: excess)
        // One pass under the map's lock; file and index work happens after it.
        let removed: [(key: String, path: String, bytes: Int64)] = entries.withLock { entries in
            var removed: [(key: String, path: String, bytes: Int64)] = []
            removed.reserveCapacity(plan.count)
            for key in plan {
                guard let entry = entries[key] else { continue }
                let bytes = entry.durableBytes
                guard entry.evictIfIdle() else { continue }
                entries[key] = nil
                removed.append((key, entry.path, bytes))
            }
            return removed
        }
        var freed: Int64 = 0
        for item in removed {
            unlink(item.path)
            freed += item.bytes
        }
        let evicted = removed.map(\.key)
        do {
            try index.deleteResources(evicted)
        } catch {
            logger.error("evicted files but could not update the index", metadata: ["error": "\(error)"])
        }
        addDurableBytes(-freed)
        if !evicted.isEmpty {
            logger.info("evicted", metadata: ["resources": "\(evicted.count)", "bytes": "\(freed)"])
        }
        return evicted.count
    }

    /// Evicts when the cache is over its budget or the disk under its reserve. Called after bytes
    /// are committed and after a reader finishes (a resource in use cannot be evicted before).
    func evictIfOverLimits() {
        let over = counters.withLock { $0.durableBytes } > configuration.maxBytes
        let low =
            configuration.minimumFreeDiskBytes > 0
            && (freeSpace.freeBytes(reserve: configuration.minimumFreeDiskBytes) ?? .max)
                < configuration.minimumFreeDiskBytes
        if over || low { evictIfNeeded() }
    }

    /// Removes everything: running fetches are cancelled, files and index rows deleted.
    public func clear() throws {
        let all = entries.withLock { entries in
            let all = Array(entries.values)
            entries = [:]
            return all
        }
        for entry in all {
            entry.evictNow()
            unlink(entry.path)
        }
        try index.deleteAll()
        counters.withLock { $0 = Counters() }
        recentErrors.withLock { $0 = [:] }
    }

    /// Forgets one resource (a live playlist that must not be served from disk later). Readers
    /// in progress finish with the bytes they have.
    public func remove(url: URL) {
        let key = cacheKey(for: url)
        guard
            let entry = entries.withLock({ entries -> ResourceEntry? in
                let entry = entries[key]
                entries[key] = nil
                return entry
            })
        else { return }
        let bytes = entry.durableBytes
        entry.evictNow()
        unlink(entry.path)
        try? index.deleteResources([key])
        addDurableBytes(-bytes)
    }

    /// Pins a resource so eviction never removes it (or unpins it).
    public func setPinned(_ pinned: Bool, url: URL) throws {
        guard let entry = existingEntry(for: url) else { return }
        entry.setPinned(pinned)
        try index.setPinned(key: entry.key, pinned: pinned)
    }

    /// Every pinned resource, by URL.
    public func pinnedResources() -> [PinnedResource] {
        entries.withLock { $0.values.map(\.snapshot) }
            .filter(\.pinned)
            .map { PinnedResource(key: $0.key, url: $0.url, bytes: $0.durableBytes) }
            .sorted { $0.url < $1.url }
    }

    /// Unpins the resource with cache key `key` (from ``pinnedResources()``); false when no
    /// resource has that key.
    public func unpin(key: String) throws -> Bool {
        guard let entry = entries.withLock({ $0[key] }) else { return false }
        entry.setPinned(false)
        try index.setPinned(key: key, pinned: false)
        return true
    }

    // MARK: - Export

    /// Makes a fully cached resource available as a complete file at `path`, sharing the cached
    /// bytes (a hard link) instead of copying them.
    public func export(url: URL, to path: String) throws {
        guard let entry = existingEntry(for: url), !entry.isEvicted, let meta = entry.meta, entry.openFileIfNeeded()
        else {
            throw MediaCacheError.notFullyCached(url.absoluteString, held: 0, length: nil)
        }
        let snapshot = entry.snapshot
        guard snapshot.durable.contains(0..<meta.length) else {
            throw MediaCacheError.notFullyCached(url.absoluteString, held: snapshot.durableBytes, length: meta.length)
        }
        if FileManager.default.fileExists(atPath: path) {
            throw MediaCacheError.exportFailed("\(path) already exists; choose another path or remove it")
        }
        let result = hardLink(from: entry.path, to: path)
        if result == EXDEV {
            throw MediaCacheError.exportFailed(
                """
                \(path) is on another file system than the cache; export to a path on the same disk as \
                \(configuration.directory)
                """
            )
        }
        guard result == 0 else {
            throw MediaCacheError.exportFailed("link to \(path): \(String(cString: strerror(result)))")
        }
    }
}

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif
