import MediaFormats

/// Settings of a ``MediaCache``.
public struct MediaCacheConfiguration: Sendable {
    /// Folder of the index and data files (created if missing).
    public var directory: String
    /// Byte budget of the cached data; least recently used resources are evicted above it.
    public var maxBytes: Int64
    /// Free space to leave on the disk; the cache evicts to keep at least this much.
    public var minimumFreeDiskBytes: Int64
    /// Content types (prefixes, lowercased) that are cached; other responses stream through.
    public var cacheableContentTypes: [String]
    /// How URLs map to cache keys.
    public var keyRules: CacheKeyRules
    /// How long to wait for an origin's response head before answering 504.
    public var headTimeoutSeconds: Int64
    /// Bytes a fetch writes between syncs; the index claims bytes only after a sync.
    public var syncInterval: Int64
    /// A reader this far ahead of a fetch starts its own fetch instead of waiting (a seek).
    public var seekThreshold: Int64
    /// Size of each read from disk handed to the client.
    public var readChunkSize: Int
    /// Runs of cached bytes at least this long are offered to the sink as file regions
    /// (sent with `sendfile` by the server); shorter ones are read and written. A whole answer
    /// shorter than this whose bytes are all cached is read before the response is made
    /// (``MediaBody/bytes``), so the server can send it with its head in one write.
    public var fileRegionThreshold: Int64 = 128 << 10
    /// Data files kept open at most (one per recently used resource); beyond it the least
    /// recently used idle ones are closed, and reopened when next read.
    public var maxOpenFiles: Int = 1024
    /// Times a reader retries a failed transient fetch before giving up.
    public var fetchRetries: Int
    /// How long a reader waits for a fetch in flight to bring its next byte before it gives up
    /// (504). It is checked whenever the resource changes; a fetch that stalls ends within the
    /// HTTP client's read timeout, which wakes its readers, so a wait is bounded by this plus
    /// that timeout. The fetch itself goes on for the other readers.
    public var maxWaitSeconds: Int64 = 60
    /// Where origin requests may go: every hop, redirects included, is checked on its resolved
    /// addresses (Fetching's `FetchGate`).
    public var fetchPolicy: FetchPolicy = .any

    public init(
        directory: String,
        maxBytes: Int64 = 1 << 30,
        minimumFreeDiskBytes: Int64 = 256 << 20,
        cacheableContentTypes: [String] = MediaCacheConfiguration.defaultCacheableContentTypes,
        keyRules: CacheKeyRules = CacheKeyRules(),
        headTimeoutSeconds: Int64 = 20,
        syncInterval: Int64 = 16 << 20,
        seekThreshold: Int64 = 4 << 20,
        readChunkSize: Int = 64 << 10,
        fetchRetries: Int = 4
    ) {
        self.directory = directory
        self.maxBytes = maxBytes
        self.minimumFreeDiskBytes = minimumFreeDiskBytes
        self.cacheableContentTypes = cacheableContentTypes
        self.keyRules = keyRules
        self.headTimeoutSeconds = headTimeoutSeconds
        self.syncInterval = syncInterval
        self.seekThreshold = seekThreshold
        self.readChunkSize = readChunkSize
        self.fetchRetries = fetchRetries
    }

    /// Media, playlists, images and generic binary: what a player fetches.
    public static let defaultCacheableContentTypes = [
        "video/", "audio/", "image/", "application/octet-stream", "binary/octet-stream",
        "application/vnd.apple.mpegurl", "application/x-mpegurl", "application/mp4",
        "application/dash+xml", "application/mpegurl", "application/x-mpegURL".lowercased(),
    ]

    func isCacheable(contentType: String?) -> Bool {
        guard let contentType = contentType?.lowercased(), !contentType.isEmpty else { return true }
        return cacheableContentTypes.contains { contentType.hasPrefix($0) }
    }
}
