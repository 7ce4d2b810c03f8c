import Foundation
import LiveTV
import Logging
import PostgresNIO
import Synchronization
import TunerStorage

/// The live claims of one node (see ``LiveCluster``): a channel's claim is a PostgreSQL advisory
/// lock held on this node's own connection, so it dies with the node (kill -9, a lost network)
/// and another node can take it at once; a `liveClaim` row says who holds it and which source
/// its session reads, so the other nodes know where to relay from and how many of a source's
/// connections are in use over the whole cluster.
///
/// One operation at a time runs on the connection (a lock and its row change together).
actor ClusterLiveClaims: LiveCluster {
    let store: ClusterStore
    let nodeID: String
    /// The header a relay request carries (the cluster's relay secret).
    nonisolated let relayHeader: (name: String, value: String)
    /// The other nodes' usage as their last heartbeats said (the heartbeat refreshes it).
    private let elsewhere = Mutex(LiveUsage())
    let logger: Logger
    private var connection: PostgresConnection?
    /// Claims held per channel (PostgreSQL's advisory locks count the same way).
    private var held: [Int64: Int] = [:]
    /// Leases this node holds on the same connection (``tryLease(_:)``).
    private var leases: Set<Int32> = []
    private var busy = false
    private var waiting: [CheckedContinuation<Void, Never>] = []

    init(store: ClusterStore, nodeID: String, relayHeader: (name: String, value: String), logger: Logger) {
        self.store = store
        self.nodeID = nodeID
        self.relayHeader = relayHeader
        self.logger = logger
    }

    func claim(channelID: Int64) async -> LiveClaim {
        await serialized {
            do {
                let connection = try await lockConnection()
                let key = ClusterStore.lockKey(channelID)
                let namespace = ClusterStore.claimNamespace
                var got = false
                for try await value in try await connection.query(
                    "SELECT pg_try_advisory_lock(\(namespace), \(key))", logger: logger
                ).decode(Bool.self) {
                    got = value
                }
                if got {
                    held[channelID, default: 0] += 1
                    let nodeID = nodeID
                    _ = try await connection.query(
                        """
                        INSERT INTO liveClaim (channelID, nodeID, sourceID, holderPID, since)
                        VALUES (\(channelID), \(nodeID), NULL, pg_backend_pid(), extract(epoch FROM now()))
                        ON CONFLICT (channelID) DO UPDATE SET nodeID = excluded.nodeID,
                            holderPID = excluded.holderPID,
                            sourceID = CASE WHEN liveClaim.nodeID = excluded.nodeID THEN liveClaim.sourceID END,
                            since = CASE WHEN liveClaim.nodeID = excluded.nodeID THEN liveClaim.since
                                ELSE excluded.since END
                        """, logger: logger)
                    return .local
                }
                for try await (holder, advertise) in try await connection.query(
                    """
                    SELECT c.nodeID, n.advertise FROM liveClaim c JOIN clusterNode n ON n.nodeID = c.nodeID
                    WHERE c.channelID = \(channelID) AND \(unescaped: ClusterStore.claimHeld("c"))
                    """, logger: logger
                ).decode((String, String).self) {
                    guard holder != nodeID, let url = URL(string: advertise + "/internal/live/\(channelID)") else {
                        break
                    }
                    return .relay(
                        LiveRelay(node: holder, url: url, headerName: relayHeader.name, headerValue: relayHeader.value))
                }
                return .unavailable("its holder has not said where it is yet")
            } catch {
                await lost(error)
                return .unavailable("the database did not answer: \(error)")
            }
        }
    }

    func use(sourceID: Int64, limit: Int?, for channelID: Int64) async -> Bool {
        let logger = logger
        let nodeID = nodeID
        do {
            return try await store.database.write { connection in
                // One counting of a source's connections at a time, over every node.
                let sourceKey = Int32(truncatingIfNeeded: sourceID)
                _ = try await connection.query(
                    "SELECT pg_advisory_xact_lock(\(ClusterStore.sourceNamespace), \(sourceKey))", logger: logger)
                if let limit {
                    var used: Int64 = 0
                    for try await count in try await connection.query(
                        """
                        SELECT count(*) FROM liveClaim c
                        WHERE c.sourceID = \(sourceID) AND c.channelID <> \(channelID)
                            AND \(unescaped: ClusterStore.claimHeld("c"))
                        """, logger: logger
                    ).decode(Int64.self) {
                        used = count
                    }
                    guard used < Int64(limit) else { return false }
                }
                _ = try await connection.query(
                    "UPDATE liveClaim SET sourceID = \(sourceID) WHERE channelID = \(channelID) AND nodeID = \(nodeID)",
                    logger: logger)
                return true
            }
        } catch {
            logger.warning(
                "Cannot count a source's connections in the cluster", metadata: ["error": "\(error)"])
            return false
        }
    }

    func release(channelID: Int64) async {
        await serialized {
            guard let count = held[channelID], count > 0, let connection else { return }
            held[channelID] = count > 1 ? count - 1 : nil
            do {
                if count == 1 {
                    // The row goes first: a node that finds the lock free never reads a stale row.
                    let nodeID = nodeID
                    _ = try await connection.query(
                        "DELETE FROM liveClaim WHERE channelID = \(channelID) AND nodeID = \(nodeID)", logger: logger)
                }
                _ = try await connection.query(
                    "SELECT pg_advisory_unlock(\(ClusterStore.claimNamespace), \(ClusterStore.lockKey(channelID)))",
                    logger: logger)
            } catch {
                await lost(error)
            }
        }
    }

    /// Takes lease `key` (one node of the cluster at a time: the scheduled refreshes) for as long
    /// as this node's connection lives; false while another node holds it.
    func tryLease(_ key: Int32) async -> Bool {
        await serialized {
            if leases.contains(key), connection?.isClosed == false { return true }
            do {
                let connection = try await lockConnection()
                for try await got in try await connection.query(
                    "SELECT pg_try_advisory_lock(\(ClusterStore.leaseNamespace), \(key))", logger: logger
                ).decode(Bool.self) where got {
                    leases.insert(key)
                    return true
                }
            } catch {
                await lost(error)
            }
            return false
        }
    }

    nonisolated var usageElsewhere: LiveUsage { elsewhere.withLock { $0 } }

    /// Takes the other nodes' usage read with a heartbeat.
    nonisolated func setUsageElsewhere(_ usage: LiveUsage) { elsewhere.withLock { $0 = usage } }

    /// The channels this node holds claims of.
    var channels: [Int64] { held.keys.sorted() }

    /// Closes the connection: every claim of this node ends with it.
    func close() async {
        await serialized {
            held = [:]
            leases = []
            if let connection { try? await connection.close() }
            connection = nil
        }
    }

    private func lockConnection() async throws -> PostgresConnection {
        if let connection, !connection.isClosed { return connection }
        if connection != nil { await lost(nil) }
        let opened = try await store.database.connectAlone(id: 1)
        connection = opened
        return opened
    }

    /// The connection is gone, and the claims with it: other nodes may take them now.
    private func lost(_ error: (any Error)?) async {
        if !held.isEmpty {
            logger.warning(
                "Lost the database connection that holds this node's live claims; other nodes may take them",
                metadata: ["channels": "\(held.keys.sorted())", "error": "\(error.map { "\($0)" } ?? "closed")"])
        }
        held = [:]
        leases = []
        if let connection { try? await connection.close() }
        connection = nil
    }

    private func serialized<T: Sendable>(_ body: () async -> T) async -> T {
        if busy {
            await withCheckedContinuation { waiting.append($0) }
        } else {
            busy = true
        }
        defer {
            if waiting.isEmpty { busy = false } else { waiting.removeFirst().resume() }
        }
        return await body()
    }
}
