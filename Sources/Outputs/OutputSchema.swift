import GRDB
import TunerStorage

/// The output profiles' tables in ``TunerDatabase``.
public enum OutputSchema: DatabaseSchema {
    public static func registerMigrations(in migrator: inout DatabaseMigrator) {
        migrator.registerMigration("outputs-v1") { db in
            try db.execute(
                sql: """
                    CREATE TABLE outputProfile (
                        -- A short name used in URLs (/output/<id>.m3u); never reused for another profile.
                        id TEXT PRIMARY KEY CHECK (id GLOB '[a-z0-9]*' AND id NOT GLOB '*[^a-z0-9-]*'
                            AND length(id) BETWEEN 1 AND 32),
                        name TEXT NOT NULL,
                        -- OutputSelection and OutputNumbering as JSON: read whole, never queried by field.
                        selection TEXT NOT NULL CHECK (json_valid(selection)),
                        numbering TEXT NOT NULL CHECK (json_valid(numbering)),
                        renames TEXT NOT NULL DEFAULT '{}' CHECK (json_valid(renames)),
                        -- HDHomeRun's DeviceID: fixed when the profile is made, so players keep it.
                        deviceID INTEGER NOT NULL UNIQUE,
                        -- The secret that opens this profile's outputs to other machines.
                        accessKey TEXT NOT NULL,
                        -- How many streams players may open at once (HDHomeRun TunerCount).
                        streamLimit INTEGER NOT NULL DEFAULT 2 CHECK (streamLimit BETWEEN 1 AND 64),
                        createdAt REAL NOT NULL
                    ) WITHOUT ROWID;
                    -- Numbers given to channels, by identity so they stay put across refreshes and
                    -- while a channel is away from the playlist for a while.
                    CREATE TABLE outputNumber (
                        profileID TEXT NOT NULL REFERENCES outputProfile(id) ON DELETE CASCADE,
                        kind TEXT NOT NULL,
                        identity TEXT NOT NULL,
                        number INTEGER NOT NULL CHECK (number BETWEEN 1 AND 999999),
                        PRIMARY KEY (profileID, kind, identity),
                        UNIQUE (profileID, number)
                    ) WITHOUT ROWID;
                    """)
        }
        migrator.registerMigration("outputs-v2-users") { db in
            try db.execute(
                sql: """
                    -- Logins for players that take only an Xtream Codes account. Separate from the
                    -- providers' accounts, whose credentials never leave Tuner.
                    CREATE TABLE outputUser (
                        username TEXT PRIMARY KEY CHECK (length(username) BETWEEN 1 AND 64),
                        -- PBKDF2-SHA256 of the password with this salt and round count.
                        passwordHash BLOB NOT NULL,
                        salt BLOB NOT NULL,
                        rounds INTEGER NOT NULL,
                        -- The profiles whose channels the login sees, in order (JSON array of ids).
                        profileIDs TEXT NOT NULL CHECK (json_valid(profileIDs)),
                        maxConnections INTEGER NOT NULL DEFAULT 1 CHECK (maxConnections BETWEEN 1 AND 64),
                        createdAt REAL NOT NULL
                    ) WITHOUT ROWID;
                    """)
        }
        migrator.registerMigration("outputs-v3-stream-profiles") { db in
            try db.execute(
                sql: """
                    -- How live channels reach a profile's or a login's players: direct, remux, transcode.
                    ALTER TABLE outputProfile ADD COLUMN streamProfile TEXT NOT NULL DEFAULT 'direct'
                        CHECK (streamProfile IN ('direct', 'remux', 'transcode'));
                    ALTER TABLE outputUser ADD COLUMN streamProfile TEXT NOT NULL DEFAULT 'direct'
                        CHECK (streamProfile IN ('direct', 'remux', 'transcode'));
                    """)
        }
        migrator.registerMigration("outputs-v4-user-expiry") { db in
            try db.execute(
                sql: """
                    -- When an Xtream login stops working (seconds since 1970); NULL: never.
                    ALTER TABLE outputUser ADD COLUMN expiresAt INTEGER
                        CHECK (expiresAt IS NULL OR expiresAt BETWEEN 1 AND 253402300799);
                    """)
        }
    }
}
