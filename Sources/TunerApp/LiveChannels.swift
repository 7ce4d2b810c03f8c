import Catalog
import Foundation
import LiveTV
import Streaming
import TunerAPI

/// Live channels as the front ends use them: watch a channel (as MPEG-TS or HLS), list and stop
/// the sessions, choose a channel's alternatives.
///
/// A feature object over the live engine (``LiveSessions``): controllers call it, never the
/// engine, and its errors are ``FeatureError``s, so every front end answers a full account or
/// an unknown channel alike. The sessions' lifecycle (their tasks, the shutdown) stays the
/// engine's, owned by ``TunerEngine``.
public final class LiveChannels: Sendable {
    let sessions: LiveSessions

    public init(sessions: LiveSessions) {
        self.sessions = sessions
    }

    /// The live sessions open now, oldest first.
    public var streams: [LiveStreamInfo] { sessions.streams }

    /// Totals over every session opened since the start (for the metrics).
    public var totals: LiveSessions.Totals { sessions.totals }

    /// How many streams output user `user` has open (Xtream's `active_cons`).
    public func openStreams(user: String) -> Int { sessions.openStreams(user: user) }

    /// A viewer of the channel the request names: joins its session, or opens one on a source
    /// with a free connection (busy when there is none).
    public func watch(_ request: LiveSessions.Request) async throws(FeatureError) -> LiveViewer {
        try await FeatureError.live { () async throws(LiveError) in try await sessions.watch(request) }
    }

    /// Notes that `address` asked for HLS channel `channelID`'s playlist through the proxy: it
    /// counts as a connection of its source (busy when they are all in use).
    public func noteHLSPlayer(channelID: Int64, address: String, link: StreamLink) async throws(FeatureError) {
        try await FeatureError.live { () async throws(LiveError) in
            try await sessions.noteHLSPlayer(channelID: channelID, address: address, link: link)
        }
    }

    /// The browser HLS session of live channel `channelID`, made on first use.
    public func hls(channelID: Int64, address: String) async throws(FeatureError) -> LiveHLSSession {
        try await FeatureError.live { () async throws(LiveError) in
            try await sessions.hls(channelID: channelID, address: address)
        }
    }

    /// The HLS session in `format` that plays the request's channel, made on first use.
    public func hls(
        _ request: LiveSessions.Request, format: LiveHLSSession.Format
    ) async throws(FeatureError) -> LiveHLSSession {
        try await FeatureError.live { () async throws(LiveError) in try await sessions.hls(request, format: format) }
    }

    /// The running HLS session `id` of `channelID`, if any.
    public func runningHLS(id: String, channelID: Int64) -> LiveHLSSession? {
        sessions.runningHLS(id: id, channelID: channelID)
    }

    /// The channels a session of `channelID` fails over to, in order, and whether the user chose them.
    public func alternatives(of channelID: Int64) async throws(FeatureError) -> (items: [CatalogItem], chosen: Bool) {
        try await FeatureError.live { () async throws(LiveError) in try await sessions.alternatives(of: channelID) }
    }

    /// Sets the alternatives of `channelID` in order; an empty list goes back to the automatic ones.
    public func setAlternatives(of channelID: Int64, to ids: [Int64]) async throws(FeatureError) {
        try await FeatureError.live { () async throws(LiveError) in
            try await sessions.setAlternatives(of: channelID, to: ids)
        }
    }

    /// Stops session `id`: its viewers' streams end.
    public func stop(id: String) async throws(FeatureError) {
        try await FeatureError.live { () async throws(LiveError) in try await sessions.stop(id: id) }
    }
}
