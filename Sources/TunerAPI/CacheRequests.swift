/// The bodies the cache's endpoints take, shared by the server (which decodes them) and clients.

/// `POST /api/v1/cache/preload`: fill the cache with the start of a resource.
public struct PreloadRequest: Codable, Sendable, Equatable {
    public var url: String
    public var headers: [String: String]?
    public var bytes: Int64?
    /// For HLS: how much of the stream to fill, in seconds or in segments.
    public var seconds: Double?
    public var segments: Int?
    /// For an HLS master: the highest variant bandwidth wanted.
    public var maxBandwidth: Int?

    public init(
        url: String, headers: [String: String]? = nil, bytes: Int64? = nil, seconds: Double? = nil,
        segments: Int? = nil,
        maxBandwidth: Int? = nil
    ) {
        self.url = url
        self.headers = headers
        self.bytes = bytes
        self.seconds = seconds
        self.segments = segments
        self.maxBandwidth = maxBandwidth
    }
}

/// `POST /api/v1/cache/export` and `/cache/pin`: one cached resource by its origin URL.
public struct CacheResourceRequest: Codable, Sendable, Equatable {
    public var url: String
    public var headers: [String: String]?
    /// For export: where to link the cached file (inside the files root).
    public var path: String?
    /// For pin: pin (true) or unpin.
    public var pinned: Bool?

    public init(url: String, headers: [String: String]? = nil, path: String? = nil, pinned: Bool? = nil) {
        self.url = url
        self.headers = headers
        self.path = path
        self.pinned = pinned
    }
}

/// `POST /api/v1/cache/trim`.
public struct TrimRequest: Codable, Sendable, Equatable {
    /// The budget to evict down to; the configured cache size when absent.
    public var bytes: Int64?

    public init(bytes: Int64? = nil) {
        self.bytes = bytes
    }
}

/// A one-line answer: `{"message": "cache cleared"}`.
public struct MessageAnswer: Codable, Sendable, Equatable {
    public var message: String

    public init(message: String) {
        self.message = message
    }
}

/// What every error answer carries: `{"error": {"message": …}}` (Hummingbird's shape).
public struct ErrorAnswer: Codable, Sendable, Equatable {
    public struct Detail: Codable, Sendable, Equatable {
        public var message: String?
    }

    public var error: Detail
}
