import Foundation

/// A live channel, movie or series as the catalog's answers list it.
public struct ChannelAnswer: Codable, Sendable, Equatable {
    /// The row id; it stays the same across refreshes as long as ``identity`` does.
    public var id: Int64
    public var sourceID: Int64
    /// `live`, `movie` or `series`.
    public var kind: String
    /// The identity that favourites, custom order and guide mappings are keyed by.
    public var identity: String
    public var name: String
    public var group: String?
    /// `tvg-id`: the channel's id in the programme guide.
    public var tvgID: String?
    /// `tvg-name`: the channel's name in the programme guide.
    public var tvgName: String?
    public var logo: String?
    /// The provider's channel number (`tvg-chno`), as written.
    public var number: String?
    /// The stream URL; nil for a series (its episodes have URLs).
    public var url: String?
    /// Headers the provider needs on requests for this stream.
    public var headers: [Header]
    public var catchup: Catchup?
    /// `tvg-shift` in hours.
    public var tvgShift: Double?
    public var isRadio: Bool
    /// Order within the source, as the provider listed it.
    public var position: Int
    public var isFavourite: Bool
    /// The last stream check, if the item was ever checked.
    public var streamCheck: StreamCheckAnswer?

    /// A header the provider needs.
    public struct Header: Codable, Sendable, Equatable {
        public var name: String
        public var value: String

        public init(name: String, value: String) {
            self.name = name
            self.value = value
        }
    }

    /// How the provider offers past programmes of the channel.
    public struct Catchup: Codable, Sendable, Equatable {
        /// `default`, `append`, `shift`, `flussonic`, `xc`, … as the playlist wrote it.
        public var type: String
        public var days: Int?
        /// The URL template.
        public var source: String?

        public init(type: String, days: Int?, source: String?) {
            self.type = type
            self.days = days
            self.source = source
        }
    }

    public init(
        id: Int64, sourceID: Int64, kind: String, identity: String, name: String, group: String?, tvgID: String?,
        tvgName: String?, logo: String?, number: String?, url: String?, headers: [Header], catchup: Catchup?,
        tvgShift: Double?, isRadio: Bool, position: Int, isFavourite: Bool, streamCheck: StreamCheckAnswer?
    ) {
        self.id = id
        self.sourceID = sourceID
        self.kind = kind
        self.identity = identity
        self.name = name
        self.group = group
        self.tvgID = tvgID
        self.tvgName = tvgName
        self.logo = logo
        self.number = number
        self.url = url
        self.headers = headers
        self.catchup = catchup
        self.tvgShift = tvgShift
        self.isRadio = isRadio
        self.position = position
        self.isFavourite = isFavourite
        self.streamCheck = streamCheck
    }
}

/// The last probe of a channel's stream.
public struct StreamCheckAnswer: Codable, Sendable, Equatable {
    public var itemID: Int64
    public var online: Bool
    public var checkedAt: Date
    /// What the probe saw (`HTTP 200`, `HTTP 404`, `unreachable: …`, `playlist without segments`).
    public var reason: String

    public init(itemID: Int64, online: Bool, checkedAt: Date, reason: String) {
        self.itemID = itemID
        self.online = online
        self.checkedAt = checkedAt
        self.reason = reason
    }
}

/// `GET /api/v1/channels` and `/favourites`: a page of items.
public struct ChannelPage: Codable, Sendable, Equatable {
    public var items: [ChannelAnswer]
    /// How many match in all, across every page.
    public var total: Int
    public var offset: Int
    public var limit: Int

    public init(items: [ChannelAnswer], total: Int, offset: Int, limit: Int) {
        self.items = items
        self.total = total
        self.offset = offset
        self.limit = limit
    }
}
