/// The manager's single writer: which tasks changed since the last write, the write under way,
/// and who waits for a write, so writes never overtake each other and a burst of changes
/// becomes one transaction.
///
/// The manager keeps it as actor state and does the writing (it owns the tasks and the store);
/// this holds the bookkeeping. The write runs in ``writer``, a task of its own that the manager
/// starts when there is something to write and nothing writing, and that ``TransferManager/flush()``
/// (and so shutdown) awaits. It is not a child of the caller that changed a task, and never
/// cancelled: a cancelled database write throws, and the synced offsets it carried would be lost.
struct TransferFlusher {
    /// Tasks whose newest state must reach the store.
    private(set) var dirty: Set<Int64> = []
    /// The write under way, if any.
    var writer: Task<Void, Never>?
    private var markGeneration = 0
    private var flushedGeneration = 0
    private var waiters: [(generation: Int, continuation: CheckedContinuation<Void, Never>)] = []

    /// Nothing to write and nothing writing.
    var isIdle: Bool { writer == nil && dirty.isEmpty }

    /// The generation a flush must reach to cover every change so far; nil when it already has.
    var pendingGeneration: Int? { flushedGeneration < markGeneration ? markGeneration : nil }

    /// `id` changed: its newest state goes with the next write.
    mutating func mark(_ id: Int64) {
        dirty.insert(id)
        markGeneration += 1
    }

    /// `id` is gone from the store: nothing of it is written any more.
    mutating func forget(_ id: Int64) {
        dirty.remove(id)
    }

    /// The ids to write now and the generation that write covers.
    mutating func takeBatch() -> (ids: Set<Int64>, generation: Int)? {
        guard !dirty.isEmpty else { return nil }
        let batch = (dirty, markGeneration)
        dirty = []
        return batch
    }

    /// Waits for the write that covers `generation`.
    mutating func wait(for generation: Int, _ continuation: CheckedContinuation<Void, Never>) {
        waiters.append((generation, continuation))
    }

    /// A write covering `generation` is in the store: the waiters it satisfies, to resume.
    mutating func wrote(_ generation: Int) -> [CheckedContinuation<Void, Never>] {
        flushedGeneration = generation
        let ready = waiters.filter { $0.generation <= generation }.map(\.continuation)
        waiters.removeAll { $0.generation <= generation }
        return ready
    }

    /// The writer found nothing more to write: every waiter, to resume.
    mutating func writerEnded() -> [CheckedContinuation<Void, Never>] {
        writer = nil
        flushedGeneration = markGeneration
        defer { waiters = [] }
        return waiters.map(\.continuation)
    }
}
