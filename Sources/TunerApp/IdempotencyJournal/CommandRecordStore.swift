import Foundation

/// The SQL half of the ``CommandJournal``: its rows in one engine. Every method is atomic; a claim
/// above all, which under concurrency (several nodes on PostgreSQL) gives a key to exactly one
/// request.
protocol CommandRecordStore: Sendable {
    /// Records `key` as pending for `process` when it is new (`.run`), else says what its row
    /// says: `.replay`, `.mismatch`, `.inProgress` (pending in `process`) or `.interrupted`
    /// (pending in another process).
    func claim(key: String, fingerprint: String, caller: String, process: String, createdAt: Double) async throws
        -> CommandClaim
    /// Keeps the answer of a claimed key.
    func finish(caller: String, key: String, receipt: CommandReceipt, body: Data) async throws
    /// Forgets a pending key.
    func abandon(caller: String, key: String) async throws
    /// Drops receipts created before `cutoff` and the oldest past `keep`; returns how many went.
    func prune(before cutoff: Double, keep: Int) async throws -> Int
    /// How many receipts (pending or done) are kept.
    func count() async throws -> Int
}

extension CommandRecordStore {
    /// What an existing row answers a claim.
    static func answer(
        fingerprint: String, process: String, row: (fingerprint: String, process: String, state: String),
        status: Int?, contentType: String?, body: Data?
    ) -> CommandClaim {
        guard row.fingerprint == fingerprint else { return .mismatch }
        if row.state == "done" {
            return .replay(
                CommandReceipt(status: status ?? 500, contentType: contentType, body: body.map(Array.init) ?? []))
        }
        return row.process == process ? .inProgress : .interrupted
    }
}
