import Foundation

/// Where a channel's session runs when several nodes share one database and one provider account:
/// one node at a time holds a channel's claim and reads the provider; the others relay its stream.
/// ``LiveSessions`` asks it before it opens an upstream; without one (a single node) it decides
/// alone.
///
/// Implemented by TunerApp's `ClusterLiveClaims` on PostgreSQL (an advisory lock per channel that
/// dies with its holder's connection, and a row per claim that says which source it reads).
public protocol LiveCluster: Sendable {
    /// Claims the session of `channelID` for this node, or names the node that holds it. Each
    /// ``LiveClaim/local`` is given back once with ``release(channelID:)``.
    func claim(channelID: Int64) async -> LiveClaim

    /// Records that this node's session of `channelID` (claimed) reads source `sourceID` now;
    /// false when the sessions of other channels, on any node, already use every connection
    /// `limit` allows.
    func use(sourceID: Int64, limit: Int?, for channelID: Int64) async -> Bool

    /// Gives one claim of `channelID` back.
    func release(channelID: Int64) async

    /// What the other nodes' viewers use, as their last heartbeats said: counted with this node's
    /// own against an output user's and an output profile's limits.
    var usageElsewhere: LiveUsage { get }
}

/// The streams output users have open and the channels output profiles tune, on one node (or
/// summed over several).
public struct LiveUsage: Sendable, Equatable, Codable {
    /// Streams open per output user (Xtream login).
    public var users: [String: Int]
    /// Channels tuned per output profile.
    public var profiles: [String: Set<Int64>]

    public init(users: [String: Int] = [:], profiles: [String: Set<Int64>] = [:]) {
        self.users = users
        self.profiles = profiles
    }

    /// This usage and `other`'s together.
    public func adding(_ other: LiveUsage) -> LiveUsage {
        LiveUsage(
            users: users.merging(other.users, uniquingKeysWith: +),
            profiles: profiles.merging(other.profiles) { $0.union($1) })
    }
}

/// The answer to ``LiveCluster/claim(channelID:)``.
public enum LiveClaim: Sendable {
    /// This node holds the claim: it reads the provider.
    case local
    /// Another node holds it: read its relay.
    case relay(LiveRelay)
    /// Nobody can say now (the database is unreachable, or the holder has not said where it is
    /// yet): try again shortly.
    case unavailable(String)
}

/// The relay of a channel on the node that holds its claim: the internal path, and the header
/// that proves the caller is a node of the cluster.
public struct LiveRelay: Sendable, Equatable {
    /// The holder's name (`--node-id`), for logs and the streams list.
    public var node: String
    /// `<advertised address>/internal/live/<channel>`.
    public var url: URL
    public var headerName: String
    public var headerValue: String

    public init(node: String, url: URL, headerName: String, headerValue: String) {
        self.node = node
        self.url = url
        self.headerName = headerName
        self.headerValue = headerValue
    }
}
