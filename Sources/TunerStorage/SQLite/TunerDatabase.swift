import GRDB

/// The one SQLite database of a Tuner data folder (`<data>/tuner.sqlite`): one GRDB
/// `DatabasePool` (WAL), or a `DatabaseQueue` in memory for tests, and one migrator for every
/// module that keeps rows there.
///
/// In the manner of GRDB's `AppDatabase`: each module describes its tables as a
/// ``DatabaseSchema`` (its migrations and any per-connection setup), and the composition root
/// opens the file once with all of them. Catalog and transfers then share one writer queue, so
/// their writes wait for each other in order instead of racing for SQLite's lock with a busy
/// timeout. The media cache keeps its own index file, so it embeds without this module.
public final class TunerDatabase: Sendable {
    /// The writer every store of this database reads and writes through: a `DatabasePool` (WAL)
    /// for a file, a `DatabaseQueue` for ``inMemory(schemas:)``. Stores take `any DatabaseWriter`,
    /// so their tests can run on memory.
    public let writer: any DatabaseWriter
    /// Where the file is (`:memory:` for an in-memory database).
    public let path: String

    /// Opens (creating if needed) the database at `path` and applies every migration of
    /// `schemas`, in the order given.
    public convenience init(path: String, schemas: [any DatabaseSchema.Type]) throws {
        let configuration = Self.configuration(schemas: schemas)
        try self.init(writer: DatabasePool(path: path, configuration: configuration), path: path, schemas: schemas)
    }

    /// A database that lives in memory and ends with this object: the same schemas, migrations
    /// and per-connection setup as a file, for tests of stores and features.
    public static func inMemory(schemas: [any DatabaseSchema.Type]) throws -> TunerDatabase {
        let queue = try DatabaseQueue(configuration: configuration(schemas: schemas))
        return try TunerDatabase(writer: queue, path: ":memory:", schemas: schemas)
    }

    private init(writer: any DatabaseWriter, path: String, schemas: [any DatabaseSchema.Type]) throws {
        self.writer = writer
        self.path = path
        var migrator = DatabaseMigrator()
        for schema in schemas { schema.registerMigrations(in: &migrator) }
        try migrator.migrate(writer)
    }

    private static func configuration(schemas: [any DatabaseSchema.Type]) -> Configuration {
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
        return configuration
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

extension TunerDatabase {
    /// The identifiers of every migration `schemas` register: what this version of Tuner knows
    /// (a backup whose database has others was made by a newer one).
    public static func migrationIdentifiers(schemas: [any DatabaseSchema.Type]) -> [String] {
        var migrator = DatabaseMigrator()
        for schema in schemas { schema.registerMigrations(in: &migrator) }
        return migrator.migrations
    }
}
