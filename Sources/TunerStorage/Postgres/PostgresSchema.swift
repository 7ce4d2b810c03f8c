import Logging
import PostgresNIO

/// A module's tables in a ``TunerPostgres``: its migrations, oldest first.
///
/// Versioned with the SQLite schema: a module's PostgreSQL migrations carry the same identifiers as
/// its GRDB ones (`catalog-v1`, `transfers-v1`, …), in the same order, so one version names the
/// same tables in both engines (`MigrationParityTests` holds the two lists equal).
public protocol PostgresSchema: Sendable {
    static var postgresMigrations: [PostgresMigration] { get }
}

/// One schema change on PostgreSQL: its identifier (the GRDB migration's) and its statements.
public struct PostgresMigration: Sendable {
    public let identifier: String
    public let statements: [String]

    public init(_ identifier: String, _ statements: [String]) {
        self.identifier = identifier
        self.statements = statements
    }
}

/// Applies every schema's migrations that a database lacks, each in its own transaction, under an
/// advisory lock so that nodes starting together migrate one after the other.
struct PostgresMigrator {
    let schemas: [any PostgresSchema.Type]

    /// The advisory lock's key (any constant that no other lock of Tuner's uses).
    static let lockKey: Int64 = 0x7475_6E65_726D_6967

    func migrate(_ database: TunerPostgres) async throws {
        let migrations = schemas.flatMap { $0.postgresMigrations }
        let logger = database.logger
        try await database.write { connection in
            // Transaction-scoped: released at commit, also if this node dies midway.
            try await connection.query("SELECT pg_advisory_xact_lock(\(Self.lockKey))", logger: logger)
            try await connection.query(
                """
                CREATE TABLE IF NOT EXISTS tuner_migrations (
                    identifier TEXT PRIMARY KEY, applied_at TIMESTAMPTZ NOT NULL DEFAULT now())
                """, logger: logger)
            var applied = Set<String>()
            for try await identifier in try await connection.query(
                "SELECT identifier FROM tuner_migrations", logger: logger
            ).decode(String.self) {
                applied.insert(identifier)
            }
            for migration in migrations where !applied.contains(migration.identifier) {
                for statement in migration.statements {
                    try await connection.query(PostgresQuery(unsafeSQL: statement), logger: logger)
                }
                try await connection.query(
                    "INSERT INTO tuner_migrations (identifier) VALUES (\(migration.identifier))", logger: logger)
                logger.info("Applied a database migration", metadata: ["migration": "\(migration.identifier)"])
            }
        }
    }
}
