import AsyncHTTPClient
import MediaCache
import Streaming

/// The media cache and what manages it, without the rest of the engine
/// (``TunerEngine/openCache(configuration:logger:)``): no database, catalog, transfers or live
/// sessions.
public struct CacheParts: Sendable {
    public let cache: MediaCache
    public let streams: StreamService
    public let preloads: PreloadJobs
    /// Statistics, clearing, trimming, pinning and exports, as the API does them.
    public let admin: CacheAdmin
    let background: BackgroundWork
    let httpClient: HTTPClient

    /// Ends preloads (they write into the cache), then closes the cache and its connections.
    public func shutdown() async throws {
        await background.shutdown()
        try await cache.shutdown()
        try await httpClient.shutdown()
    }
}
