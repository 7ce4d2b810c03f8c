import Foundation
import Logging
import MediaCache
import MediaFormats
import Streaming
import Synchronization

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
        /// For HLS preloads: segments (and init sections) fetched and planned.
        public var segmentsDone: Int?
        public var segmentsTotal: Int?
    }

    private let cache: MediaCache
    private let streams: StreamService
    private let logger: Logger
    /// Runs the jobs, so the engine's shutdown cancels and awaits them.
    private let work: BackgroundWork
    private let jobs = Mutex<[String: (job: Job, task: Task<Void, Never>?)]>([:])

    /// When a preload's failed fetch is tried again: the retry policy transfers and catalog fetches
    /// share, here for failures that may pass (no answer, 408/429/5xx).
    private let retryPolicy: RetryPolicy

    public init(
        cache: MediaCache, streams: StreamService, work: BackgroundWork,
        retryPolicy: RetryPolicy = RetryPolicy(baseDelay: 1, multiplier: 2, maximumDelay: 10, maximumAttempts: 2),
        logger: Logger
    ) {
        self.retryPolicy = retryPolicy
        self.cache = cache
        self.streams = streams
        self.work = work
        self.logger = logger
    }

    /// Starts a preload of the first `byteCount` bytes (all when nil) and returns its id.
    public func start(link: StreamLink, byteCount: Int64?) throws(FeatureError) -> Job {
        try FeatureError.streaming { () throws(StreamError) in try link.validate() }
        let id = UUID().uuidString.lowercased()
        let job = Job(
            id: id, url: link.url.absoluteString, bytesDone: 0, bytesTotal: nil, state: "running", error: nil,
            segmentsDone: nil, segmentsTotal: nil)
        try admit(job)
        let task = work.start { [self, cache, logger, retryPolicy] in
            do {
                _ = try await PreloadJobs.retrying(retryPolicy, logger: logger) {
                    try await cache.preload(url: link.url, upstreamHeaders: link.headerPairs, byteCount: byteCount) {
                        progress in
                        self.jobs.withLock { jobs in
                            jobs[id]?.job.bytesDone = progress.bytesDone
                            jobs[id]?.job.bytesTotal = progress.bytesTotal
                        }
                    }
                }
                self.jobs.withLock { $0[id]?.job.state = "complete" }
            } catch {
                PreloadJobs.record(error, id: id, url: link.url, in: self, logger: logger)
            }
        }
        return started(job, task)
    }

    /// Starts a preload of an HLS stream: the segments covering the first `seconds` of it, or its
    /// first `segments` segments (a master playlist's variant chosen by `maxBandwidth`).
    public func startHLS(link: StreamLink, seconds: Double?, segments: Int?, maxBandwidth: Int?) throws(FeatureError)
        -> Job
    {
        try FeatureError.streaming { () throws(StreamError) in try link.validate() }
        let id = UUID().uuidString.lowercased()
        let job = Job(
            id: id, url: link.url.absoluteString, bytesDone: 0, bytesTotal: nil, state: "running", error: nil,
            segmentsDone: 0, segmentsTotal: nil)
        try admit(job)
        let task = work.start { [self, cache, streams, logger, retryPolicy] in
            do {
                let all = try await PreloadJobs.retrying(retryPolicy, logger: logger) {
                    try await streams.plannedSegments(link: link, maxBandwidth: maxBandwidth)
                }
                var chosen: [StreamService.PlannedSegment] = []
                var covered = 0.0
                var media = 0
                // The limits count the variant's segments; a separate audio rendition's come
                // along for the time the chosen video covers (the plan is ordered by start time).
                for segment in all {
                    if segment.isAudio {
                        if segment.start < covered || (segment.duration == 0 && segment.start <= covered) {
                            chosen.append(segment)
                        }
                        continue
                    }
                    if let segments, media >= segments { break }
                    if let seconds, covered >= seconds { break }
                    chosen.append(segment)
                    if segment.duration > 0 {
                        media += 1
                        covered += segment.duration
                    }
                }
                self.jobs.withLock { $0[id]?.job.segmentsTotal = chosen.count }
                var done: Int64 = 0
                for (number, segment) in chosen.enumerated() {
                    try Task.checkCancellation()
                    let progress = try await PreloadJobs.retrying(retryPolicy, logger: logger) {
                        try await cache.preload(
                            url: segment.url, upstreamHeaders: link.headerPairs, range: segment.range)
                    }
                    done += progress.bytesDone
                    self.jobs.withLock {
                        $0[id]?.job.bytesDone = done
                        $0[id]?.job.segmentsDone = number + 1
                    }
                }
                self.jobs.withLock { $0[id]?.job.state = "complete" }
            } catch {
                PreloadJobs.record(error, id: id, url: link.url, in: self, logger: logger)
            }
        }
        return started(job, task)
    }

    /// Runs `body`, trying again as `policy` says when the origin failed in a way that may pass.
    static func retrying<T>(
        _ policy: RetryPolicy, logger: Logger, _ body: () async throws -> T
    ) async throws -> T {
        try await policy.run(body) { error in
            (error as? MediaCacheError).flatMap { $0.kind == .upstream ? $0.isTransient : nil }
        } onRetry: { error, _, _ in
            logger.debug("preload fetch failed; trying again", metadata: ["error": "\(error)"])
        }
    }

    /// Records the job's task; a job the stopping server would not start is cancelled.
    private func started(_ job: Job, _ task: Task<Void, Never>?) -> Job {
        jobs.withLock { jobs in
            jobs[job.id]?.task = task
            if task == nil { jobs[job.id]?.job.state = "cancelled" }
            return jobs[job.id]?.job ?? job
        }
    }

    /// Preloads running at once, and finished ones remembered for their callers to read.
    static let maximumRunning = 32
    static let maximumRemembered = 256

    /// Records a new job, within the bounds: too many running is refused, and the finished ones
    /// beyond ``maximumRemembered`` are forgotten.
    private func admit(_ job: Job) throws(FeatureError) {
        let admitted = jobs.withLock { jobs -> Bool in
            guard jobs.values.count(where: { $0.job.state == "running" }) < Self.maximumRunning else { return false }
            if jobs.count >= Self.maximumRemembered {
                for (id, entry) in jobs where entry.job.state != "running" { jobs[id] = nil }
            }
            jobs[job.id] = (job, nil)
            return true
        }
        guard admitted else {
            throw .invalid("\(Self.maximumRunning) preloads are running already; wait for one to finish or cancel one")
        }
    }

    /// Marks a job failed (or cancelled, when its task was) and logs real failures.
    private static func record(
        _ error: any Error, id: String, url: URL,
        in preloads: PreloadJobs, logger: Logger
    ) {
        let cancelled = Task.isCancelled
        preloads.jobs.withLock {
            $0[id]?.job.state = cancelled ? "cancelled" : "failed"
            $0[id]?.job.error = cancelled ? nil : "\(error)"
        }
        if !cancelled { logger.info("preload failed", metadata: ["url": "\(url)", "error": "\(error)"]) }
    }

    public func job(id: String) -> Job? { jobs.withLock { $0[id]?.job } }

    public var all: [Job] { jobs.withLock { $0.values.map(\.job) } }

    /// Cancels a running preload; returns false when there is no such job.
    public func cancel(id: String) -> Bool {
        guard let task = jobs.withLock({ $0[id]?.task }) else { return false }
        task.cancel()
        return true
    }

    /// Waits until a preload is no longer running and returns its final state.
    public func wait(id: String) async -> Job? {
        guard let task = jobs.withLock({ $0[id]?.task }) else { return nil }
        await task.value
        return job(id: id)
    }
}
