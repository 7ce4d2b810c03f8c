import GRDB
import TunerStorage

/// The transfer tables in ``TunerDatabase``.
public enum TransferSchema: DatabaseSchema {
    /// Every schema change, in order.
    public static func registerMigrations(in migrator: inout DatabaseMigrator) {
        migrator.registerMigration("transfers-v1") { db in
            try db.execute(
                sql: """
                    CREATE TABLE transfer (
                        id INTEGER PRIMARY KEY AUTOINCREMENT,
                        kind TEXT NOT NULL,
                        sourceURL TEXT NOT NULL,
                        headers TEXT NOT NULL DEFAULT '[]',
                        destinationName TEXT NOT NULL,
                        priority INTEGER NOT NULL DEFAULT 0,
                        position INTEGER NOT NULL,
                        state TEXT NOT NULL CHECK (state IN ('waiting', 'active', 'paused', 'error', 'complete',
                            'removed')),
                        committedBytes INTEGER NOT NULL DEFAULT 0 CHECK (committedBytes >= 0),
                        totalBytes INTEGER CHECK (totalBytes IS NULL OR totalBytes >= 0),
                        expectedSHA256 TEXT,
                        etag TEXT,
                        lastModified TEXT,
                        errorReason TEXT,
                        errorClass TEXT CHECK (errorClass IS NULL OR errorClass IN ('transient', 'permanent',
                            'needs-new-url')),
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
    }
}
