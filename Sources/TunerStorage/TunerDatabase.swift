import GRDB

/// The one SQLite database of a Tuner data folder (`<data>/tuner.sqlite`): one GRDB
/// `DatabasePool` (WAL) and one migrator for every module that keeps rows there.
///
/// In the manner of GRDB's `AppDatabase`: each module describes its tables as a
/// ``DatabaseSchema`` (its migrations and any per-connection setup), and the composition root
/// opens the file once with all of them. Catalog and transfers then share one writer queue, so
/// their writes wait for each other in order instead of racing for SQLite's lock with a busy
/// timeout. The media cache keeps its own index file, so it embeds without this module.
public final class TunerDatabase: Sendable {
    /// The pool every store of this database reads and writes through.
    public let pool: DatabasePool
    /// Where the file is.
    public let path: String

    /// Opens (creating if needed) the database at `path` and applies every migration of
    /// `schemas`, in the order given.
    public init(path: String, schemas: [any DatabaseSchema.Type]) throws {
        var configuration = Configuration()
        configuration.foreignKeysEnabled = true
        // Readers and a writer of another process (the CLI beside a running server) wait for
        // each other rather than fail.
        configuration.busyMode = .timeout(10)
        configuration.label = "tuner"
        configuration.prepareDatabase { db in
            // In WAL mode NORMAL syncs at checkpoints, not at every commit: a power cut can lose
            // the last commits (a transfer's committed offset becomes older, never larger than
            // its synced bytes); a killed process loses nothing.
            try db.execute(sql: "PRAGMA synchronous = NORMAL")
            for schema in schemas { try schema.prepare(db) }
        }
        self.path = path
        pool = try DatabasePool(path: path, configuration: configuration)
        var migrator = DatabaseMigrator()
        for schema in schemas { schema.registerMigrations(in: &migrator) }
        try migrator.migrate(pool)
    }
}

/// A module's tables in ``TunerDatabase``: its migrations and what every connection needs.
///
/// Migration identifiers carry the module's prefix (`catalog-…`, `transfers-…`): they share one
/// `grdb_migrations` table.
public protocol DatabaseSchema: Sendable {
    /// Registers the module's migrations, oldest first.
    static func registerMigrations(in migrator: inout DatabaseMigrator)
    /// Per-connection setup (functions, virtual tables); nothing by default.
    static func prepare(_ db: Database) throws
}

extension DatabaseSchema {
    public static func prepare(_ db: Database) throws {}
}
