import Foundation
import GRDB
import TunerStorage

/// The command journal's rows in the data folder's SQLite file: one writer, so reading a key and
/// inserting it in one write transaction is atomic.
struct SQLiteCommandRecordStore: CommandRecordStore {
    let pool: any DatabaseWriter

    init(database: TunerDatabase) {
        pool = database.writer
    }

    func claim(key: String, fingerprint: String, caller: String, process: String, createdAt: Double) async throws
        -> CommandClaim
    {
        try await pool.write { db in
            if let row = try Row.fetchOne(
                db,
                sql: """
                    SELECT fingerprint, process, state, status, contentType, body FROM commandReceipt
                    WHERE caller = ? AND key = ?
                    """,
                arguments: [caller, key])
            {
                return Self.answer(
                    fingerprint: fingerprint, process: process,
                    row: (row["fingerprint"], row["process"], row["state"]), status: row["status"],
                    contentType: row["contentType"], body: row["body"])
            }
            try db.execute(
                sql: """
                    INSERT INTO commandReceipt (caller, key, fingerprint, process, state, createdAt)
                    VALUES (?, ?, ?, ?, 'pending', ?)
                    """,
                arguments: [caller, key, fingerprint, process, createdAt])
            return .run(CommandTicket(caller: caller, key: key))
        }
    }

    func finish(caller: String, key: String, receipt: CommandReceipt, body: Data) async throws {
        try await pool.write { db in
            try db.execute(
                sql: """
                    UPDATE commandReceipt SET state = 'done', status = ?, contentType = ?, body = ?
                    WHERE caller = ? AND key = ?
                    """,
                arguments: [receipt.status, receipt.contentType, body, caller, key])
        }
    }

    func abandon(caller: String, key: String) async throws {
        try await pool.write { db in
            try db.execute(
                sql: "DELETE FROM commandReceipt WHERE caller = ? AND key = ? AND state = 'pending'",
                arguments: [caller, key])
        }
    }

    func prune(before cutoff: Double, keep: Int) async throws -> Int {
        try await pool.write { db in
            try db.execute(sql: "DELETE FROM commandReceipt WHERE createdAt < ?", arguments: [cutoff])
            var dropped = db.changesCount
            let count = try Int.fetchOne(db, sql: "SELECT count(*) FROM commandReceipt") ?? 0
            if count > keep {
                try db.execute(
                    sql: """
                        DELETE FROM commandReceipt WHERE (caller, key) IN (
                            SELECT caller, key FROM commandReceipt ORDER BY createdAt LIMIT ?)
                        """,
                    arguments: [count - keep])
                dropped += db.changesCount
            }
            return dropped
        }
    }

    func count() async throws -> Int {
        try await pool.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM commandReceipt") ?? 0 }
    }
}
