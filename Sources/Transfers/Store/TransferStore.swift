/// Where the manager keeps its tasks. The manager holds every task in memory and writes each
/// change through; a store only has to persist and load them.
///
/// Each method is one transaction. `SQLiteTransferStore` is the embedded implementation; a
/// shared queue for several nodes would implement this on PostgreSQL.
public protocol TransferStore: Sendable {
    /// Every task, in no particular order.
    func loadAll() async throws -> [TransferTask]
    /// Stores new tasks (their `id` is ignored) and returns them with their assigned ids.
    func insert(_ tasks: [TransferTask]) async throws -> [TransferTask]
    /// Replaces stored tasks by id, all in one transaction.
    func update(_ tasks: [TransferTask]) async throws
    /// Deletes tasks by id.
    func delete(ids: [Int64]) async throws
}
