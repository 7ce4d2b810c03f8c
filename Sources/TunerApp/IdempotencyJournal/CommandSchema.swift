import GRDB
import TunerStorage

/// The command journal's table in ``TunerDatabase``: one row per idempotency key a client sent
/// with a state-changing request, so a resend after a timeout, a reconnect or a restart gets the
/// first answer instead of acting twice (see ``CommandJournal``). The same table in both engines,
/// versioned together.
public enum CommandSchema: DatabaseSchema, PostgresSchema {
    public static func registerMigrations(in migrator: inout DatabaseMigrator) {
        migrator.registerMigration("commands-v1") { db in
            try db.execute(
                sql: """
                    CREATE TABLE commandReceipt (
                        -- Who sent it (a key of one caller never answers another's request).
                        caller TEXT NOT NULL,
                        -- The client's Idempotency-Key.
                        key TEXT NOT NULL,
                        -- Method, path and query, and the body's SHA-256: a key is for one request.
                        fingerprint TEXT NOT NULL,
                        -- The server process that ran it: a pending row of another process was
                        -- interrupted by a stop, and its outcome is unknown.
                        process TEXT NOT NULL,
                        state TEXT NOT NULL CHECK (state IN ('pending', 'done')),
                        status INTEGER,
                        contentType TEXT,
                        body BLOB,
                        createdAt REAL NOT NULL,
                        PRIMARY KEY (caller, key)
                    ) WITHOUT ROWID;
                    CREATE INDEX commandReceiptByAge ON commandReceipt(createdAt);
                    """)
        }
    }

    /// The same table on PostgreSQL (`INTEGER` is `BIGINT`, `REAL` `DOUBLE PRECISION`, `BLOB` `BYTEA`).
    public static let postgresMigrations = [
        PostgresMigration(
            "commands-v1",
            [
                """
                CREATE TABLE commandReceipt (
                    caller TEXT NOT NULL,
                    key TEXT NOT NULL,
                    fingerprint TEXT NOT NULL,
                    process TEXT NOT NULL,
                    state TEXT NOT NULL CHECK (state IN ('pending', 'done')),
                    status BIGINT,
                    contentType TEXT,
                    body BYTEA,
                    createdAt DOUBLE PRECISION NOT NULL,
                    PRIMARY KEY (caller, key)
                )
                """,
                "CREATE INDEX commandReceiptByAge ON commandReceipt(createdAt)",
            ])
    ]
}
