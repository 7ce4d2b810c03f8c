import GRDB
import TunerStorage

/// The output profiles' tables in ``TunerDatabase`` or ``TunerPostgres``.
public enum OutputSchema: StateSchema {
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
        migrator.registerMigration("outputs-v5-user-disabled") { db in
            try db.execute(
                sql: """
                    -- A disabled Xtream login sees its account (status Disabled) and nothing else.
                    ALTER TABLE outputUser ADD COLUMN disabled INTEGER NOT NULL DEFAULT 0 CHECK (disabled IN (0, 1));
                    """)
        }
        migrator.registerMigration("outputs-v6-channel-edits") { db in
            try db.execute(
                sql: """
                    -- OutputChannelEdit by identity (groups, logos, disabled channels) as JSON, read whole.
                    ALTER TABLE outputProfile ADD COLUMN edits TEXT NOT NULL DEFAULT '{}' CHECK (json_valid(edits));
                    -- Logos uploaded for channels (ChannelLogo): in the state, so backups and every
                    -- node of a cluster have them.
                    CREATE TABLE outputLogo (
                        name TEXT PRIMARY KEY CHECK (length(name) BETWEEN 68 AND 69),
                        bytes BLOB NOT NULL CHECK (length(bytes) BETWEEN 1 AND 1048576),
                        createdAt REAL NOT NULL
                    ) WITHOUT ROWID;
                    """)
        }
    }
}

extension OutputSchema {
    /// The same tables on PostgreSQL, which starts at `outputs-v4-user-expiry`: the earlier
    /// versions make nothing there, the last one today's whole shape (columns in SQLite's order,
    /// so rows copy between the engines as they are). JSON columns stay text checked by a cast,
    /// read whole as in SQLite.
    public static let postgresMigrations = [
        PostgresMigration("outputs-v1", []),
        PostgresMigration("outputs-v2-users", []),
        PostgresMigration("outputs-v3-stream-profiles", []),
        PostgresMigration(
            "outputs-v4-user-expiry",
            [
                """
                CREATE TABLE outputProfile (
                    -- 1 to 32 of a-z, 0-9 and '-', not starting with '-' (SQLite's two GLOBs).
                    id TEXT PRIMARY KEY CHECK (id ~ '^[a-z0-9][a-z0-9-]{0,31}$'),
                    name TEXT NOT NULL,
                    selection TEXT NOT NULL CHECK ((selection::json) IS NOT NULL),
                    numbering TEXT NOT NULL CHECK ((numbering::json) IS NOT NULL),
                    renames TEXT NOT NULL DEFAULT '{}' CHECK ((renames::json) IS NOT NULL),
                    deviceID BIGINT NOT NULL UNIQUE,
                    accessKey TEXT NOT NULL,
                    streamLimit BIGINT NOT NULL DEFAULT 2 CHECK (streamLimit BETWEEN 1 AND 64),
                    createdAt DOUBLE PRECISION NOT NULL,
                    streamProfile TEXT NOT NULL DEFAULT 'direct'
                        CHECK (streamProfile IN ('direct', 'remux', 'transcode'))
                )
                """,
                """
                CREATE TABLE outputNumber (
                    profileID TEXT NOT NULL REFERENCES outputProfile(id) ON DELETE CASCADE,
                    kind TEXT NOT NULL,
                    identity TEXT NOT NULL,
                    number BIGINT NOT NULL CHECK (number BETWEEN 1 AND 999999),
                    PRIMARY KEY (profileID, kind, identity),
                    UNIQUE (profileID, number)
                )
                """,
                """
                CREATE TABLE outputUser (
                    username TEXT PRIMARY KEY CHECK (char_length(username) BETWEEN 1 AND 64),
                    passwordHash BYTEA NOT NULL,
                    salt BYTEA NOT NULL,
                    rounds BIGINT NOT NULL,
                    profileIDs TEXT NOT NULL CHECK ((profileIDs::json) IS NOT NULL),
                    maxConnections BIGINT NOT NULL DEFAULT 1 CHECK (maxConnections BETWEEN 1 AND 64),
                    createdAt DOUBLE PRECISION NOT NULL,
                    streamProfile TEXT NOT NULL DEFAULT 'direct'
                        CHECK (streamProfile IN ('direct', 'remux', 'transcode')),
                    expiresAt BIGINT CHECK (expiresAt IS NULL OR expiresAt BETWEEN 1 AND 253402300799)
                )
                """,
            ]),
        PostgresMigration(
            "outputs-v5-user-disabled",
            ["ALTER TABLE outputUser ADD COLUMN disabled BIGINT NOT NULL DEFAULT 0 CHECK (disabled IN (0, 1))"]),
        PostgresMigration(
            "outputs-v6-channel-edits",
            [
                """
                ALTER TABLE outputProfile ADD COLUMN edits TEXT NOT NULL DEFAULT '{}'
                    CHECK ((edits::json) IS NOT NULL)
                """,
                """
                CREATE TABLE outputLogo (
                    name TEXT PRIMARY KEY CHECK (char_length(name) BETWEEN 68 AND 69),
                    bytes BYTEA NOT NULL CHECK (octet_length(bytes) BETWEEN 1 AND 1048576),
                    createdAt DOUBLE PRECISION NOT NULL
                )
                """,
            ]),
    ]
}
