import GRDB
import TunerStorage

/// The cluster's tables: the nodes (a row each, its heartbeat and load), the secrets every node
/// signs with, which node holds each live channel's claim, and the live events of every node.
/// The same tables in both engines, versioned together; only PostgreSQL ever holds more than one
/// node (SQLite is one machine's).
public enum ClusterSchema: DatabaseSchema, PostgresSchema {
    public static func registerMigrations(in migrator: inout DatabaseMigrator) {
        migrator.registerMigration("cluster-v1") { db in
            try db.execute(
                sql: """
                    CREATE TABLE clusterNode (
                        nodeID TEXT PRIMARY KEY NOT NULL,
                        -- Where the other nodes reach it (--advertise).
                        advertise TEXT NOT NULL,
                        -- Seconds since 1970, by the database's clock (nodes' clocks may differ).
                        startedAt REAL NOT NULL,
                        heartbeatAt REAL NOT NULL,
                        -- Its load at the last heartbeat.
                        sessions INTEGER NOT NULL DEFAULT 0,
                        viewers INTEGER NOT NULL DEFAULT 0,
                        transfers INTEGER NOT NULL DEFAULT 0,
                        -- Output users' streams and profiles' channels (JSON), limits count them.
                        usage TEXT NOT NULL DEFAULT '{}'
                    );
                    CREATE TABLE clusterSecret (
                        name TEXT PRIMARY KEY NOT NULL,
                        value BLOB NOT NULL
                    );
                    CREATE TABLE liveClaim (
                        channelID INTEGER PRIMARY KEY NOT NULL,
                        nodeID TEXT NOT NULL,
                        -- The source (account) the holder's session reads now, if any.
                        sourceID INTEGER,
                        -- The holder's lock connection (its backend's process id): the row is
                        -- current only while that connection holds the channel's lock.
                        holderPID INTEGER,
                        since REAL NOT NULL
                    );
                    CREATE INDEX liveClaimBySource ON liveClaim(sourceID);
                    CREATE TABLE clusterEvent (
                        sequence INTEGER PRIMARY KEY AUTOINCREMENT,
                        nodeID TEXT NOT NULL,
                        -- Delivered by every node (transfers, imports, guide), else by its own only.
                        shared BOOLEAN NOT NULL,
                        topic TEXT NOT NULL,
                        type TEXT NOT NULL,
                        key TEXT,
                        data BLOB NOT NULL,
                        at REAL NOT NULL
                    );
                    """)
        }
    }

    public static let postgresMigrations = [
        PostgresMigration(
            "cluster-v1",
            [
                """
                CREATE TABLE clusterNode (
                    nodeID TEXT PRIMARY KEY NOT NULL,
                    advertise TEXT NOT NULL,
                    startedAt DOUBLE PRECISION NOT NULL,
                    heartbeatAt DOUBLE PRECISION NOT NULL,
                    sessions BIGINT NOT NULL DEFAULT 0,
                    viewers BIGINT NOT NULL DEFAULT 0,
                    transfers BIGINT NOT NULL DEFAULT 0,
                    usage TEXT NOT NULL DEFAULT '{}'
                )
                """,
                "CREATE TABLE clusterSecret (name TEXT PRIMARY KEY NOT NULL, value BYTEA NOT NULL)",
                """
                CREATE TABLE liveClaim (
                    channelID BIGINT PRIMARY KEY NOT NULL,
                    nodeID TEXT NOT NULL,
                    sourceID BIGINT,
                    holderPID BIGINT,
                    since DOUBLE PRECISION NOT NULL
                )
                """,
                "CREATE INDEX liveClaimBySource ON liveClaim(sourceID)",
                """
                CREATE TABLE clusterEvent (
                    sequence BIGSERIAL PRIMARY KEY,
                    nodeID TEXT NOT NULL,
                    shared BOOLEAN NOT NULL,
                    topic TEXT NOT NULL,
                    type TEXT NOT NULL,
                    key TEXT,
                    data BYTEA NOT NULL,
                    at DOUBLE PRECISION NOT NULL
                )
                """,
            ])
    ]
}
