import Foundation

/// `GET /api/v1/streams`: the live sessions open now.
public struct LiveStreamList: Codable, Sendable, Equatable {
    public var streams: [LiveStreamInfo]

    public init(streams: [LiveStreamInfo]) { self.streams = streams }
}

/// One live session: one upstream (and, for the remux and transcode profiles, one ffmpeg) shared
/// by its viewers.
public struct LiveStreamInfo: Codable, Sendable, Equatable {
    public var id: String
    public var channelID: Int64
    public var channelName: String
    /// `direct`, `remux` or `transcode`; `hls` (the web app's fMP4 HLS), `hls-ts` (Xtream's
    /// `.m3u8`) or `hls-proxy` (an HLS channel's playlist through the proxy).
    public var profile: String
    /// The HDHomeRun size a `transcode` session makes (`internet540`, `heavy`, ...); nil otherwise.
    public var transcodeSize: String?
    /// The channel the bytes come from now (the channel itself, or an alternative after a failover
    /// or when its account was full) and that channel's source.
    public var upstreamChannelID: Int64?
    public var sourceID: Int64?
    public var sourceName: String?
    public var viewers: [LiveViewerInfo]
    public var upstreamBytesPerSecond: Int64
    public var downstreamBytesPerSecond: Int64
    public var upstreamBytes: Int64
    public var downstreamBytes: Int64
    public var startedAt: Date
    public var failovers: [LiveFailoverInfo]
    /// Viewers that fell behind the ring and were moved to its newest keyframe.
    public var resyncs: Int
    /// Continuity counter errors seen in the current upstream (they start again at each failover;
    /// a splice or a looping file's jump on every stream at once is not one).
    public var continuityErrors: Int

    public init(
        id: String, channelID: Int64, channelName: String, profile: String, upstreamChannelID: Int64?,
        sourceID: Int64?, sourceName: String?, viewers: [LiveViewerInfo], upstreamBytesPerSecond: Int64,
        downstreamBytesPerSecond: Int64, upstreamBytes: Int64, downstreamBytes: Int64, startedAt: Date,
        failovers: [LiveFailoverInfo], resyncs: Int, continuityErrors: Int, transcodeSize: String? = nil
    ) {
        self.transcodeSize = transcodeSize
        self.id = id
        self.channelID = channelID
        self.channelName = channelName
        self.profile = profile
        self.upstreamChannelID = upstreamChannelID
        self.sourceID = sourceID
        self.sourceName = sourceName
        self.viewers = viewers
        self.upstreamBytesPerSecond = upstreamBytesPerSecond
        self.downstreamBytesPerSecond = downstreamBytesPerSecond
        self.upstreamBytes = upstreamBytes
        self.downstreamBytes = downstreamBytes
        self.startedAt = startedAt
        self.failovers = failovers
        self.resyncs = resyncs
        self.continuityErrors = continuityErrors
    }
}

/// One viewer of a live session.
public struct LiveViewerInfo: Codable, Sendable, Equatable {
    /// The client's address as the server saw it.
    public var address: String
    /// The output user (Xtream login) or output profile it came through; nil for the owner's API.
    public var user: String?
    public var outputProfile: String?
    public var joinedAt: Date
    public var bytes: Int64

    public init(address: String, user: String?, outputProfile: String?, joinedAt: Date, bytes: Int64) {
        self.address = address
        self.user = user
        self.outputProfile = outputProfile
        self.joinedAt = joinedAt
        self.bytes = bytes
    }
}

/// A switch to the next alternative, and why.
public struct LiveFailoverInfo: Codable, Sendable, Equatable {
    public var at: Date
    public var fromChannelID: Int64?
    public var toChannelID: Int64?
    public var reason: String

    public init(at: Date, fromChannelID: Int64?, toChannelID: Int64?, reason: String) {
        self.at = at
        self.fromChannelID = fromChannelID
        self.toChannelID = toChannelID
        self.reason = reason
    }
}
