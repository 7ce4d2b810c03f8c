import Foundation
import NIOCore

extension MediaCache {
    /// Fills the cache with the first `byteCount` bytes of a resource (all of it when nil), through
    /// the same shared fetch path players use, so a preload and a player never fetch twice.
    /// Cancel the calling task to stop it; what was fetched stays cached.
    public func preload(
        url: URL, upstreamHeaders: [(String, String)] = [], byteCount: Int64? = nil,
        progress: @escaping @Sendable (PreloadProgress) -> Void = { _ in }
    ) async throws -> PreloadProgress {
        try await preload(
            url: url, upstreamHeaders: upstreamHeaders, range: byteCount.map { 0..<max(1, $0) }, progress: progress)
    }

    /// Fills the cache with `range` of a resource (all of it when nil).
    public func preload(
        url: URL, upstreamHeaders: [(String, String)] = [], range byteRange: Range<Int64>?,
        progress: @escaping @Sendable (PreloadProgress) -> Void = { _ in }
    ) async throws -> PreloadProgress {
        let range: String? = byteRange.map { "bytes=\($0.lowerBound)-\($0.upperBound - 1)" }
        let response = await serve(MediaRequest(url: url, upstreamHeaders: upstreamHeaders, range: range))
        guard response.status == 200 || response.status == 206 else {
            throw MediaCacheError.upstream(
                status: response.status,
                description: "preload of \(url.absoluteString) failed: origin answered \(response.status)",
                isTransient: response.status >= 500)
        }
        let total = response.headers.first(name: "Content-Length").flatMap { ResponseLayout.decimal($0) }
        var sink: any MediaBodySink = ProgressSink(url: url.absoluteString, total: total, report: progress)
        progress(PreloadProgress(url: url.absoluteString, bytesDone: 0, bytesTotal: total, finished: false))
        try await response.body?.write(into: &sink)
        let done = (sink as? ProgressSink)?.done ?? 0
        let final = PreloadProgress(url: url.absoluteString, bytesDone: done, bytesTotal: total, finished: true)
        progress(final)
        return final
    }
}

/// Counts the bytes of a preload and reports progress about every 1 MiB.
private struct ProgressSink: MediaBodySink {
    let url: String
    let total: Int64?
    let report: @Sendable (PreloadProgress) -> Void
    var done: Int64 = 0
    var lastReported: Int64 = 0

    /// Bytes the cache already holds need no reading: a preload only counts them.
    mutating func write(_ region: CachedFileRegion) async throws -> Bool {
        count(region.count)
        return true
    }

    mutating func write(_ buffer: ByteBuffer) async throws {
        count(Int64(buffer.readableBytes))
    }

    private mutating func count(_ bytes: Int64) {
        done += bytes
        if done - lastReported >= 1 << 20 {
            lastReported = done
            report(PreloadProgress(url: url, bytesDone: done, bytesTotal: total, finished: false))
        }
    }
}
