import Foundation
import LiveTV
import Transfers
import TunerAPI

/// The cluster as the front ends show it (`/api/v1/cluster`, `tuner cluster status`): the nodes
/// alive now with their load and the channels each reads; a Tuner on its own lists itself.
///
/// A feature object over ``TunerCluster``, the live sessions and the transfers.
public struct ClusterStatus: Sendable {
    let cluster: TunerCluster?
    let live: LiveSessions
    let transfers: TransferManager
    /// When this node started.
    let startedAt: Date

    /// This node's load now.
    public func load() async -> ClusterNodeLoad {
        let streams = live.streams
        return ClusterNodeLoad(
            sessions: streams.count, viewers: streams.reduce(0) { $0 + $1.viewers.count },
            transfers: await transfers.runningCount, usage: live.usage)
    }

    /// The nodes alive now, by name.
    public func answer() async throws(FeatureError) -> ClusterAnswer {
        guard let cluster else {
            let load = await load()
            let channels = Set(live.streams.filter { $0.sourceID != nil }.map(\.channelID)).sorted()
            return ClusterAnswer(
                clustered: false, thisNode: "local",
                nodes: [
                    ClusterNodeAnswer(
                        id: "local", advertise: "", startedAt: startedAt, secondsSinceHeartbeat: 0,
                        sessions: load.sessions, viewers: load.viewers, transfers: load.transfers, channels: channels)
                ])
        }
        let nodes: [ClusterNodeInfo]
        do {
            nodes = try await cluster.nodes()
        } catch {
            throw FeatureError(.failed, "the cluster's nodes could not be read: \(error)", cause: error)
        }
        return ClusterAnswer(clustered: true, thisNode: cluster.settings.nodeID, nodes: nodes.map(Self.answer))
    }

    /// A node as the API shows it.
    static func answer(_ node: ClusterNodeInfo) -> ClusterNodeAnswer {
        ClusterNodeAnswer(
            id: node.id, advertise: node.advertise, startedAt: node.startedAt,
            secondsSinceHeartbeat: node.secondsSinceHeartbeat, sessions: node.load.sessions, viewers: node.load.viewers,
            transfers: node.load.transfers, channels: node.channels)
    }
}
