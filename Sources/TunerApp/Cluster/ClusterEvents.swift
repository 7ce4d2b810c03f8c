import Foundation
import Logging
import PostgresNIO
import Synchronization
import TunerStorage

/// The live events of every node in one log (the `clusterEvent` table), so a web app connected
/// to one node sees the downloads, imports and guide updates of all, and resumes by sequence
/// number on any of them.
///
/// A node's ``EventHub`` forwards what it publishes here (``append(_:_:key:data:)``); a writer
/// inserts them in batches, in one order for the whole cluster (a transaction lock makes the
/// sequence's order the commit order, so a reader that goes on after the last number it saw
/// never skips a row), and notifies `tuner_events`; every node's reader delivers the new rows to
/// its hub with the cluster's numbers. A node's own figures (its cache, its live sessions) travel
/// the same way but only their node delivers them.
final class ClusterEvents: Sendable {
    let database: TunerPostgres
    let nodeID: String
    let logger: Logger
    private let pending = Mutex<[Outgoing]>([])
    /// The newest sequence number delivered.
    private let delivered = Mutex<Int64>(0)

    /// The topics every node delivers; the others are their node's own.
    static let sharedTopics: Set<EventTopic> = [.transfers, .imports, .guide, .recordings, .outputs]
    static let channel = "tuner_events"
    /// Events beyond this many waiting to be written are dropped (the database is away).
    static let pendingLimit = 10_000

    struct Outgoing: Sendable {
        var topic: EventTopic
        var type: String
        var key: String?
        var data: [UInt8]
    }

    init(database: TunerPostgres, nodeID: String, logger: Logger) {
        self.database = database
        self.nodeID = nodeID
        self.logger = logger
    }

    /// Queues an event a feature published on this node.
    func append(_ topic: EventTopic, _ type: String, key: String?, data: [UInt8]) {
        pending.withLock { pending in
            if pending.count >= Self.pendingLimit { pending.removeFirst(pending.count - Self.pendingLimit + 1) }
            pending.append(Outgoing(topic: topic, type: type, key: key, data: data))
        }
    }

    /// Writes and reads the log until cancelled, delivering to `hub`. It starts after the newest
    /// row: what happened before this node joined is not replayed.
    func run(hub: EventHub) async {
        do {
            let newest = try await database.read { [logger] connection in
                var newest: Int64 = 0
                for try await value in try await connection.query(
                    "SELECT coalesce(max(sequence), 0) FROM clusterEvent", logger: logger
                ).decode(Int64.self) {
                    newest = value
                }
                return newest
            }
            delivered.withLock { $0 = newest }
        } catch {
            logger.warning("Cannot read the cluster's event log", metadata: ["error": "\(error)"])
        }
        await withTaskGroup(of: Void.self) { group in
            group.addTask { await self.writeLoop() }
            group.addTask { await self.readLoop(hub: hub) }
        }
    }

    private func writeLoop() async {
        var failing = false
        var lastPrune = ContinuousClock.now
        while !Task.isCancelled {
            try? await Task.sleep(for: .milliseconds(40))
            let batch = pending.withLock { pending in
                defer { pending = [] }
                return pending
            }
            do {
                if !batch.isEmpty { try await write(batch) }
                if ContinuousClock.now - lastPrune > .seconds(60) {
                    lastPrune = .now
                    try await prune()
                }
                failing = false
            } catch {
                if !failing {
                    logger.warning(
                        "Cannot write live events to the cluster's log; other nodes miss them",
                        metadata: ["error": "\(error)"])
                }
                failing = true
            }
        }
    }

    private func write(_ batch: [Outgoing]) async throws {
        let (logger, nodeID) = (logger, nodeID)
        try await database.write { connection in
            _ = try await connection.query("SELECT pg_advisory_xact_lock(\(ClusterStore.eventsLock))", logger: logger)
            for event in batch {
                let shared = Self.sharedTopics.contains(event.topic)
                let data = Data(event.data)
                _ = try await connection.query(
                    """
                    INSERT INTO clusterEvent (nodeID, shared, topic, type, key, data, at)
                    VALUES (\(nodeID), \(shared), \(event.topic.rawValue), \(event.type), \(event.key), \(data),
                        extract(epoch FROM now()))
                    """, logger: logger)
            }
            _ = try await connection.query("SELECT pg_notify(\(Self.channel), '')", logger: logger)
        }
    }

    /// Rows older than ten minutes go: a client away longer reloads anyway.
    private func prune() async throws {
        let logger = logger
        try await database.read { connection in
            _ = try await connection.query(
                "DELETE FROM clusterEvent WHERE at < extract(epoch FROM now()) - 600", logger: logger)
        }
    }

    /// Listens for the writers' notifications on a connection of its own and reads what is new at
    /// each, and at least once a second (a notification lost with a connection is not missed).
    private func readLoop(hub: EventHub) async {
        let (wakes, wake) = AsyncStream<Void>.makeStream(bufferingPolicy: .bufferingNewest(1))
        await withTaskGroup(of: Void.self) { group in
            group.addTask {
                while !Task.isCancelled {
                    wake.yield()
                    try? await Task.sleep(for: .seconds(1))
                }
                wake.finish()
            }
            group.addTask { await self.listen(wake: wake) }
            group.addTask {
                for await _ in wakes {
                    do {
                        try await self.deliverNew(to: hub)
                    } catch {
                        // The writer's warning says the database is away; reading resumes with it.
                    }
                }
            }
        }
    }

    private func listen(wake: AsyncStream<Void>.Continuation) async {
        while !Task.isCancelled {
            do {
                let connection = try await database.connectAlone(id: 2)
                do {
                    try await connection.listen(on: Self.channel) { notifications in
                        for try await _ in notifications { wake.yield() }
                    }
                } catch {}
                try? await connection.close()
            } catch {}
            try? await Task.sleep(for: .seconds(1))
        }
    }

    private func deliverNew(to hub: EventHub) async throws {
        let (logger, nodeID) = (logger, nodeID)
        while true {
            let after = delivered.withLock { $0 }
            let (events, seen, read) = try await database.read { connection in
                var events: [ServerEvent] = []
                var (seen, read) = (after, 0)
                for try await (sequence, node, shared, topic, type, key, data) in try await connection.query(
                    """
                    SELECT sequence, nodeID, shared, topic, type, key, data FROM clusterEvent
                    WHERE sequence > \(after) ORDER BY sequence LIMIT 500
                    """, logger: logger
                ).decode((Int64, String, Bool, String, String, String?, Data).self) {
                    // Every row's number counts as seen, also another node's own figures and a
                    // topic this version does not know, which are not delivered here.
                    (seen, read) = (sequence, read + 1)
                    guard shared || node == nodeID, let topic = EventTopic(rawValue: topic),
                        let number = UInt64(exactly: sequence)
                    else { continue }
                    events.append(
                        ServerEvent(sequence: number, topic: topic, type: type, key: key, data: [UInt8](data)))
                }
                return (events, seen, read)
            }
            for event in events { hub.deliver(event) }
            delivered.withLock { $0 = seen }
            if read < 500 { return }
        }
    }
}
