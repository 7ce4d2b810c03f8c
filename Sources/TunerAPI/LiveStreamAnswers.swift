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

/// `GET /api/v1/channels/{id}/timeshift`: a channel's time-shift window, what it holds and where
/// to play it.
public struct TimeshiftAnswer: Codable, Sendable, Equatable {
    public var channelID: Int64
    /// Whether the channel keeps a window while it plays (`--timeshift`, and for `favourites`
    /// whether it is one).
    public var keeps: Bool
    /// The oldest and newest instants held, in seconds since 1970; absent while it holds nothing.
    public var start: Double?
    public var end: Double?
    public var segments: Int
    public var bytes: Int64
    /// Where a stream asked to start at `?at=` (default: now) starts: the start of the segment
    /// holding that instant (its keyframe), in seconds since 1970; absent while nothing is held.
    public var startAt: Double?
    /// How much of a channel a window keeps at most.
    public var windowSeconds: Double
    public var maxBytes: Int64
    /// The window as HLS (MPEG-TS segments with their wall-clock times); `?from=&to=` for a span.
    public var playlistURL: String
    /// The window as fragmented MP4 with AAC sound, for browsers: `?from=` where it starts; it
    /// follows the channel live from there.
    public var streamURL: String

    public init(
        channelID: Int64, keeps: Bool, start: Double?, end: Double?, segments: Int, bytes: Int64, startAt: Double?,
        windowSeconds: Double, maxBytes: Int64, playlistURL: String, streamURL: String
    ) {
        self.startAt = startAt
        self.channelID = channelID
        self.keeps = keeps
        self.start = start
        self.end = end
        self.segments = segments
        self.bytes = bytes
        self.windowSeconds = windowSeconds
        self.maxBytes = maxBytes
        self.playlistURL = playlistURL
        self.streamURL = streamURL
    }
}
