/// `GET /api/v1/guide/now`: what is on now and next, for a page of channels.
public struct NowNextPage: Codable, Sendable, Equatable {
    /// A channel with its current and next programme (absent when the guide has none).
    public struct Channel: Codable, Sendable, Equatable {
        public var item: ChannelAnswer
        public var now: ProgrammeAnswer?
        public var next: ProgrammeAnswer?

        public init(item: ChannelAnswer, now: ProgrammeAnswer?, next: ProgrammeAnswer?) {
            self.item = item
            self.now = now
            self.next = next
        }
    }

    /// Seconds since 1970, UTC.
    public var at: Int64
    public var total: Int
    public var offset: Int
    public var limit: Int
    public var channels: [Channel]

    public init(at: Int64, total: Int, offset: Int, limit: Int, channels: [Channel]) {
        self.at = at
        self.total = total
        self.offset = offset
        self.limit = limit
        self.channels = channels
    }
}

/// `GET /api/v1/guide`: the programmes of a page of channels that overlap a window.
public struct GridPage: Codable, Sendable, Equatable {
    /// A channel with its programmes in the window.
    public struct Channel: Codable, Sendable, Equatable {
        public var item: ChannelAnswer
        public var programmes: [ProgrammeAnswer]

        public init(item: ChannelAnswer, programmes: [ProgrammeAnswer]) {
            self.item = item
            self.programmes = programmes
        }
    }

    /// The window, in seconds since 1970, UTC.
    public var from: Int64
    public var to: Int64
    public var total: Int
    public var offset: Int
    public var limit: Int
    public var channels: [Channel]

    public init(from: Int64, to: Int64, total: Int, offset: Int, limit: Int, channels: [Channel]) {
        self.from = from
        self.to = to
        self.total = total
        self.offset = offset
        self.limit = limit
        self.channels = channels
    }
}

/// `GET /api/v1/channels/{id}/guide`: one channel's programmes.
public struct ChannelGuideAnswer: Codable, Sendable, Equatable {
    public var itemID: Int64
    /// The guide channel the programmes come from.
    public var epgID: String?
    /// The guide channel the user mapped this channel to, if any.
    public var mapping: String?
    public var from: Int64
    public var to: Int64
    public var programmes: [ProgrammeAnswer]

    public init(itemID: Int64, epgID: String?, mapping: String?, from: Int64, to: Int64, programmes: [ProgrammeAnswer])
    {
        self.itemID = itemID
        self.epgID = epgID
        self.mapping = mapping
        self.from = from
        self.to = to
        self.programmes = programmes
    }
}

/// `PUT`/`DELETE /api/v1/channels/{id}/guide-mapping`: the guide channel a channel now uses.
public struct GuideMappingAnswer: Codable, Sendable, Equatable {
    public var itemID: Int64
    /// Absent once the mapping is removed, and for "no guide".
    public var epgID: String?
    /// The channel was told "no guide".
    public var none: Bool

    public init(itemID: Int64, epgID: String?, none: Bool = false) {
        self.itemID = itemID
        self.epgID = epgID
        self.none = none
    }
}

/// `GET /api/v1/channels/{id}/catchup`: a signed proxy URL that plays a past programme.
public struct CatchupAnswer: Codable, Sendable, Equatable {
    public var proxyURL: String
    /// Seconds since 1970, UTC.
    public var start: Int64
    public var end: Int64
    public var programme: ProgrammeAnswer?

    public init(proxyURL: String, start: Int64, end: Int64, programme: ProgrammeAnswer?) {
        self.proxyURL = proxyURL
        self.start = start
        self.end = end
        self.programme = programme
    }
}

/// `POST /api/v1/channels/check`: how many streams answered, and each probe.
public struct CheckResults: Codable, Sendable, Equatable {
    public var checked: Int
    public var online: Int
    public var offline: Int
    public var results: [StreamCheckAnswer]

    public init(checked: Int, online: Int, offline: Int, results: [StreamCheckAnswer]) {
        self.checked = checked
        self.online = online
        self.offline = offline
        self.results = results
    }
}
