import Foundation
import LiveTV
import Logging
import PostgresNIO
import TunerStorage

/// The cluster's rows in PostgreSQL: the nodes and their heartbeats, the secrets every node signs
/// with, and the live claims. Times are the database's (`now()`), so nodes whose clocks differ
/// still agree on who is alive.
struct ClusterStore: Sendable {
    let database: TunerPostgres
    let logger: Logger

    /// A node's row: inserted at its first heartbeat, updated at every other. Returns the usage
    /// of the other nodes alive (heartbeat within `timeout`), summed.
    func heartbeat(nodeID: String, advertise: String, load: ClusterNodeLoad, timeout: Double) async throws -> LiveUsage
    {
        let logger = logger
        let (sessions, viewers, transfers) = (Int64(load.sessions), Int64(load.viewers), Int64(load.transfers))
        let usage = String(decoding: (try? JSONEncoder().encode(load.usage)) ?? Data("{}".utf8), as: UTF8.self)
        return try await database.read { connection in
            _ = try await connection.query(
                """
                INSERT INTO clusterNode (nodeID, advertise, startedAt, heartbeatAt, sessions, viewers, transfers, usage)
                VALUES (\(nodeID), \(advertise), extract(epoch FROM now()), extract(epoch FROM now()),
                    \(sessions), \(viewers), \(transfers), \(usage))
                ON CONFLICT (nodeID) DO UPDATE SET advertise = excluded.advertise,
                    heartbeatAt = excluded.heartbeatAt, sessions = excluded.sessions,
                    viewers = excluded.viewers, transfers = excluded.transfers, usage = excluded.usage
                """, logger: logger)
            var total = LiveUsage()
            for try await text in try await connection.query(
                """
                SELECT usage FROM clusterNode
                WHERE nodeID <> \(nodeID) AND heartbeatAt >= extract(epoch FROM now()) - \(timeout)
                """, logger: logger
            ).decode(String.self) {
                // A row a newer version wrote in another shape counts as nothing, not as an error.
                if let other = try? JSONDecoder().decode(LiveUsage.self, from: Data(text.utf8)) {
                    total = total.adding(other)
                }
            }
            return total
        }
    }

    /// A node that starts again under the same name starts its row again too.
    func join(nodeID: String, advertise: String) async throws {
        let logger = logger
        try await database.read { connection in
            _ = try await connection.query(
                """
                INSERT INTO clusterNode (nodeID, advertise, startedAt, heartbeatAt)
                VALUES (\(nodeID), \(advertise), extract(epoch FROM now()), extract(epoch FROM now()))
                ON CONFLICT (nodeID) DO UPDATE SET advertise = excluded.advertise,
                    startedAt = excluded.startedAt, heartbeatAt = excluded.heartbeatAt,
                    sessions = 0, viewers = 0, transfers = 0
                """, logger: logger)
        }
    }

    /// Removes a node's row (it stops).
    func leave(nodeID: String) async throws {
        let logger = logger
        try await database.read { connection in
            _ = try await connection.query("DELETE FROM clusterNode WHERE nodeID = \(nodeID)", logger: logger)
        }
    }

    /// The nodes whose last heartbeat is at most `timeout` seconds old, by name, with the channels
    /// each holds a live claim of (a claim counts while its holder's lock is held).
    func nodes(timeout: Double) async throws -> [ClusterNodeInfo] {
        let logger = logger
        return try await database.read { connection in
            var nodes: [ClusterNodeInfo] = []
            for try await (id, advertise, started, seen, sessions, viewers, transfers, age)
                in try await connection.query(
                    """
                    SELECT nodeID, advertise, startedAt, heartbeatAt, sessions, viewers, transfers,
                        extract(epoch FROM now()) - heartbeatAt
                    FROM clusterNode WHERE heartbeatAt >= extract(epoch FROM now()) - \(timeout) ORDER BY nodeID
                    """, logger: logger
                ).decode((String, String, Double, Double, Int64, Int64, Int64, Double).self)
            {
                nodes.append(
                    ClusterNodeInfo(
                        id: id, advertise: advertise, startedAt: Date(timeIntervalSince1970: started),
                        lastHeartbeat: Date(timeIntervalSince1970: seen), secondsSinceHeartbeat: max(0, age),
                        load: ClusterNodeLoad(
                            sessions: Int(clamping: sessions), viewers: Int(clamping: viewers),
                            transfers: Int(clamping: transfers)),
                        channels: []))
            }
            var channels: [String: [Int64]] = [:]
            for try await (channelID, nodeID) in try await connection.query(
                """
                SELECT c.channelID, c.nodeID FROM liveClaim c
                WHERE \(unescaped: Self.claimHeld("c")) ORDER BY c.channelID
                """, logger: logger
            ).decode((Int64, String).self) {
                channels[nodeID, default: []].append(channelID)
            }
            return nodes.map { node in
                var node = node
                node.channels = channels[node.id] ?? []
                return node
            }
        }
    }

    /// The secret `name`, made of `seed` (or `length` random bytes) by the first node that asks:
    /// every node signs with the same one.
    func secret(_ name: String, seed: [UInt8]?, length: Int) async throws -> [UInt8] {
        let logger = logger
        let initial: [UInt8] = seed ?? (0..<length).map { _ in UInt8.random(in: 0...255) }
        let value = Data(initial)
        return try await database.read { connection in
            _ = try await connection.query(
                "INSERT INTO clusterSecret (name, value) VALUES (\(name), \(value)) ON CONFLICT (name) DO NOTHING",
                logger: logger)
            for try await stored in try await connection.query(
                "SELECT value FROM clusterSecret WHERE name = \(name)", logger: logger
            ).decode(Data.self) {
                return [UInt8](stored)
            }
            throw FeatureError(.failed, "the cluster's secret \(name) could not be read back")
        }
    }

    // MARK: - Live claims

    /// The advisory-lock namespace of live claims (`pg_advisory_lock(namespace, channel)`):
    /// "TUNL" as a number, used by nothing else.
    static let claimNamespace: Int32 = 0x5455_4E4C
    /// The transaction lock that orders the event log's writers (one key of its own).
    static let eventsLock: Int64 = 0x7475_6E65_7265_7674
    /// Leases of one node at a time ("TUNR"): key 1 is the scheduled refreshes'.
    static let leaseNamespace: Int32 = 0x5455_4E52
    /// The transaction lock that orders the counting of one source's connections.
    static let sourceNamespace: Int32 = 0x5455_4E53

    /// The lock's second key: the channel id's low 32 bits (ids past 2³² share a lock with
    /// another channel, which only ever makes one wait for the other).
    static func lockKey(_ channelID: Int64) -> Int32 { Int32(truncatingIfNeeded: channelID) }

    /// SQL that holds when the claim row `alias` names is current: its channel's lock is held, by
    /// the connection that wrote the row (a row left by a dead holder, not yet replaced by the
    /// node that took the lock after it, is not).
    static func claimHeld(_ alias: String) -> String {
        """
        EXISTS (SELECT 1 FROM pg_locks l WHERE l.locktype = 'advisory' AND l.granted
            AND l.classid = \(UInt32(bitPattern: claimNamespace))::oid
            AND l.objid = (\(alias).channelID & 4294967295)::oid AND l.objsubid = 2
            AND l.pid = \(alias).holderPID)
        """
    }
}

/// What a node carries, reported with its heartbeat.
public struct ClusterNodeLoad: Sendable, Equatable, Codable {
    /// Live sessions (one per channel and profile).
    public var sessions: Int
    /// Their viewers, relays of other nodes included.
    public var viewers: Int
    /// Transfers running.
    public var transfers: Int
    /// Output users' streams and output profiles' channels, counted by the other nodes too.
    public var usage: LiveUsage

    public init(sessions: Int = 0, viewers: Int = 0, transfers: Int = 0, usage: LiveUsage = LiveUsage()) {
        self.sessions = sessions
        self.viewers = viewers
        self.transfers = transfers
        self.usage = usage
    }
}

/// One node of the cluster as `tuner cluster status` and `/api/v1/cluster` show it.
public struct ClusterNodeInfo: Sendable, Equatable, Codable {
    public var id: String
    public var advertise: String
    public var startedAt: Date
    public var lastHeartbeat: Date
    public var secondsSinceHeartbeat: Double
    public var load: ClusterNodeLoad
    /// The live channels whose provider connection this node holds.
    public var channels: [Int64]
}
