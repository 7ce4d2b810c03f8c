import Foundation

/// What the cache holds and how well it has served.
public struct CacheStatistics: Sendable, Codable, Equatable {
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
    public var lastErrors: [UpstreamErrorRecord]
}

/// Progress of a preload.
public struct PreloadProgress: Sendable, Codable, Equatable {
    public var url: String
    /// Bytes of the requested range that are now cached.
    public var bytesDone: Int64
    /// Bytes the preload wants (nil until the origin has said the length).
    public var bytesTotal: Int64?
    public var finished: Bool
}
