import Foundation

/// Where the manager keeps its tasks. The manager holds every task in memory and writes each
/// change through; a store persists and loads them, and keeps the claims that let several
/// workers share one queue.
///
/// Each method is one transaction. ``SQLiteTransferStore`` is the embedded implementation,
/// ``PostgresTransferStore`` the one several nodes share.
///
/// ## Claims
/// A worker (a ``TransferManager``, named by its ``TransferManager/workerID``) runs a task only
/// while it holds the task's claim: the task's row names the worker and when the claim expires.
/// A task can be claimed when it is `waiting` or `active` and nobody else holds a live claim on
/// it — no claim, one of the same worker, or one that expired before `now`. Claims are taken
/// atomically (on PostgreSQL with row locks, `FOR UPDATE [SKIP LOCKED]`; on SQLite by its single
/// writer), so two workers never both hold one task. A worker renews its claims well within
/// their lifetime and releases them when a run ends; a worker that dies leaves claims that
/// simply expire, after which another worker takes the task over. Times are unix seconds on
/// the workers' clocks, so the nodes' clocks should agree to well within a claim's lifetime.
public protocol TransferStore: Sendable {
    /// Every task, in no particular order.
    func loadAll() async throws -> [TransferTask]
    /// The stored tasks among `ids` (a deleted one is missing), in no particular order: what
    /// another worker made of tasks this one could not claim.
    func load(ids: [Int64]) async throws -> [TransferTask]
    /// Stores new tasks (their `id` is ignored) and returns them with their assigned ids, in order.
    /// With a `worker`, the `waiting` ones among them are claimed for it until `expiry` in the
    /// same statement: the worker that accepted a task holds it from the start (no other worker
    /// can claim it while that worker renews its claims), so it starts it without asking again.
    func insert(_ tasks: [TransferTask], claimingFor worker: String?, until expiry: Date) async throws
        -> [TransferTask]
    /// Replaces stored tasks by id and releases `worker`'s claims on `releasing` (tasks whose
    /// runs ended), all in one transaction, so a released task is never seen claimable in a
    /// state older than the one written with it.
    func update(_ tasks: [TransferTask], releasingClaims releasing: [Int64], by worker: String) async throws
    /// Deletes tasks by id.
    func delete(ids: [Int64]) async throws

    /// Claims the tasks among `ids` that can be claimed (see above) for `worker` until `expiry`,
    /// and returns the ids it now holds; the others are held by a live claim of another worker,
    /// finished, paused or gone.
    func claim(ids: [Int64], by worker: String, until expiry: Date, now: Date) async throws -> [Int64]
    /// Claims up to `limit` waiting tasks that are due (no retry pending after `now`) and that
    /// nobody holds (this worker's own live claims are not handed out again), highest priority
    /// then lowest position first, skipping rows another worker is claiming at this moment, and
    /// returns their ids in that order: a queue for workers that keep no list.
    func claimNext(limit: Int, by worker: String, until expiry: Date, now: Date) async throws -> [Int64]
    /// Moves the expiry of every claim `worker` holds to `expiry` and returns the ids it still
    /// holds (a claim that expired and was taken over is not among them).
    func renewClaims(by worker: String, until expiry: Date) async throws -> [Int64]
    /// Gives up `worker`'s claims on `ids` (claims of other workers stay).
    func releaseClaims(ids: [Int64], by worker: String) async throws
}

extension TransferStore {
    /// Stores new tasks, claiming none.
    public func insert(_ tasks: [TransferTask]) async throws -> [TransferTask] {
        try await insert(tasks, claimingFor: nil, until: .distantPast)
    }

    /// Replaces stored tasks by id, releasing no claim.
    public func update(_ tasks: [TransferTask]) async throws {
        try await update(tasks, releasingClaims: [], by: "")
    }
}
