/// `PUT /api/v1/channels/{id}/guide-mapping`: the guide channel to map to (nil forgets the
/// mapping), or `none: true` for "no guide" (the channel gets none, nor placeholders' rivals).
public struct MappingRequest: Codable, Sendable, Equatable {
    public var epgID: String?
    public var none: Bool?

    public init(epgID: String?, none: Bool? = nil) {
        self.epgID = epgID
        self.none = none
    }
}

/// `POST /api/v1/channels/{id}/guide-suggestions/refuse`: a guide channel this channel is not.
public struct RefuseMatchRequest: Codable, Sendable, Equatable {
    public var epgID: String

    public init(epgID: String) {
        self.epgID = epgID
    }
}

/// `POST /api/v1/channels/check`: the channels to probe, by id or by source (all without either).
public struct CheckRequest: Codable, Sendable, Equatable {
    public var ids: [Int64]?
    public var source: Int64?

    public init(ids: [Int64]? = nil, source: Int64? = nil) {
        self.ids = ids
        self.source = source
    }
}

/// `PATCH /api/v1/sources/{id}`: what to change of a source; an absent field stays.
public struct SourcePatch: Codable, Sendable, Equatable {
    public var name: String?
    public var epgURLs: [String]?
    public var refreshInterval: Double?
    /// Streams the account allows at once; 0 clears the user's setting (the provider's applies).
    public var maxConnections: Int?

    public init(
        name: String? = nil, epgURLs: [String]? = nil, refreshInterval: Double? = nil, maxConnections: Int? = nil
    ) {
        self.name = name
        self.epgURLs = epgURLs
        self.refreshInterval = refreshInterval
        self.maxConnections = maxConnections
    }
}

/// `PUT /api/v1/favourites/{id}`: where in the favourites' order (the end without one).
public struct FavouriteRequest: Codable, Sendable, Equatable {
    public var position: Int?

    public init(position: Int? = nil) {
        self.position = position
    }
}

/// `PUT /api/v1/favourites/order`: the favourites' ids in their new order.
public struct FavouriteOrderRequest: Codable, Sendable, Equatable {
    public var ids: [Int64]

    public init(ids: [Int64]) {
        self.ids = ids
    }
}
