import Foundation
import Logging
import PostgresNIO
import TunerStorage

/// The transfer queue in PostgreSQL (table `transfer`, ``TransferSchema``), which several nodes
/// share: claims are taken under row locks (an `UPDATE`'s, and `FOR UPDATE SKIP LOCKED` for
/// ``claimNext(limit:by:until:now:)``), so two workers never hold one task.
///
/// Kept lean for many small downloads: a batch of changes is one multi-row `UPDATE … FROM
/// (VALUES …)` (releasing the claims of ended runs in the same statement), a claim is one
/// statement, and a single statement runs without `BEGIN`/`COMMIT` round trips (it is atomic
/// by itself); only several statements open a transaction.
public final class PostgresTransferStore: TransferStore {
    let database: TunerPostgres
    let logger: Logger

    /// The transfers in `database`, which must have been opened with ``TransferSchema``.
    public init(database: TunerPostgres, logger: Logger) {
        self.database = database
        self.logger = logger
    }

    /// Rows per statement: at most 23 parameters each stays under PostgreSQL's 65,535.
    static let rowsPerStatement = 1000

    /// The stored columns besides `id`, in the order of ``bind(_:to:)``, with their types.
    private static let columns: [(name: String, type: String)] = [
        ("kind", "text"), ("sourceURL", "text"), ("headers", "text"), ("destinationName", "text"),
        ("priority", "bigint"), ("position", "bigint"), ("state", "text"), ("committedBytes", "bigint"),
        ("totalBytes", "bigint"), ("expectedSHA256", "text"), ("etag", "text"), ("lastModified", "text"),
        ("errorReason", "text"), ("errorClass", "text"), ("retryCount", "bigint"),
        ("nextAttemptAt", "double precision"), ("history", "text"), ("properties", "text"),
        ("createdAt", "double precision"), ("updatedAt", "double precision"),
    ]

    private static let selectColumns = "id, " + columns.map(\.name).joined(separator: ", ")

    public func loadAll() async throws -> [TransferTask] {
        let logger = logger
        return try await database.read { connection in
            try await Self.tasks(
                connection.query(
                    PostgresQuery(unsafeSQL: "SELECT \(Self.selectColumns) FROM transfer ORDER BY id"),
                    logger: logger))
        }
    }

    public func load(ids: [Int64]) async throws -> [TransferTask] {
        guard !ids.isEmpty else { return [] }
        let logger = logger
        return try await database.read { connection in
            var binds = PostgresBindings()
            binds.append(ids)
            return try await Self.tasks(
                connection.query(
                    PostgresQuery(
                        unsafeSQL: "SELECT \(Self.selectColumns) FROM transfer WHERE id = ANY($1) ORDER BY id",
                        binds: binds),
                    logger: logger))
        }
    }

    public func insert(_ tasks: [TransferTask], claimingFor worker: String?, until expiry: Date) async throws
        -> [TransferTask]
    {
        guard !tasks.isEmpty else { return [] }
        let logger = logger
        let until = expiry.timeIntervalSince1970
        let rows = try tasks.map { task in try Self.bindings(task) }
        return try await database.write { connection in
            // Ids drawn first, so each task knows its own whatever order RETURNING would use;
            // ascending, so the queue's tie-break on id follows the order of `tasks`.
            var ids: [Int64] = []
            for try await id in try await connection.query(
                "SELECT nextval(pg_get_serial_sequence('transfer', 'id')) FROM generate_series(1, \(tasks.count))",
                logger: logger
            ).decode(Int64.self) {
                ids.append(id)
            }
            ids.sort()
            guard ids.count == tasks.count else { throw PostgresTransferStoreError.idsNotDrawn }
            for start in stride(from: 0, to: tasks.count, by: Self.rowsPerStatement) {
                let end = min(start + Self.rowsPerStatement, tasks.count)
                var binds = PostgresBindings(capacity: (end - start) * (Self.columns.count + 3))
                var values: [String] = []
                for index in start..<end {
                    values.append(Self.placeholders(from: binds.count + 1, extra: ["text", "double precision"]))
                    binds.append(ids[index])
                    Self.append(rows[index], to: &binds)
                    // The claim of a waiting task rides with its row (see `TransferStore.insert`).
                    let claimed = tasks[index].state == .waiting ? worker : nil
                    binds.append(claimed)
                    binds.append(claimed.map { _ in until })
                }
                let sql =
                    "INSERT INTO transfer (\(Self.selectColumns), claimedBy, claimExpiresAt) VALUES "
                    + values.joined(separator: ", ")
                try await connection.query(PostgresQuery(unsafeSQL: sql, binds: binds), logger: logger)
            }
            return zip(tasks, ids).map { task, id in
                var stored = task
                stored.id = id
                return stored
            }
        }
    }

    public func update(_ tasks: [TransferTask], releasingClaims releasing: [Int64], by worker: String) async throws {
        // The newest of each id (a row must not be updated twice in one statement).
        var newest: [Int64: TransferTask] = [:]
        for task in tasks { newest[task.id] = task }
        let ordered = newest.values.sorted { $0.id < $1.id }
        let releasedIDs = Set(releasing)
        var statements: [PostgresQuery] = []
        for start in stride(from: 0, to: ordered.count, by: Self.rowsPerStatement) {
            let slice = ordered[start..<min(start + Self.rowsPerStatement, ordered.count)]
            statements.append(try Self.updateStatement(slice, releasing: releasedIDs, worker: worker))
        }
        // Claims of tasks that are not written (a run stopped by a shutdown).
        let releaseOnly = releasedIDs.subtracting(newest.keys).sorted()
        if !releaseOnly.isEmpty { statements.append(Self.releaseStatement(releaseOnly, worker: worker)) }
        try await run(statements)
    }

    public func delete(ids: [Int64]) async throws {
        guard !ids.isEmpty else { return }
        let logger = logger
        try await database.read { connection in
            _ = try await connection.query("DELETE FROM transfer WHERE id = ANY(\(ids))", logger: logger)
        }
    }

    // MARK: - Claims

    public func claim(ids: [Int64], by worker: String, until expiry: Date, now: Date) async throws -> [Int64] {
        guard !ids.isEmpty else { return [] }
        let logger = logger
        let (ids, until, now) = (ids.sorted(), expiry.timeIntervalSince1970, now.timeIntervalSince1970)
        // An UPDATE waits for a worker claiming the same row right now, then checks its
        // condition again on the row as that worker left it (READ COMMITTED's re-check): one of
        // them gets it. Both visit rows in one order (the primary key's, or the table's), so two
        // claims of several rows do not deadlock.
        return try await database.read { connection in
            try await connection.query(
                """
                UPDATE transfer SET claimedBy = \(worker), claimExpiresAt = \(until)
                WHERE id = ANY(\(ids)) AND state IN ('waiting', 'active')
                    AND (claimedBy IS NULL OR claimedBy = \(worker) OR claimExpiresAt < \(now))
                RETURNING id
                """, logger: logger
            ).ids()
        }
    }

    public func claimNext(limit: Int, by worker: String, until expiry: Date, now: Date) async throws -> [Int64] {
        guard limit > 0 else { return [] }
        let logger = logger
        let (until, now, count) = (expiry.timeIntervalSince1970, now.timeIntervalSince1970, Int64(limit))
        // The queue: rows another worker is claiming at this moment are skipped, not waited for.
        let claimed = try await database.read { connection in
            var claimed: [(id: Int64, priority: Int64, position: Int64)] = []
            for try await row in try await connection.query(
                """
                UPDATE transfer SET claimedBy = \(worker), claimExpiresAt = \(until)
                WHERE id IN (
                    SELECT id FROM transfer
                    WHERE state = 'waiting' AND (nextAttemptAt IS NULL OR nextAttemptAt <= \(now))
                        AND (claimedBy IS NULL OR claimExpiresAt < \(now))
                    ORDER BY priority DESC, position, id LIMIT \(count) FOR UPDATE SKIP LOCKED)
                RETURNING id, priority, position
                """, logger: logger
            ).decode((Int64, Int64, Int64).self) {
                claimed.append(row)
            }
            return claimed
        }
        // RETURNING keeps no order: the queue's again (higher priority, then lower position).
        return claimed.sorted { a, b in
            if a.priority != b.priority { return a.priority > b.priority }
            return (a.position, a.id) < (b.position, b.id)
        }.map(\.id)
    }

    public func renewClaims(by worker: String, until expiry: Date) async throws -> [Int64] {
        let logger = logger
        let until = expiry.timeIntervalSince1970
        return try await database.read { connection in
            try await connection.query(
                "UPDATE transfer SET claimExpiresAt = \(until) WHERE claimedBy = \(worker) RETURNING id",
                logger: logger
            ).ids()
        }
    }

    public func releaseClaims(ids: [Int64], by worker: String) async throws {
        guard !ids.isEmpty else { return }
        try await run([Self.releaseStatement(ids, worker: worker)])
    }

    // MARK: - Statements

    /// One statement alone (atomic by itself), several in one transaction.
    private func run(_ statements: [PostgresQuery]) async throws {
        let logger = logger
        switch statements.count {
        case 0:
            return
        case 1:
            try await database.read { connection in
                _ = try await connection.query(statements[0], logger: logger)
            }
        default:
            try await database.write { connection in
                for statement in statements { _ = try await connection.query(statement, logger: logger) }
            }
        }
    }

    private static func releaseStatement(_ ids: [Int64], worker: String) -> PostgresQuery {
        """
        UPDATE transfer SET claimedBy = NULL, claimExpiresAt = NULL
        WHERE claimedBy = \(worker) AND id = ANY(\(ids))
        """
    }

    /// `UPDATE … FROM (VALUES …)` of `tasks`, clearing `worker`'s claims on those in `releasing`.
    private static func updateStatement(
        _ tasks: ArraySlice<TransferTask>, releasing: Set<Int64>, worker: String
    ) throws -> PostgresQuery {
        var binds = PostgresBindings(capacity: 1 + tasks.count * (columns.count + 2))
        binds.append(worker)
        var values: [String] = []
        for task in tasks {
            values.append(placeholders(from: binds.count + 1, extra: ["boolean"]))
            binds.append(task.id)
            append(try bindings(task), to: &binds)
            binds.append(releasing.contains(task.id))
        }
        let assignments = columns.map { "\($0.name) = v.\($0.name)" }.joined(separator: ", ")
        let released = "v.release AND t.claimedBy = $1"
        let sql = """
            UPDATE transfer AS t SET \(assignments),
                claimedBy = CASE WHEN \(released) THEN NULL ELSE t.claimedBy END,
                claimExpiresAt = CASE WHEN \(released) THEN NULL ELSE t.claimExpiresAt END
            FROM (VALUES \(values.joined(separator: ", "))) AS v(\(selectColumns), release)
            WHERE t.id = v.id
            """
        return PostgresQuery(unsafeSQL: sql, binds: binds)
    }

    /// `($n::bigint, $n+1::text, …)` for one row: the id, the columns, then `extra` types.
    private static func placeholders(from first: Int, extra: [String]) -> String {
        let types = ["bigint"] + columns.map(\.type) + extra
        return "("
            + types.enumerated().map { offset, type in "$\(first + offset)::\(type)" }.joined(separator: ", ") + ")"
    }

    // MARK: - Rows

    /// A task's column values (besides `id`), in the order of ``columns``.
    private struct RowValues {
        var texts: (kind: String, sourceURL: String, headers: String, destinationName: String)
        var priority: Int64
        var position: Int64
        var state: String
        var committedBytes: Int64
        var totalBytes: Int64?
        var strings: (sha: String?, etag: String?, lastModified: String?, reason: String?, errorClass: String?)
        var retryCount: Int64
        var nextAttemptAt: Double?
        var history: String
        var properties: String
        var createdAt: Double
        var updatedAt: Double
    }

    private static func bindings(_ task: TransferTask) throws -> RowValues {
        RowValues(
            texts: (task.kind.rawValue, task.sourceURL, try TransferRowText.headers(task), task.destinationName),
            priority: Int64(task.priority), position: task.position, state: task.state.rawValue,
            committedBytes: task.committedBytes, totalBytes: task.totalBytes,
            strings: (task.expectedSHA256, task.etag, task.lastModified, task.errorReason, task.errorClass?.rawValue),
            retryCount: Int64(task.retryCount), nextAttemptAt: task.nextAttemptAt?.timeIntervalSince1970,
            history: try TransferRowText.history(task.history), properties: try TransferRowText.properties(task),
            createdAt: task.createdAt.timeIntervalSince1970, updatedAt: task.updatedAt.timeIntervalSince1970)
    }

    private static func append(_ row: RowValues, to binds: inout PostgresBindings) {
        binds.append(row.texts.kind)
        binds.append(row.texts.sourceURL)
        binds.append(row.texts.headers)
        binds.append(row.texts.destinationName)
        binds.append(row.priority)
        binds.append(row.position)
        binds.append(row.state)
        binds.append(row.committedBytes)
        binds.append(row.totalBytes)
        binds.append(row.strings.sha)
        binds.append(row.strings.etag)
        binds.append(row.strings.lastModified)
        binds.append(row.strings.reason)
        binds.append(row.strings.errorClass)
        binds.append(row.retryCount)
        binds.append(row.nextAttemptAt)
        binds.append(row.history)
        binds.append(row.properties)
        binds.append(row.createdAt)
        binds.append(row.updatedAt)
    }

    private static func tasks(_ rows: PostgresRowSequence) async throws -> [TransferTask] {
        var tasks: [TransferTask] = []
        for try await row in rows {
            let cells = row.makeRandomAccess()
            let id = try cells[0].decode(Int64.self, context: .default)
            let kind = try cells[1].decode(String.self, context: .default)
            let sourceURL = try cells[2].decode(String.self, context: .default)
            let headers = try cells[3].decode(String.self, context: .default)
            let destinationName = try cells[4].decode(String.self, context: .default)
            let priority = try cells[5].decode(Int64.self, context: .default)
            let position = try cells[6].decode(Int64.self, context: .default)
            let state = try cells[7].decode(String.self, context: .default)
            let committedBytes = try cells[8].decode(Int64.self, context: .default)
            let totalBytes = try cells[9].decode(Int64?.self, context: .default)
            let sha = try cells[10].decode(String?.self, context: .default)
            let etag = try cells[11].decode(String?.self, context: .default)
            let lastModified = try cells[12].decode(String?.self, context: .default)
            let reason = try cells[13].decode(String?.self, context: .default)
            let errorClass = try cells[14].decode(String?.self, context: .default)
            let retryCount = try cells[15].decode(Int64.self, context: .default)
            let nextAttemptAt = try cells[16].decode(Double?.self, context: .default)
            let history = try cells[17].decode(String.self, context: .default)
            let properties = try cells[18].decode(String.self, context: .default)
            let createdAt = try cells[19].decode(Double.self, context: .default)
            let updatedAt = try cells[20].decode(Double.self, context: .default)
            tasks.append(
                TransferTask(
                    id: id, kind: TransferKind(rawValue: kind), sourceURL: sourceURL,
                    headers: TransferRowText.decode([TransferHeader].self, headers, default: []),
                    destinationName: destinationName, priority: Int(clamping: priority), position: position,
                    state: TransferState(rawValue: state) ?? .error, committedBytes: committedBytes,
                    totalBytes: totalBytes, expectedSHA256: sha, etag: etag, lastModified: lastModified,
                    errorReason: reason, errorClass: errorClass.flatMap(TransferErrorClass.init(rawValue:)),
                    retryCount: Int(clamping: retryCount),
                    nextAttemptAt: nextAttemptAt.map(Date.init(timeIntervalSince1970:)),
                    history: TransferRowText.decode([TransferHistoryEntry].self, history, default: []),
                    properties: TransferRowText.decode([String: String].self, properties, default: [:]),
                    createdAt: Date(timeIntervalSince1970: createdAt), updatedAt: Date(timeIntervalSince1970: updatedAt)
                ))
        }
        return tasks
    }
}

extension PostgresRowSequence {
    /// The rows' one `BIGINT` column, ascending.
    fileprivate func ids() async throws -> [Int64] {
        var ids: [Int64] = []
        for try await id in decode(Int64.self) { ids.append(id) }
        return ids.sorted()
    }
}

/// The PostgreSQL store could not do what was asked.
enum PostgresTransferStoreError: Error, CustomStringConvertible {
    case idsNotDrawn

    var description: String {
        switch self {
        case .idsNotDrawn: "PostgreSQL drew fewer ids than tasks to add; add them again"
        }
    }
}
