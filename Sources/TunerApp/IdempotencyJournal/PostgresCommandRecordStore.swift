import Foundation
import Logging
import PostgresNIO
import TunerStorage

/// The command journal's rows in PostgreSQL, which several nodes share. A claim is one
/// `INSERT … ON CONFLICT DO NOTHING RETURNING`: of two requests with one key at once, on one node
/// or two, exactly one inserts; the other waits for it to commit and then reads its row.
struct PostgresCommandRecordStore: CommandRecordStore {
    let database: TunerPostgres
    let logger: Logger

    func claim(key: String, fingerprint: String, caller: String, process: String, createdAt: Double) async throws
        -> CommandClaim
    {
        let logger = logger
        return try await database.read { connection in
            // A row that goes between the insert and the read (abandoned, pruned) makes the key
            // new again: try again, a few times at most.
            for _ in 0..<3 {
                let inserted = try await connection.query(
                    """
                    INSERT INTO commandReceipt (caller, key, fingerprint, process, state, createdAt)
                    VALUES (\(caller), \(key), \(fingerprint), \(process), 'pending', \(createdAt))
                    ON CONFLICT (caller, key) DO NOTHING RETURNING 1
                    """, logger: logger
                ).collect()
                if !inserted.isEmpty { return .run(CommandTicket(caller: caller, key: key)) }
                let rows = try await connection.query(
                    """
                    SELECT fingerprint, process, state, status, contentType, body FROM commandReceipt
                    WHERE caller = \(caller) AND key = \(key)
                    """, logger: logger)
                for try await (rowFingerprint, rowProcess, state, status, contentType, body) in rows.decode(
                    (String, String, String, Int64?, String?, Data?).self)
                {
                    return Self.answer(
                        fingerprint: fingerprint, process: process, row: (rowFingerprint, rowProcess, state),
                        status: status.map { Int(clamping: $0) }, contentType: contentType, body: body)
                }
            }
            // Taken and dropped over and over: as good as being applied right now.
            return .inProgress
        }
    }

    func finish(caller: String, key: String, receipt: CommandReceipt, body: Data) async throws {
        let logger = logger
        let status = Int64(receipt.status)
        let contentType = receipt.contentType
        try await database.read { connection in
            _ = try await connection.query(
                """
                UPDATE commandReceipt SET state = 'done', status = \(status), contentType = \(contentType),
                    body = \(body)
                WHERE caller = \(caller) AND key = \(key)
                """, logger: logger)
        }
    }

    func abandon(caller: String, key: String) async throws {
        let logger = logger
        try await database.read { connection in
            _ = try await connection.query(
                "DELETE FROM commandReceipt WHERE caller = \(caller) AND key = \(key) AND state = 'pending'",
                logger: logger)
        }
    }

    func prune(before cutoff: Double, keep: Int) async throws -> Int {
        let logger = logger
        let keep = Int64(keep)
        return try await database.write { connection in
            var dropped = try await connection.query(
                "DELETE FROM commandReceipt WHERE createdAt < \(cutoff) RETURNING 1", logger: logger
            ).collect().count
            var count: Int64 = 0
            for try await value in try await connection.query(
                "SELECT count(*) FROM commandReceipt", logger: logger
            ).decode(Int64.self) {
                count = value
            }
            if count > keep {
                dropped += try await connection.query(
                    """
                    DELETE FROM commandReceipt WHERE (caller, key) IN (
                        SELECT caller, key FROM commandReceipt ORDER BY createdAt LIMIT \(count - keep))
                    RETURNING 1
                    """, logger: logger
                ).collect().count
            }
            return dropped
        }
    }

    func count() async throws -> Int {
        let logger = logger
        return try await database.read { connection in
            var count: Int64 = 0
            for try await value in try await connection.query(
                "SELECT count(*) FROM commandReceipt", logger: logger
            ).decode(Int64.self) {
                count = value
            }
            return Int(clamping: count)
        }
    }
}
