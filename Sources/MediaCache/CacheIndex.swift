import Foundation
import GRDB

/// A resource as the index remembers it.
struct StoredResource: Sendable {
    var key: String
    var url: String
    var finalURL: String?
    var meta: ResourceMeta
    var lastAccess: Date
    var pinned: Bool
    var spans: SpanSet
}

/// A recorded upstream failure, shown by the statistics.
public struct UpstreamErrorRecord: Sendable, Codable, Equatable {
    public var url: String
    public var status: Int
    public var message: String
    public var at: Date
}

/// The SQLite index of the cache: which resources exist, their validators, and the byte spans of
/// each that are synced to disk. It never claims bytes that are not durable: spans are written
/// only after the data file was synced.
final class CacheIndex: Sendable {
    let database: DatabasePool

    init(path: String) throws {
        var configuration = Configuration()
        configuration.foreignKeysEnabled = true
        configuration.busyMode = .timeout(5)
        database = try DatabasePool(path: path, configuration: configuration)
        try Self.migrator.migrate(database)
    }

    static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1") { db in
            try db.execute(
                sql: """
                    CREATE TABLE resource (
                        key TEXT PRIMARY KEY NOT NULL,
                        url TEXT NOT NULL,
                        finalURL TEXT,
                        length INTEGER NOT NULL CHECK (length >= 0),
                        etag TEXT,
                        lastModified TEXT,
                        contentType TEXT,
                        lastAccess REAL NOT NULL,
                        pinned INTEGER NOT NULL DEFAULT 0 CHECK (pinned IN (0, 1))
                    );
                    CREATE TABLE span (
                        key TEXT NOT NULL REFERENCES resource(key) ON DELETE CASCADE,
                        start INTEGER NOT NULL CHECK (start >= 0),
                        "end" INTEGER NOT NULL,
                        PRIMARY KEY (key, start),
                        CHECK ("end" > start)
                    ) WITHOUT ROWID;
                    CREATE TABLE counter (
                        name TEXT PRIMARY KEY NOT NULL,
                        value INTEGER NOT NULL
                    );
                    CREATE TABLE upstreamError (
                        url TEXT PRIMARY KEY NOT NULL,
                        status INTEGER NOT NULL,
                        message TEXT NOT NULL,
                        at REAL NOT NULL
                    );
                    """)
        }
        return migrator
    }

    func loadAll() throws -> [StoredResource] {
        try database.read { db in
            var spans: [String: SpanSet] = [:]
            for row in try Row.fetchAll(db, sql: "SELECT key, start, \"end\" FROM span") {
                let key: String = row[0]
                let start: Int64 = row[1]
                let end: Int64 = row[2]
                // A damaged index row must not trap the process; the bytes are simply fetched again.
                guard start >= 0, start < end else { continue }
                spans[key, default: SpanSet()].insert(start..<end)
            }
            return try Row.fetchAll(
                db,
                sql:
                    """
                    SELECT key, url, length, etag, lastModified, contentType, lastAccess, pinned, finalURL FROM \
                    resource
                    """
            ).map { row in
                let key: String = row[0]
                return StoredResource(
                    key: key, url: row[1], finalURL: row[8],
                    meta: ResourceMeta(length: row[2], etag: row[3], lastModified: row[4], contentType: row[5]),
                    lastAccess: Date(timeIntervalSince1970: row[6]), pinned: row[7],
                    spans: spans[key] ?? SpanSet()
                )
            }
        }
    }

    /// Records (or replaces) a resource's identity and validators. Replacing drops its spans,
    /// which is how a changed resource forgets its old bytes in the same transaction.
    func replaceResource(key: String, url: String, finalURL: String?, meta: ResourceMeta, keepSpans: Bool) async throws
    {
        try await database.write { db in
            if !keepSpans {
                try db.execute(sql: "DELETE FROM span WHERE key = ?", arguments: [key])
            }
            try db.execute(
                sql: """
                    INSERT INTO resource (key, url, finalURL, length, etag, lastModified, contentType, lastAccess,
                        pinned)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?, 0)
                    ON CONFLICT(key) DO UPDATE SET url = excluded.url, finalURL = excluded.finalURL, length =
                        excluded.length, etag = excluded.etag,
                        lastModified = excluded.lastModified, contentType = excluded.contentType, lastAccess =
                            excluded.lastAccess
                    """,
                arguments: [
                    key, url, finalURL, meta.length, meta.etag, meta.lastModified, meta.contentType,
                    Date().timeIntervalSince1970,
                ]
            )
        }
    }

    /// Replaces the durable spans of a resource, if the index still describes the version they
    /// belong to (`meta`): a new version's validators are written (with its spans dropped) before
    /// its first byte, so spans of the old one synced meanwhile must not be recorded under them,
    /// or after a crash the index would claim bytes the new data file does not hold. Returns
    /// whether they were saved. Synchronous on purpose: it must complete even when the fetch that
    /// synced the bytes is being cancelled.
    @discardableResult
    func saveSpans(key: String, spans: SpanSet, meta: ResourceMeta) throws -> Bool {
        try database.write { db in
            guard
                let row = try Row.fetchOne(
                    db, sql: "SELECT length, etag, lastModified FROM resource WHERE key = ?", arguments: [key]),
                row[0] as Int64 == meta.length, row[1] as String? == meta.etag, row[2] as String? == meta.lastModified
            else {
                return false
            }
            try db.execute(sql: "DELETE FROM span WHERE key = ?", arguments: [key])
            let statement = try db.cachedStatement(sql: "INSERT INTO span (key, start, \"end\") VALUES (?, ?, ?)")
            for range in spans.ranges {
                try statement.execute(arguments: [key, range.lowerBound, range.upperBound])
            }
            return true
        }
    }

    func deleteResources(_ keys: [String]) throws {
        try database.write { db in
            let statement = try db.cachedStatement(sql: "DELETE FROM resource WHERE key = ?")
            for key in keys { try statement.execute(arguments: [key]) }
        }
    }

    func setPinned(key: String, pinned: Bool) throws {
        try database.write { db in
            try db.execute(sql: "UPDATE resource SET pinned = ? WHERE key = ?", arguments: [pinned, key])
        }
    }

    func saveAccessTimes(_ times: [(String, Date)]) throws {
        guard !times.isEmpty else { return }
        try database.write { db in
            let statement = try db.cachedStatement(sql: "UPDATE resource SET lastAccess = ? WHERE key = ?")
            for (key, date) in times { try statement.execute(arguments: [date.timeIntervalSince1970, key]) }
        }
    }

    func loadCounters() throws -> [String: Int64] {
        try database.read { db in
            var result: [String: Int64] = [:]
            for row in try Row.fetchAll(db, sql: "SELECT name, value FROM counter") { result[row[0]] = row[1] }
            return result
        }
    }

    func saveCounters(_ counters: [String: Int64]) throws {
        try database.write { db in
            for (name, value) in counters {
                try db.execute(
                    sql:
                        """
                        INSERT INTO counter (name, value) VALUES (?, ?) ON CONFLICT(name) DO UPDATE SET value = \
                        excluded.value
                        """,
                    arguments: [name, value])
            }
        }
    }

    func recordError(_ record: UpstreamErrorRecord) throws {
        try database.write { db in
            try db.execute(
                sql:
                    """
                    INSERT INTO upstreamError (url, status, message, at) VALUES (?, ?, ?, ?) ON CONFLICT(url) DO \
                    UPDATE SET status = excluded.status, message = excluded.message, at = excluded.at
                    """,
                arguments: [record.url, record.status, record.message, record.at.timeIntervalSince1970])
            // Keep the table bounded: only the most recent failures are interesting.
            try db.execute(
                sql:
                    """
                    DELETE FROM upstreamError WHERE url NOT IN (SELECT url FROM upstreamError ORDER BY at DESC \
                    LIMIT 100)
                    """
            )
        }
    }

    func loadErrors() throws -> [UpstreamErrorRecord] {
        try database.read { db in
            try Row.fetchAll(db, sql: "SELECT url, status, message, at FROM upstreamError ORDER BY at DESC").map {
                UpstreamErrorRecord(url: $0[0], status: $0[1], message: $0[2], at: Date(timeIntervalSince1970: $0[3]))
            }
        }
    }

    func deleteAll() throws {
        try database.write { db in
            try db.execute(
                sql: "DELETE FROM span; DELETE FROM resource; DELETE FROM counter; DELETE FROM upstreamError;")
        }
    }
}
