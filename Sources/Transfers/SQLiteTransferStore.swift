import Foundation
import GRDB

/// The embedded transfer store: table `transfer` in `<data>/tuner.sqlite` (WAL), through its own
/// GRDB `DatabasePool` and migrator.
///
/// The catalog opens the same file with its own pool and migrator. That is safe: GRDB's
/// `DatabaseMigrator` records applied migrations by identifier in the shared `grdb_migrations`
/// table and ignores identifiers it does not know (only `eraseDatabaseOnSchemaChange`, which
/// neither store sets, would treat them as a schema change), so migrations named `transfers-…`
/// and `catalog-…` never collide; both pools set a busy timeout, so their write transactions
/// wait for each other instead of failing.
public final class SQLiteTransferStore: TransferStore {
    let database: DatabasePool

    /// Opens (creating if needed) the database at `path` and brings the transfer tables up to date.
    public init(path: String) throws {
        var configuration = Configuration()
        configuration.busyMode = .timeout(10)
        configuration.label = "transfers"
        configuration.prepareDatabase { db in
            // In WAL mode NORMAL syncs at checkpoints, not at every commit: a power cut can lose
            // the last commits, which only makes a committed offset older (never larger than the
            // synced bytes), and a killed process loses nothing.
            try db.execute(sql: "PRAGMA synchronous = NORMAL")
        }
        database = try DatabasePool(path: path, configuration: configuration)
        try Self.migrator.migrate(database)
    }

    static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("transfers-v1") { db in
            try db.execute(sql: """
                CREATE TABLE transfer (
                    id INTEGER PRIMARY KEY AUTOINCREMENT,
                    kind TEXT NOT NULL,
                    sourceURL TEXT NOT NULL,
                    headers TEXT NOT NULL DEFAULT '[]',
                    destinationName TEXT NOT NULL,
                    priority INTEGER NOT NULL DEFAULT 0,
                    position INTEGER NOT NULL,
                    state TEXT NOT NULL CHECK (state IN ('waiting', 'active', 'paused', 'error', 'complete', 'removed')),
                    committedBytes INTEGER NOT NULL DEFAULT 0 CHECK (committedBytes >= 0),
                    totalBytes INTEGER CHECK (totalBytes IS NULL OR totalBytes >= 0),
                    expectedSHA256 TEXT,
                    etag TEXT,
                    lastModified TEXT,
                    errorReason TEXT,
                    errorClass TEXT CHECK (errorClass IS NULL OR errorClass IN ('transient', 'permanent', 'needs-new-url')),
                    retryCount INTEGER NOT NULL DEFAULT 0,
                    nextAttemptAt DOUBLE,
                    history TEXT NOT NULL DEFAULT '[]',
                    properties TEXT NOT NULL DEFAULT '{}',
                    createdAt DOUBLE NOT NULL,
                    updatedAt DOUBLE NOT NULL
                )
                """)
            try db.execute(sql: "CREATE INDEX transfer_state ON transfer(state)")
        }
        return migrator
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

    public func insert(_ tasks: [TransferTask]) async throws -> [TransferTask] {
        try await database.write { db in
            var stored: [TransferTask] = []
            for var task in tasks {
                try db.execute(sql: """
                    INSERT INTO transfer (kind, sourceURL, headers, destinationName, priority, position, state, committedBytes,
                        totalBytes, expectedSHA256, etag, lastModified, errorReason, errorClass, retryCount, nextAttemptAt,
                        history, properties, createdAt, updatedAt)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                    """, arguments: try Self.arguments(task))
                task.id = db.lastInsertedRowID
                stored.append(task)
            }
            return stored
        }
    }

    public func update(_ tasks: [TransferTask]) async throws {
        guard !tasks.isEmpty else { return }
        try await database.write { db in
            for task in tasks {
                var arguments = try Self.arguments(task)
                arguments += [task.id]
                try db.execute(sql: """
                    UPDATE transfer SET kind = ?, sourceURL = ?, headers = ?, destinationName = ?, priority = ?, position = ?,
                        state = ?, committedBytes = ?, totalBytes = ?, expectedSHA256 = ?, etag = ?, lastModified = ?,
                        errorReason = ?, errorClass = ?, retryCount = ?, nextAttemptAt = ?, history = ?, properties = ?,
                        createdAt = ?, updatedAt = ?
                    WHERE id = ?
                    """, arguments: arguments)
            }
        }
    }

    public func delete(ids: [Int64]) async throws {
        guard !ids.isEmpty else { return }
        try await database.write { db in
            for id in ids { try db.execute(sql: "DELETE FROM transfer WHERE id = ?", arguments: [id]) }
        }
    }

    // MARK: - Rows

    private static let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .secondsSince1970
        encoder.outputFormatting = .sortedKeys
        return encoder
    }()

    private static let decoder: JSONDecoder = {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .secondsSince1970
        return decoder
    }()

    private static func json(_ value: some Encodable) throws -> String {
        String(decoding: try encoder.encode(value), as: UTF8.self)
    }

    private static func arguments(_ task: TransferTask) throws -> StatementArguments {
        [task.kind.rawValue, task.sourceURL, try json(task.headers), task.destinationName, task.priority, task.position,
         task.state.rawValue, task.committedBytes, task.totalBytes, task.expectedSHA256, task.etag, task.lastModified,
         task.errorReason, task.errorClass?.rawValue, task.retryCount, task.nextAttemptAt?.timeIntervalSince1970,
         try json(task.history), try json(task.properties), task.createdAt.timeIntervalSince1970, task.updatedAt.timeIntervalSince1970]
    }

    private static func task(from row: Row) throws -> TransferTask {
        func decode<T: Decodable>(_ type: T.Type, _ column: String, default value: T) -> T {
            guard let text: String = row[column] else { return value }
            return (try? decoder.decode(type, from: Data(text.utf8))) ?? value
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
            createdAt: Date(timeIntervalSince1970: row["createdAt"]), updatedAt: Date(timeIntervalSince1970: row["updatedAt"]))
    }
}
