import Fetching
import Foundation
import Logging

/// What an executor gets from the manager for one task: where to put files, and the calls that
/// report progress and durable checkpoints. See ``TransferExecutor`` for when to make them.
public final class TransferContext: Sendable {
    public let taskID: Int64
    /// The data folder.
    public let dataDirectory: String
    /// `<data>/downloads`: finished downloads, and partial files ending in `.partial`.
    public let downloadsDirectory: String
    public let tuning: TransferTuning
    /// Where the task may connect: every hop, redirects included (the manager's `fetchPolicy`).
    public let fetchGate: FetchGate
    public let logger: Logger
    let meter: TransferMeter
    private let manager: TransferManager

    init(taskID: Int64, manager: TransferManager, meter: TransferMeter) {
        self.taskID = taskID
        self.manager = manager
        self.meter = meter
        dataDirectory = manager.dataDirectory
        downloadsDirectory = manager.downloadsDirectory
        tuning = manager.configuration.tuning
        fetchGate = FetchGate(policy: manager.configuration.fetchPolicy)
        var logger = manager.logger
        logger[metadataKey: "transfer"] = "\(taskID)"
        self.logger = logger
    }

    /// Reports the bytes on disk (or sent) so far, committed or not. Cheap: call it per chunk.
    public func progress(bytes: Int64, total: Int64?) {
        meter.update(bytes: bytes, total: total)
    }

    /// Says bytes are moving on the connection although none counts as progress yet (sent but
    /// unconfirmed, received but not synced). Stall detection watches these too, so a slow link
    /// whose chunks take longer than the stall timeout is not taken for a dead one. Cheap.
    public func activity() {
        meter.touch()
    }

    /// Records a durable checkpoint and returns once the store has it. Only commit bytes that
    /// are synced. `note`, when given, goes into the task's history (restarts must say why).
    public func commit(_ checkpoint: TransferCheckpoint, note: String? = nil) async throws {
        meter.update(bytes: checkpoint.committedBytes, total: checkpoint.totalBytes)
        try await manager.recordCheckpoint(id: taskID, checkpoint, note: note)
    }

    /// Says every byte has arrived and the run only waits for the disk now (writing, syncing,
    /// moving into place): the manager may start the next task in its slot. The task stays
    /// active until the run returns; pause, cancel and shutdown still reach it. Returns at once.
    func releaseSlot() {
        // Synchronous for the executor, so a hop onto the manager; it ends as soon as the actor runs it.
        Task { [manager, taskID] in await manager.releaseSlot(id: taskID) }
    }

    /// Returns when this run still holds its task's claim (renewing it), and throws
    /// `CancellationError` when another worker took the task over meanwhile (the run is stopped
    /// then). Call it just before putting a result in place; ``commitFinal(_:)`` does.
    public func confirmClaim() async throws {
        try await manager.confirmClaim(id: taskID)
    }

    /// `commit(_:)` of the run's last checkpoint (every byte synced, nothing left to receive),
    /// which also gives up the run's slot (`releaseSlot()`). Only for a checkpoint from which the
    /// executor recognises a finished result after a crash: the manager then writes the task's
    /// completion lazily (with the next write, at most a progress tick later).
    func commitFinal(_ checkpoint: TransferCheckpoint) async throws {
        try await confirmClaim()
        meter.update(bytes: checkpoint.committedBytes, total: checkpoint.totalBytes)
        try await manager.recordCheckpoint(id: taskID, checkpoint, note: nil, releasingSlot: true)
        // Again once the write is done: on a loaded machine it may wait long enough for the claim
        // to lapse and another worker to take the task, and the caller puts the result in place
        // right after this returns. (Asks the store only when the claim is half spent.)
        try await confirmClaim()
    }

    /// Adds a line to the task's history.
    public func note(_ message: String) async {
        await manager.recordNote(id: taskID, message)
    }
}
