import Foundation

/// One recording of the DVR (`/api/v1/recordings`): planned, running or done. Times are seconds
/// since 1970, UTC.
public struct RecordingAnswer: Codable, Sendable, Equatable, Identifiable {
    public var id: Int64
    /// `scheduled`, `recording`, `done`, `failed` or `cancelled`.
    public var state: String
    public var channelID: Int64
    public var channelName: String
    /// The guide's programme, when it came from the guide.
    public var programmeID: Int64?
    public var title: String
    public var subtitle: String?
    public var description: String?
    public var season: Int?
    public var episode: Int?
    /// The programme's times, and the span recorded (with the padding).
    public var start: Int64
    public var stop: Int64
    public var recordStart: Int64
    public var recordStop: Int64
    public var priority: Int
    /// Who asked for it: the rules' ids, and whether someone asked by hand.
    public var ruleIDs: [Int64]
    public var byHand: Bool
    /// A recording retention never deletes.
    public var keep: Bool
    /// The files, in order: a recording interrupted by a restart has a second part.
    public var files: [RecordingFile]
    /// Spans with nothing recorded (the provider lost, a restart), and why.
    public var gaps: [RecordingGap]
    /// Bytes written so far.
    public var bytes: Int64
    /// Why it failed (or was cancelled), for people.
    public var reason: String?
    /// For a scheduled recording that will not get a connection when it starts: why (which
    /// recording takes the provider's connections then). Computed ahead, before it happens.
    public var conflict: String?

    public init(
        id: Int64, state: String, channelID: Int64, channelName: String, programmeID: Int64?, title: String,
        subtitle: String?, description: String?, season: Int?, episode: Int?, start: Int64, stop: Int64,
        recordStart: Int64, recordStop: Int64, priority: Int, ruleIDs: [Int64], byHand: Bool, keep: Bool,
        files: [RecordingFile], gaps: [RecordingGap], bytes: Int64, reason: String?, conflict: String?
    ) {
        self.id = id
        self.state = state
        self.channelID = channelID
        self.channelName = channelName
        self.programmeID = programmeID
        self.title = title
        self.subtitle = subtitle
        self.description = description
        self.season = season
        self.episode = episode
        self.start = start
        self.stop = stop
        self.recordStart = recordStart
        self.recordStop = recordStop
        self.priority = priority
        self.ruleIDs = ruleIDs
        self.byHand = byHand
        self.keep = keep
        self.files = files
        self.gaps = gaps
        self.bytes = bytes
        self.reason = reason
        self.conflict = conflict
    }
}

/// One file of a recording: its name under the recordings folder, its size and its format
/// (`ts` while recording or when the remux failed, `mp4` after it).
public struct RecordingFile: Codable, Sendable, Equatable {
    public var name: String
    public var bytes: Int64
    public var format: String
    /// When its bytes started and stopped arriving.
    public var from: Int64
    public var to: Int64?
    /// The MPEG-TS bytes received for this part, as the channel sent them (the MP4 after the
    /// remux is smaller: the transport stream's packets are gone).
    public var receivedBytes: Int64

    public init(name: String, bytes: Int64, format: String, from: Int64, to: Int64?, receivedBytes: Int64 = 0) {
        self.name = name
        self.bytes = bytes
        self.format = format
        self.from = from
        self.to = to
        self.receivedBytes = receivedBytes
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        name = try container.decode(String.self, forKey: .name)
        bytes = try container.decode(Int64.self, forKey: .bytes)
        format = try container.decode(String.self, forKey: .format)
        from = try container.decode(Int64.self, forKey: .from)
        to = try container.decodeIfPresent(Int64.self, forKey: .to)
        receivedBytes = try container.decodeIfPresent(Int64.self, forKey: .receivedBytes) ?? bytes
    }
}

/// A span of a recording with no bytes, and why.
public struct RecordingGap: Codable, Sendable, Equatable {
    public var from: Int64
    public var to: Int64
    public var reason: String

    public init(from: Int64, to: Int64, reason: String) {
        self.from = from
        self.to = to
        self.reason = reason
    }
}

/// `GET /api/v1/recordings`.
public struct RecordingList: Codable, Sendable, Equatable {
    public var recordings: [RecordingAnswer]

    public init(recordings: [RecordingAnswer]) { self.recordings = recordings }
}

/// `POST /api/v1/recordings`: a programme of the guide, or a channel and a span.
public struct AddRecordingRequest: Codable, Sendable, Equatable {
    public var programmeID: Int64?
    public var channelID: Int64?
    public var start: Int64?
    public var stop: Int64?
    public var title: String?
    public var paddingBeforeSeconds: Int?
    public var paddingAfterSeconds: Int?
    public var priority: Int?
    public var otherChannels: Bool?

    public init(
        programmeID: Int64? = nil, channelID: Int64? = nil, start: Int64? = nil, stop: Int64? = nil,
        title: String? = nil, paddingBeforeSeconds: Int? = nil, paddingAfterSeconds: Int? = nil,
        priority: Int? = nil, otherChannels: Bool? = nil
    ) {
        self.programmeID = programmeID
        self.channelID = channelID
        self.start = start
        self.stop = stop
        self.title = title
        self.paddingBeforeSeconds = paddingBeforeSeconds
        self.paddingAfterSeconds = paddingAfterSeconds
        self.priority = priority
        self.otherChannels = otherChannels
    }
}

/// `PATCH /api/v1/recordings/{id}`: keep it from retention, or let retention have it.
public struct ChangeRecordingRequest: Codable, Sendable, Equatable {
    public var keep: Bool

    public init(keep: Bool) { self.keep = keep }
}
