/// Moves the bytes of one kind of transfer; the manager decides when, and keeps the books.
///
/// The manager calls ``run(_:context:)`` in a child task when the scheduler starts a task, and
/// calls ``discard(_:context:)`` and ``deleteResult(_:context:)`` only while no run of that task
/// is in progress. An executor keeps no state between calls that matters for correctness:
/// everything needed to resume lives in the task (`committedBytes`, validators, `properties`)
/// and on disk.
///
/// **What a run must do**
/// - Start from `task.committedBytes` (the durable offset), after checking its partial data
///   against it: a longer partial file is truncated to the offset; a shorter one lowers it
///   (report that with ``TransferContext/commit(_:note:)``).
/// - Call ``TransferContext/progress(bytes:total:)`` whenever bytes move (cheap, no I/O, call it
///   per chunk). The manager derives speed and ETA from it, and a run that reports no new bytes
///   for the stall timeout is cancelled and retried as a transient "stalled" failure.
/// - Call ``TransferContext/commit(_:note:)`` only for bytes that are synced to their
///   destination (`fdatasync` for local files, the server's confirmed offset for tus): the
///   committed offset is what a restart resumes from. Batch the syncs (``TransferContext/tuning``
///   says how often). Also commit new validators, new totals, and values in `properties` that a
///   resume needs, before relying on them. A commit that raises the offset resets the task's
///   retry budget.
/// - When the remote resource changed or a server ignored a resume request, start over from 0
///   and say so: `commit(TransferCheckpoint(committedBytes: 0, …), note: "restarted from byte 0: why")`.
/// - Return a ``TransferOutcome`` only when the result is complete and verified (length, and
///   SHA-256 when `task.expectedSHA256` is set) and in its final place. Never return on a short
///   body or an unknown end.
/// - Throw a ``TransferError`` for failures: `.transient` (timeouts, resets, 408/429/5xx, with
///   `retryAfter` from the server), `.permanent` (404/410, disk full, checksum mismatch),
///   `.needsNewURL` (401/403). Anything else thrown is classified by `TransferError.classify(_:)`.
///   Before throwing, sync and commit what is safely on disk, so the next attempt resumes there.
///
/// **Cancellation** is how pause, cancel, delete, URL changes, stalls and shutdown reach a run:
/// the manager cancels the run's Swift task (it knows why; the executor does not need to). The
/// executor must notice promptly (AsyncHTTPClient requests and body iteration are cancelled with
/// the task; check `Task.isCancelled` in loops), sync and commit what it has, and throw
/// `CancellationError` (or any error: after a cancellation the manager ignores what is thrown).
/// It must never report success for a body that ended because of the cancellation.
public protocol TransferExecutor: Sendable {
    /// The kinds this executor runs; registering it replaces an earlier executor for them.
    var kinds: [TransferKind] { get }

    /// Moves the task's bytes until it is complete; see the protocol's documentation.
    func run(_ task: TransferTask, context: TransferContext) async throws -> TransferOutcome

    /// Deletes the task's partial data (a cancelled task). Must succeed when there is none.
    func discard(_ task: TransferTask, context: TransferContext) async throws

    /// Deletes what a complete task produced (the downloaded file or folder, or the remote upload,
    /// e.g. with tus termination), before its record is deleted.
    func deleteResult(_ task: TransferTask, context: TransferContext) async throws
}

/// What a finished run produced.
public struct TransferOutcome: Sendable, Hashable {
    /// The final name under `<data>/downloads/` (or the remote URL of an upload).
    public var resultName: String
    /// Bytes transferred in total (the file's length).
    public var bytes: Int64

    public init(resultName: String, bytes: Int64) {
        self.resultName = resultName
        self.bytes = bytes
    }
}

/// A durable point of a run: everything a resume needs, written to the store in one go.
public struct TransferCheckpoint: Sendable, Hashable {
    /// Bytes synced (or confirmed by the remote side).
    public var committedBytes: Int64
    public var totalBytes: Int64?
    public var etag: String?
    public var lastModified: String?
    /// Merged into the task's `properties` (a nil value removes the key).
    public var properties: [String: String?]

    public init(
        committedBytes: Int64, totalBytes: Int64?, etag: String?, lastModified: String?,
        properties: [String: String?] = [:]
    ) {
        self.committedBytes = committedBytes
        self.totalBytes = totalBytes
        self.etag = etag
        self.lastModified = lastModified
        self.properties = properties
    }
}

/// How often executors sync and commit, and how big their write buffers are.
public struct TransferTuning: Sendable, Hashable {
    /// Sync and commit after this many new bytes…
    public var syncBytes: Int64
    /// …or after this many seconds with new bytes, whichever comes first.
    public var syncInterval: Double
    /// Bytes gathered in memory before one write to the file.
    public var writeBufferBytes: Int

    /// Free disk space a download leaves alone: one whose remaining bytes would cut into it is
    /// refused before its first byte (a full disk breaks the database and the cache too).
    public var minimumFreeDiskBytes: Int64

    public init(
        syncBytes: Int64 = 16 << 20, syncInterval: Double = 2, writeBufferBytes: Int = 1 << 20,
        minimumFreeDiskBytes: Int64 = 256 << 20
    ) {
        self.syncBytes = syncBytes
        self.syncInterval = syncInterval
        self.writeBufferBytes = writeBufferBytes
        self.minimumFreeDiskBytes = minimumFreeDiskBytes
    }
}
