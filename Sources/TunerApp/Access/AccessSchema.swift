import GRDB
import TunerStorage

/// API keys and browser sessions in ``TunerDatabase``. Secrets are stored as SHA-256 hashes
/// only: they are 256-bit random, so a plain hash cannot be reversed and needs no slow KDF.
public enum AccessSchema: DatabaseSchema {
    public static func registerMigrations(in migrator: inout DatabaseMigrator) {
        migrator.registerMigration("access-v1") { db in
            try db.execute(
                sql: """
                    CREATE TABLE apiKey (
                        id INTEGER PRIMARY KEY,
                        name TEXT NOT NULL CHECK (length(name) BETWEEN 1 AND 64),
                        scope TEXT NOT NULL CHECK (scope IN ('read', 'play', 'manage', 'admin')),
                        secretHash TEXT NOT NULL UNIQUE,
                        hint TEXT NOT NULL,
                        createdAt REAL NOT NULL,
                        lastUsedAt REAL
                    );
                    -- A signed-in browser: the cookie's hash, and the key it signed in with (NULL:
                    -- the owner's token). Removing the key signs its browsers out.
                    CREATE TABLE webSession (
                        secretHash TEXT PRIMARY KEY,
                        keyID INTEGER REFERENCES apiKey(id) ON DELETE CASCADE,
                        createdAt REAL NOT NULL,
                        expiresAt REAL NOT NULL
                    ) WITHOUT ROWID;
                    """)
        }
    }
}
