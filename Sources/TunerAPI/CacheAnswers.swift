import Foundation

/// `GET /api/v1/cache/stats`: what the cache holds and how well it has served, plus what the proxy
/// served per kind of stream.
public struct CacheStatisticsAnswer: Codable, Sendable, Equatable {
    /// Resources with at least their metadata in the index.
    public var entries: Int
    /// Bytes held on disk (synced and indexed).
    public var bytes: Int64
    /// The byte budget.
    public var capacity: Int64
    /// Bytes served to clients straight from disk.
    public var hitBytes: Int64
    /// Bytes served to clients that had to come from the origin first.
    public var missBytes: Int64
    /// Bytes received from origins.
    public var originBytes: Int64
    /// Upstream fetches in flight.
    public var activeFetches: Int
    /// The most recent upstream failure per URL, newest first.
    public var lastErrors: [UpstreamErrorAnswer]
    /// Requests and bytes served, by kind of stream.
    public var streams: [String: StreamCountersAnswer]

    public init(
        entries: Int, bytes: Int64, capacity: Int64, hitBytes: Int64, missBytes: Int64, originBytes: Int64,
        activeFetches: Int, lastErrors: [UpstreamErrorAnswer], streams: [String: StreamCountersAnswer]
    ) {
        self.entries = entries
        self.bytes = bytes
        self.capacity = capacity
        self.hitBytes = hitBytes
        self.missBytes = missBytes
        self.originBytes = originBytes
        self.activeFetches = activeFetches
        self.lastErrors = lastErrors
        self.streams = streams
    }
}

/// An origin's most recent failure, as the cache's statistics list it.
public struct UpstreamErrorAnswer: Codable, Sendable, Equatable {
    public var url: String
    public var status: Int
    public var message: String
    public var at: Date

    public init(url: String, status: Int, message: String, at: Date) {
        self.url = url
        self.status = status
        self.message = message
        self.at = at
    }
}

/// What the proxy served for one kind of stream.
public struct StreamCountersAnswer: Codable, Sendable, Equatable {
    public var requests: Int64
    public var bytes: Int64

    public init(requests: Int64, bytes: Int64) {
        self.requests = requests
        self.bytes = bytes
    }
}

/// `POST /api/v1/cache/trim`: what a trim evicted, what the cache holds afterwards, and how long
/// the eviction took.
public struct TrimResponse: Codable, Sendable, Equatable {
    public var evicted: Int
    public var bytesFreed: Int64
    public var entries: Int
    public var bytes: Int64
    public var milliseconds: Double

    public init(evicted: Int, bytesFreed: Int64, entries: Int, bytes: Int64, milliseconds: Double) {
        self.evicted = evicted
        self.bytesFreed = bytesFreed
        self.entries = entries
        self.bytes = bytes
        self.milliseconds = milliseconds
    }
}

/// A preload job (`POST /api/v1/cache/preload`, `GET /api/v1/cache/preloads/{id}`).
public struct PreloadJobAnswer: Codable, Sendable, Equatable {
    public var id: String
    public var url: String
    public var bytesDone: Int64
    public var bytesTotal: Int64?
    /// `running`, `complete`, `failed` or `cancelled`.
    public var state: String
    public var error: String?
    /// For HLS preloads: segments (and init sections) fetched and planned.
    public var segmentsDone: Int?
    public var segmentsTotal: Int?

    public init(
        id: String, url: String, bytesDone: Int64, bytesTotal: Int64?, state: String, error: String?,
        segmentsDone: Int?, segmentsTotal: Int?
    ) {
        self.id = id
        self.url = url
        self.bytesDone = bytesDone
        self.bytesTotal = bytesTotal
        self.state = state
        self.error = error
        self.segmentsDone = segmentsDone
        self.segmentsTotal = segmentsTotal
    }
}

/// `GET /api/v1/cache/preloads`: every preload job.
public struct PreloadList: Codable, Sendable, Equatable {
    public var preloads: [PreloadJobAnswer]

    public init(preloads: [PreloadJobAnswer]) {
        self.preloads = preloads
    }
}

/// `GET /api/v1/cache/history`: what the cache served, minute by minute.
public struct CacheHistoryAnswer: Codable, Sendable, Equatable {
    /// One minute's bytes served from disk and from origins.
    public struct Sample: Codable, Sendable, Equatable {
        public var at: Date
        public var hitBytes: Int64
        public var missBytes: Int64

        public init(at: Date, hitBytes: Int64, missBytes: Int64) {
            self.at = at
            self.hitBytes = hitBytes
            self.missBytes = missBytes
        }
    }

    /// Seconds per sample.
    public var interval: Int
    public var samples: [Sample]

    public init(interval: Int, samples: [Sample]) {
        self.interval = interval
        self.samples = samples
    }
}

/// A pinned resource as shown: its URL without secrets, and the key that unpins it.
public struct PinAnswer: Codable, Sendable, Equatable {
    public var key: String
    public var url: String
    public var bytes: Int64

    public init(key: String, url: String, bytes: Int64) {
        self.key = key
        self.url = url
        self.bytes = bytes
    }
}

/// `GET /api/v1/cache/pins`: every pinned resource.
public struct PinList: Codable, Sendable, Equatable {
    public var pins: [PinAnswer]

    public init(pins: [PinAnswer]) {
        self.pins = pins
    }
}
