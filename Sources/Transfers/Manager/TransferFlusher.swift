import Foundation

/// The manager's single writer: which tasks changed since the last write, which claims to give
/// up with it, the write under way, and who waits for a write, so writes never overtake each
/// other and a burst of changes becomes one transaction.
///
/// The manager keeps it as actor state and does the writing (it owns the tasks and the store);
/// this holds the bookkeeping. The write runs in ``writer``, a task of its own that the manager
/// starts when there is something to write and nothing writing, and that ``TransferManager/flush()``
/// (and so shutdown) awaits. It is not a child of the caller that changed a task, and never
/// cancelled: a cancelled database write throws, and the synced offsets it carried would be lost.
struct TransferFlusher {
    /// Tasks whose newest state must reach the store.
    private(set) var dirty: Set<Int64> = []
    /// Tasks whose runs ended: their claims go with the next write (after their last state).
    private(set) var releases: Set<Int64> = []
    /// Releases in the write under way.
    private var releasesInFlight: Set<Int64> = []
    /// Tasks in the write under way.
    private var idsInFlight: Set<Int64> = []
    /// The write under way, if any.
    var writer: Task<Void, Never>?
    private var markGeneration = 0
    private var flushedGeneration = 0
    private var waiters: [(generation: Int, continuation: CheckedContinuation<Void, Never>)] = []
    /// Writes that failed in a row (the store busy or unreachable): they set ``retryAt``.
    private var failures = 0
    /// After a failed write, when the ticker tries again (a ``TransferManager/flush()`` tries at
    /// once); nil while writes succeed.
    private(set) var retryAt: Date?

    /// Nothing to write and nothing writing.
    var isIdle: Bool { writer == nil && !hasWork }

    /// Something waits to be written.
    var hasWork: Bool { !dirty.isEmpty || !releases.isEmpty }

    /// The generation a flush must reach to cover every change so far; nil when it already has.
    var pendingGeneration: Int? { flushedGeneration < markGeneration ? markGeneration : nil }

    /// `id` changed: its newest state goes with the next write.
    mutating func mark(_ id: Int64) {
        dirty.insert(id)
        markGeneration += 1
    }

    /// Claims wait to be given up, or are being given up, with a write.
    var holdsReleases: Bool { !releases.isEmpty || !releasesInFlight.isEmpty }

    /// The run of `id` ended: its claim is given up with the next write.
    mutating func release(_ id: Int64) {
        releases.insert(id)
        markGeneration += 1
    }

    /// The claim of `id` is still being given up: claiming it again now could be undone by that
    /// write, so the task must not start before it is through.
    func isReleasing(_ id: Int64) -> Bool {
        releases.contains(id) || releasesInFlight.contains(id)
    }

    /// A change of `id` has not reached the store yet: the store must not be asked about its
    /// state (a claim checks it) before that write is through.
    func isPending(_ id: Int64) -> Bool {
        dirty.contains(id) || idsInFlight.contains(id)
    }

    /// `id` is gone from the store: nothing of it is written any more.
    mutating func forget(_ id: Int64) {
        dirty.remove(id)
    }

    /// The ids to write now, the claims to release with them, and the generation that write covers.
    mutating func takeBatch() -> (ids: Set<Int64>, releases: [Int64], generation: Int)? {
        guard hasWork else { return nil }
        let batch = (dirty, Array(releases), markGeneration)
        dirty = []
        idsInFlight = batch.0
        releasesInFlight = releases
        releases = []
        return batch
    }

    /// Waits for the write that covers `generation`.
    mutating func wait(for generation: Int, _ continuation: CheckedContinuation<Void, Never>) {
        waiters.append((generation, continuation))
    }

    /// A write covering `generation` is in the store: the waiters it satisfies, to resume.
    mutating func wrote(_ generation: Int) -> [CheckedContinuation<Void, Never>] {
        flushedGeneration = generation
        idsInFlight = []
        releasesInFlight = []
        let ready = waiters.filter { $0.generation <= generation }.map(\.continuation)
        waiters.removeAll { $0.generation <= generation }
        return ready
    }

    /// The write of `batch` failed: its tasks and claims go with the next write, which the ticker
    /// starts after a pause that doubles with each failure in a row (1 s up to 10 s). Dropping
    /// them would lose a finished task's `complete` and leave its claim to expire, after which
    /// another worker would run it again. The waiters of the batch are resumed (a flush waits for
    /// one attempt, so a shutdown with the database gone still ends).
    mutating func failed(
        _ batch: (ids: Set<Int64>, releases: [Int64], generation: Int), at now: Date
    ) -> [CheckedContinuation<Void, Never>] {
        dirty.formUnion(batch.ids)
        releases.formUnion(batch.releases)
        markGeneration += 1
        failures += 1
        retryAt = now.addingTimeInterval(min(10, Double(1 << min(failures - 1, 4))))
        return wrote(batch.generation)
    }

    /// A write went through: the next one starts as soon as there is something to write.
    mutating func succeeded() {
        failures = 0
        retryAt = nil
    }

    /// The writer stopped: with nothing more to write, every waiter, to resume; after a failed
    /// write, none (they wait for the retry).
    mutating func writerEnded() -> [CheckedContinuation<Void, Never>] {
        writer = nil
        guard !hasWork else { return [] }
        flushedGeneration = markGeneration
        defer { waiters = [] }
        return waiters.map(\.continuation)
    }
}
