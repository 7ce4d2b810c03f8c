import Foundation

/// `GET /api/v1/cluster`: the nodes of this Tuner's cluster (this node alone when it runs on its
/// own), their load and the live channels each reads from the provider.
public struct ClusterAnswer: Codable, Sendable, Equatable {
    /// Whether this node is part of a cluster (`--node-id`).
    public var clustered: Bool
    /// This node's name (`--node-id`; "local" on its own).
    public var thisNode: String
    public var nodes: [ClusterNodeAnswer]

    public init(clustered: Bool, thisNode: String, nodes: [ClusterNodeAnswer]) {
        self.clustered = clustered
        self.thisNode = thisNode
        self.nodes = nodes
    }
}

/// One node of ``ClusterAnswer``.
public struct ClusterNodeAnswer: Codable, Sendable, Equatable {
    public var id: String
    /// Where the other nodes reach it (`--advertise`).
    public var advertise: String
    public var startedAt: Date
    public var secondsSinceHeartbeat: Double
    /// Live sessions, their viewers (other nodes' relays included) and running transfers.
    public var sessions: Int
    public var viewers: Int
    public var transfers: Int
    /// The live channels whose provider connection this node holds.
    public var channels: [Int64]

    public init(
        id: String, advertise: String, startedAt: Date, secondsSinceHeartbeat: Double, sessions: Int, viewers: Int,
        transfers: Int, channels: [Int64]
    ) {
        self.id = id
        self.advertise = advertise
        self.startedAt = startedAt
        self.secondsSinceHeartbeat = secondsSinceHeartbeat
        self.sessions = sessions
        self.viewers = viewers
        self.transfers = transfers
        self.channels = channels
    }
}
