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

    public func insert(_ tasks: [TransferTask]) async throws -> [TransferTask] {
        try await database.write { db in
            var stored: [TransferTask] = []
            // One statement compiled once for the whole batch (and kept for the next).
            let statement = try db.cachedStatement(
                sql: """
                    INSERT INTO transfer (kind, sourceURL, headers, destinationName, priority, position, state,
                        committedBytes,
                        totalBytes, expectedSHA256, etag, lastModified, errorReason, errorClass, retryCount,
                            nextAttemptAt,
                        history, properties, createdAt, updatedAt)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                    """)
            for var task in tasks {
                try statement.execute(arguments: try Self.arguments(task))
                task.id = db.lastInsertedRowID
                stored.append(task)
            }
            return stored
        }
    }

    public func update(_ tasks: [TransferTask]) async throws {
        guard !tasks.isEmpty else { return }
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
        [
            task.kind.rawValue, task.sourceURL, task.headers.isEmpty ? "[]" : try json(task.headers),
            task.destinationName, task.priority,
            task.position,
            task.state.rawValue, task.committedBytes, task.totalBytes, task.expectedSHA256, task.etag,
            task.lastModified,
            task.errorReason, task.errorClass?.rawValue, task.retryCount, task.nextAttemptAt?.timeIntervalSince1970,
            try historyJSON(task.history), task.properties.isEmpty ? "{}" : try json(task.properties),
            task.createdAt.timeIntervalSince1970,
            task.updatedAt.timeIntervalSince1970,
        ]
    }

    /// The history as JSON that `JSONDecoder` (`secondsSince1970`) reads back, written by hand:
    /// every write of a task carries its whole history, and `JSONEncoder` was most of the cost
    /// of a write when 1,000 small downloads finish.
    static func historyJSON(_ history: [TransferHistoryEntry]) throws -> String {
        var text = "["
        for (index, entry) in history.enumerated() {
            let seconds = entry.at.timeIntervalSince1970
            // Not a JSON number: the encoder refuses it, as it always did.
            guard seconds.isFinite else { return try json(history) }
            if index > 0 { text += "," }
            text += "{\"at\":\(seconds),\"message\":"
            JSONString.append(entry.message, to: &text)
            text += "}"
        }
        return text + "]"
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
            createdAt: Date(timeIntervalSince1970: row["createdAt"]),
            updatedAt: Date(timeIntervalSince1970: row["updatedAt"]))
    }
}
