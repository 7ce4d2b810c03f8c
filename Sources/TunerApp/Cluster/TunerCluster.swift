import Crypto
import Foundation
import LiveTV
import Logging
import TunerStorage

/// This node's place in a cluster of Tuners on one PostgreSQL database (`--node-id`,
/// `--advertise`): its membership row and heartbeat, the secrets every node signs with (so a URL
/// made on one node plays on any other), and the live claims that give each channel one
/// provider connection for the whole cluster (``ClusterLiveClaims``).
///
/// Made by ``join(settings:database:dataFolder:logger:)`` in the composition root; the server runs
/// ``run(load:)`` while it serves.
public final class TunerCluster: Sendable {
    public let settings: ClusterSettings
    /// The proxy URLs' signing key (32 bytes), the same on every node.
    public let signingKeyBytes: [UInt8]
    /// ``signingKeyBytes`` as a key.
    public var signingKey: SymmetricKey { SymmetricKey(data: signingKeyBytes) }
    /// The access token every node accepts (unless `--token` names one).
    public let token: String
    let store: ClusterStore
    let claims: ClusterLiveClaims
    /// The live events of every node (see ``ClusterEvents``).
    let events: ClusterEvents
    /// The events' epoch, the same on every node (so a client resumes on any of them).
    public let eventsEpoch: String
    /// The relay secret, as the header that carries it holds it (hex).
    private let relaySecret: String
    let logger: Logger

    /// The header a node's relay request carries.
    public static let relayHeader = "X-Tuner-Relay"

    private init(
        settings: ClusterSettings, store: ClusterStore, signingKey: [UInt8], token: String, relaySecret: String,
        eventsEpoch: String, logger: Logger
    ) {
        self.eventsEpoch = eventsEpoch
        events = ClusterEvents(database: store.database, nodeID: settings.nodeID, logger: logger)
        self.settings = settings
        self.store = store
        self.signingKeyBytes = signingKey
        self.token = token
        self.relaySecret = relaySecret
        self.logger = logger
        claims = ClusterLiveClaims(
            store: store, nodeID: settings.nodeID, relayHeader: (Self.relayHeader, relaySecret), logger: logger)
    }

    /// Joins the cluster of `database`: reads (or, as its first node, makes) the cluster's secrets
    /// and writes this node's row. The first node's secrets are its data folder's, so URLs it
    /// signed before it joined still play.
    public static func join(
        settings: ClusterSettings, database: TunerPostgres, dataFolder: DataFolder, logger: Logger
    ) async throws -> TunerCluster {
        let store = ClusterStore(database: database, logger: logger)
        let key = try await store.secret(
            "signing",
            seed: FileManager.default.contents(atPath: dataFolder.secretPath).flatMap {
                $0.count == 32 ? [UInt8]($0) : nil
            }, length: 32)
        let token = try await store.secret(
            "token",
            seed: FileManager.default.contents(atPath: dataFolder.tokenPath).flatMap {
                $0.count == 24 ? [UInt8]($0) : nil
            }, length: 24)
        let relay = try await store.secret("relay", seed: nil, length: 32)
        let epoch = try await store.secret("events-epoch", seed: nil, length: 8)
        try dataFolder.storeClusterSecrets(signingKey: key, token: token)
        try await store.join(nodeID: settings.nodeID, advertise: settings.advertise)
        logger.info(
            "Joined the cluster",
            metadata: ["node": "\(settings.nodeID)", "advertise": "\(settings.advertise)"])
        return TunerCluster(
            settings: settings, store: store, signingKey: key,
            token: Data(token).base64URLEncodedString(), relaySecret: Self.hex(relay),
            eventsEpoch: "c" + Self.hex(epoch),
            logger: logger)
    }

    private static func hex(_ bytes: [UInt8]) -> String {
        bytes.map { String(format: "%02x", $0) }.joined()
    }

    /// Sends what `hub` publishes from now on through the cluster's event log (the composition
    /// root attaches its hub before any feature publishes).
    public func attach(_ hub: EventHub) {
        let events = events
        hub.forward { topic, type, key, data in events.append(topic, type, key: key, data: data) }
    }

    /// Writes this node's events to the cluster's log and delivers the log's events to `hub`,
    /// until cancelled.
    public func runEvents(hub: EventHub) async {
        await events.run(hub: hub)
    }

    /// The live sessions' view of the cluster.
    public var live: any LiveCluster { claims }

    /// Whether a relay request's header value is the cluster's relay secret (compared in
    /// constant time).
    public func acceptsRelay(_ value: String?) -> Bool {
        guard let value else { return false }
        return AccessControl.constantTimeEquals(value, relaySecret)
    }

    /// The nodes alive now (heartbeat within the timeout), with the channels each holds.
    public func nodes() async throws -> [ClusterNodeInfo] {
        try await store.nodes(timeout: settings.nodeTimeoutSeconds)
    }

    /// Beats every ``ClusterSettings/heartbeatSeconds`` with `load()` until cancelled; then leaves
    /// the cluster (its row goes, its claims end with their connection).
    public func run(load: @escaping @Sendable () async -> ClusterNodeLoad) async {
        var failing = false
        while !Task.isCancelled {
            do {
                let usage = try await store.heartbeat(
                    nodeID: settings.nodeID, advertise: settings.advertise, load: await load(),
                    timeout: settings.nodeTimeoutSeconds)
                claims.setUsageElsewhere(usage)
                if failing { logger.notice("The cluster's heartbeat is written again") }
                failing = false
            } catch {
                if !failing {
                    logger.warning(
                        "Cannot write this node's heartbeat: the other nodes will take it for gone",
                        metadata: ["error": "\(error)"])
                }
                failing = true
            }
            try? await Task.sleep(for: .seconds(settings.heartbeatSeconds))
        }
        await leave()
    }

    /// Runs `body` on one node of the cluster at a time: waits (checking every two heartbeats)
    /// until this node takes the scheduler's lease, then runs it until cancelled. The lease ends
    /// with this node, and another takes it within two heartbeats.
    public func whileScheduling(
        lease: Int32 = 1, what: String = "scheduled refreshes", _ body: @Sendable () async -> Void
    ) async {
        while !Task.isCancelled {
            if await claims.tryLease(lease) {
                logger.info("This node runs the cluster's \(what)")
                await body()
                return
            }
            try? await Task.sleep(for: .seconds(settings.heartbeatSeconds * 2))
        }
    }

    /// Leaves the cluster at once: the row goes and the claims end.
    public func leave() async {
        await claims.close()
        do {
            try await store.leave(nodeID: settings.nodeID)
        } catch {
            logger.warning("Cannot remove this node from the cluster's list", metadata: ["error": "\(error)"])
        }
    }
}

/// How a node takes part in a cluster: `--node-id`, `--advertise`, `--heartbeat-interval`,
/// `--node-timeout`.
public struct ClusterSettings: Sendable, Equatable {
    /// The node's name, unique in the cluster: letters, digits, `.`, `_`, `-`, at most 64.
    public var nodeID: String
    /// `http://host:port` where the other nodes reach this one (no path).
    public var advertise: String
    /// Seconds between heartbeats.
    public var heartbeatSeconds: Double = 1
    /// A node whose last heartbeat is older is gone.
    public var nodeTimeoutSeconds: Double = 5

    public init(
        nodeID: String = "", advertise: String = "", heartbeatSeconds: Double = 1, nodeTimeoutSeconds: Double = 5
    ) {
        self.nodeID = nodeID
        self.advertise = advertise
        self.heartbeatSeconds = heartbeatSeconds
        self.nodeTimeoutSeconds = nodeTimeoutSeconds
    }

    /// Whether `name` can be a node's name.
    public static func isValidNodeID(_ name: String) -> Bool {
        !name.isEmpty && name.utf8.count <= 64
            && name.unicodeScalars.allSatisfy { scalar in
                scalar.isASCII
                    && (scalar.properties.isAlphabetic || ("0"..."9").contains(scalar)
                        || "._-".unicodeScalars.contains(scalar))
            }
    }
}
