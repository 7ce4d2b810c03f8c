import Foundation
import GRDB
import MediaFormats
import TunerStorage

/// The embedded transfer store: table `transfer` in the data folder's ``TunerDatabase``
/// (`<data>/tuner.sqlite`, WAL), which the catalog shares.
public final class SQLiteTransferStore: TransferStore {
    let database: any DatabaseWriter

    /// The transfers in `database`, which must have been opened with ``TransferSchema``.
    public init(database: TunerDatabase) {
        self.database = database.writer
    }

    /// Opens (creating if needed) a database at `path` holding the transfers alone: for tools
    /// and apps that embed the transfer manager without the rest of Tuner.
    public convenience init(path: String) throws {
        self.init(database: try TunerDatabase(path: path, schemas: [TransferSchema.self]))
    }

    /// `loadAll()` without suspending, for synchronous composition roots.
    public func loadAllNow() throws -> [TransferTask] {
        try database.read { db in
            try Row.fetchAll(db, sql: "SELECT * FROM transfer ORDER BY id").map(Self.task(from:))
        }
    }

    public func loadAll() async throws -> [TransferTask] {
        try await database.read { db in
            try Row.fetchAll(db, sql: "SELECT * FROM transfer ORDER BY id").map(Self.task(from:))
        }
    }

    public func load(ids: [Int64]) async throws -> [TransferTask] {
        guard !ids.isEmpty else { return [] }
        return try await database.read { db in
            var tasks: [TransferTask] = []
            for chunk in Self.chunks(ids) {
                tasks += try Row.fetchAll(
                    db, sql: "SELECT * FROM transfer WHERE id IN (\(Self.placeholders(chunk.count)))",
                    arguments: StatementArguments(chunk)
                ).map(Self.task(from:))
            }
            return tasks
        }
    }

    public func insert(_ tasks: [TransferTask], claimingFor worker: String?, until expiry: Date) async throws
        -> [TransferTask]
    {
        let until = expiry.timeIntervalSince1970
        return try await database.write { db in
            var stored: [TransferTask] = []
            // One statement compiled once for the whole batch (and kept for the next).
            let statement = try db.cachedStatement(
                sql: """
                    INSERT INTO transfer (kind, sourceURL, headers, destinationName, priority, position, state,
                        committedBytes,
                        totalBytes, expectedSHA256, etag, lastModified, errorReason, errorClass, retryCount,
                            nextAttemptAt,
                        history, properties, createdAt, updatedAt, claimedBy, claimExpiresAt)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                    """)
            for var task in tasks {
                let claimed = task.state == .waiting ? worker : nil
                try statement.execute(arguments: try Self.arguments(task) + [claimed, claimed.map { _ in until }])
                task.id = db.lastInsertedRowID
                stored.append(task)
            }
            return stored
        }
    }

    public func update(_ tasks: [TransferTask], releasingClaims releasing: [Int64], by worker: String) async throws {
        guard !tasks.isEmpty || !releasing.isEmpty else { return }
        try await database.write { db in
            let statement = try db.cachedStatement(
                sql: """
                    UPDATE transfer SET kind = ?, sourceURL = ?, headers = ?, destinationName = ?, priority =
                        ?, position = ?,
                        state = ?, committedBytes = ?, totalBytes = ?, expectedSHA256 = ?, etag = ?,
                            lastModified = ?,
                        errorReason = ?, errorClass = ?, retryCount = ?, nextAttemptAt = ?, history = ?,
                            properties = ?,
                        createdAt = ?, updatedAt = ?
                    WHERE id = ?
                    """)
            for task in tasks {
                var arguments = try Self.arguments(task)
                arguments += [task.id]
                try statement.execute(arguments: arguments)
            }
            try Self.release(db, ids: releasing, by: worker)
        }
    }

    public func delete(ids: [Int64]) async throws {
        guard !ids.isEmpty else { return }
        try await database.write { db in
            for id in ids { try db.execute(sql: "DELETE FROM transfer WHERE id = ?", arguments: [id]) }
        }
    }

    // MARK: - Claims

    /// The condition under which `worker` may claim a row at `now` (arguments: worker, now).
    private static let claimable = """
        state IN ('waiting', 'active') AND (claimedBy IS NULL OR claimedBy = ? OR claimExpiresAt < ?)
        """

    // One writer: reading the claimable rows and claiming them in one write transaction is atomic.
    public func claim(ids: [Int64], by worker: String, until expiry: Date, now: Date) async throws -> [Int64] {
        guard !ids.isEmpty else { return [] }
        return try await database.write { db in
            var held: [Int64] = []
            for chunk in Self.chunks(ids) {
                let free = try Int64.fetchAll(
                    db,
                    sql:
                        "SELECT id FROM transfer WHERE id IN (\(Self.placeholders(chunk.count))) AND \(Self.claimable)",
                    arguments: StatementArguments(chunk) + [worker, now.timeIntervalSince1970])
                try Self.setClaims(db, ids: free, worker: worker, expiry: expiry)
                held += free
            }
            return held
        }
    }

    public func claimNext(limit: Int, by worker: String, until expiry: Date, now: Date) async throws -> [Int64] {
        guard limit > 0 else { return [] }
        return try await database.write { db in
            let seconds = now.timeIntervalSince1970
            let free = try Int64.fetchAll(
                db,
                sql: """
                    SELECT id FROM transfer
                    WHERE state = 'waiting' AND (nextAttemptAt IS NULL OR nextAttemptAt <= ?)
                        AND (claimedBy IS NULL OR claimExpiresAt < ?)
                    ORDER BY priority DESC, position, id LIMIT ?
                    """,
                arguments: [seconds, seconds, limit])
            try Self.setClaims(db, ids: free, worker: worker, expiry: expiry)
            return free
        }
    }

    public func renewClaims(by worker: String, until expiry: Date) async throws -> [Int64] {
        try await database.write { db in
            try db.execute(
                sql: "UPDATE transfer SET claimExpiresAt = ? WHERE claimedBy = ?",
                arguments: [expiry.timeIntervalSince1970, worker])
            return try Int64.fetchAll(db, sql: "SELECT id FROM transfer WHERE claimedBy = ?", arguments: [worker])
        }
    }

    public func releaseClaims(ids: [Int64], by worker: String) async throws {
        guard !ids.isEmpty else { return }
        try await database.write { db in try Self.release(db, ids: ids, by: worker) }
    }

    private static func setClaims(_ db: Database, ids: [Int64], worker: String, expiry: Date) throws {
        guard !ids.isEmpty else { return }
        try db.execute(
            sql: "UPDATE transfer SET claimedBy = ?, claimExpiresAt = ? WHERE id IN (\(placeholders(ids.count)))",
            arguments: [worker, expiry.timeIntervalSince1970] + StatementArguments(ids))
    }

    private static func release(_ db: Database, ids: [Int64], by worker: String) throws {
        for chunk in chunks(ids) {
            try db.execute(
                sql: """
                    UPDATE transfer SET claimedBy = NULL, claimExpiresAt = NULL
                    WHERE claimedBy = ? AND id IN (\(placeholders(chunk.count)))
                    """,
                arguments: [worker] + StatementArguments(chunk))
        }
    }

    /// Ids in groups that stay far below SQLite's limit of bound parameters.
    private static func chunks(_ ids: [Int64]) -> [ArraySlice<Int64>] {
        stride(from: 0, to: ids.count, by: 500).map { ids[$0..<min($0 + 500, ids.count)] }
    }

    private static func placeholders(_ count: Int) -> String {
        Array(repeating: "?", count: count).joined(separator: ", ")
    }

    // MARK: - Rows

    private static func arguments(_ task: TransferTask) throws -> StatementArguments {
        [
            task.kind.rawValue, task.sourceURL, try TransferRowText.headers(task),
            task.destinationName, task.priority,
            task.position,
            task.state.rawValue, task.committedBytes, task.totalBytes, task.expectedSHA256, task.etag,
            task.lastModified,
            task.errorReason, task.errorClass?.rawValue, task.retryCount, task.nextAttemptAt?.timeIntervalSince1970,
            try TransferRowText.history(task.history), try TransferRowText.properties(task),
            task.createdAt.timeIntervalSince1970,
            task.updatedAt.timeIntervalSince1970,
        ]
    }

    /// See ``TransferRowText/history(_:)``.
    static func historyJSON(_ history: [TransferHistoryEntry]) throws -> String {
        try TransferRowText.history(history)
    }

    private static func task(from row: Row) throws -> TransferTask {
        func decode<T: Decodable>(_ type: T.Type, _ column: String, default value: T) -> T {
            TransferRowText.decode(type, row[column] as String?, default: value)
        }
        let stateText: String = row["state"]
        let nextAttempt: Double? = row["nextAttemptAt"]
        let errorClassText: String? = row["errorClass"]
        return TransferTask(
            id: row["id"], kind: TransferKind(rawValue: row["kind"]), sourceURL: row["sourceURL"],
            headers: decode([TransferHeader].self, "headers", default: []), destinationName: row["destinationName"],
            priority: row["priority"], position: row["position"], state: TransferState(rawValue: stateText) ?? .error,
            committedBytes: row["committedBytes"], totalBytes: row["totalBytes"], expectedSHA256: row["expectedSHA256"],
            etag: row["etag"], lastModified: row["lastModified"], errorReason: row["errorReason"],
            errorClass: errorClassText.flatMap(TransferErrorClass.init(rawValue:)), retryCount: row["retryCount"],
            nextAttemptAt: nextAttempt.map(Date.init(timeIntervalSince1970:)),
            history: decode([TransferHistoryEntry].self, "history", default: []),
            properties: decode([String: String].self, "properties", default: [:]),
            createdAt: Date(timeIntervalSince1970: row["createdAt"]),
            updatedAt: Date(timeIntervalSince1970: row["updatedAt"]))
    }
}
