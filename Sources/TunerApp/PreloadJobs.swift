import Foundation
import Logging
import MediaCache
import NIOConcurrencyHelpers

/// Preloads running in the background, each with an id, its progress and a way to cancel it.
public final class PreloadJobs: Sendable {
    /// The state of one preload, as the API and CLI show it.
    public struct Job: Sendable, Codable, Equatable {
        public var id: String
        public var url: String
        public var bytesDone: Int64
        public var bytesTotal: Int64?
        /// `running`, `complete`, `failed` or `cancelled`.
        public var state: String
        public var error: String?
    }

    private let cache: MediaCache
    private let logger: Logger
    private let jobs = NIOLockedValueBox<[String: (job: Job, task: Task<Void, Never>?)]>([:])

    public init(cache: MediaCache, logger: Logger) {
        self.cache = cache
        self.logger = logger
    }

    /// Starts a preload of the first `byteCount` bytes (all when nil) and returns its id.
    public func start(link: StreamLink, byteCount: Int64?) throws(StreamLinkError) -> Job {
        try link.validate()
        let id = UUID().uuidString.lowercased()
        let job = Job(id: id, url: link.url.absoluteString, bytesDone: 0, bytesTotal: nil, state: "running", error: nil)
        jobs.withLockedValue { $0[id] = (job, nil) }
        let task = Task { [cache, jobs, logger] in
            do {
                _ = try await cache.preload(url: link.url, upstreamHeaders: link.headerPairs, byteCount: byteCount) { progress in
                    jobs.withLockedValue { jobs in
                        jobs[id]?.job.bytesDone = progress.bytesDone
                        jobs[id]?.job.bytesTotal = progress.bytesTotal
                    }
                }
                jobs.withLockedValue { $0[id]?.job.state = "complete" }
            } catch {
                let cancelled = Task.isCancelled
                jobs.withLockedValue {
                    $0[id]?.job.state = cancelled ? "cancelled" : "failed"
                    $0[id]?.job.error = cancelled ? nil : "\(error)"
                }
                if !cancelled { logger.info("preload failed", metadata: ["url": "\(link.url)", "error": "\(error)"]) }
            }
        }
        jobs.withLockedValue { $0[id]?.task = task }
        return job
    }

    public func job(id: String) -> Job? { jobs.withLockedValue { $0[id]?.job } }

    public var all: [Job] { jobs.withLockedValue { $0.values.map(\.job) } }

    /// Cancels a running preload; returns false when there is no such job.
    public func cancel(id: String) -> Bool {
        guard let task = jobs.withLockedValue({ $0[id]?.task }) else { return false }
        task.cancel()
        return true
    }

    /// Waits until a preload is no longer running and returns its final state.
    public func wait(id: String) async -> Job? {
        guard let task = jobs.withLockedValue({ $0[id]?.task }) else { return nil }
        await task.value
        return job(id: id)
    }
}
