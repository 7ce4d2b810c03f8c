/// What a user sets on an output profile (`POST /api/v1/outputs`, `PATCH /api/v1/outputs/{id}`),
/// shared by the server, `ServerLink` and the CLI. Every field is optional: a missing one keeps
/// the profile's value (or the default, for a new profile).
public struct OutputProfileSettings: Codable, Sendable, Equatable {
    /// The new profile's id (POST only): 1 to 32 of `a-z`, `0-9`, `-`; it is part of every URL.
    public var id: String?
    public var name: String?
    /// `live`, `movie`, `series` (default live only).
    public var kinds: [String]?
    /// Only these sources; empty means all.
    public var sourceIDs: [Int64]?
    /// Only these groups (`group-title`); empty means all.
    public var groups: [String]?
    /// Only favourites.
    public var favouritesOnly: Bool?
    /// Words every channel name (or group) must contain, as the catalog's search reads them.
    public var search: String?
    /// Channel identities shown whatever the rest says.
    public var include: [String]?
    /// Channel identities never shown.
    public var exclude: [String]?
    /// Only the channels of `include`: a lineup picked in the lineup editor, not described by rules.
    public var pickedOnly: Bool?
    /// The first channel number given.
    public var start: Int?
    /// `playlist`, `favourites` or `name`: the order new channels are numbered in.
    public var order: String?
    /// Give channels the playlist's own `tvg-chno` when it is free.
    public var keepPlaylistNumbers: Bool?
    /// Names shown instead of the playlist's, by channel identity.
    public var renames: [String: String]?
    /// Streams players may open at once (HDHomeRun `TunerCount`), 1 to 64.
    public var streamLimit: Int?
    /// How live channels reach the profile's players: `direct`, `remux` or `transcode`.
    public var streamProfile: String?

    public init(
        id: String? = nil, name: String? = nil, kinds: [String]? = nil, sourceIDs: [Int64]? = nil,
        groups: [String]? = nil, favouritesOnly: Bool? = nil, search: String? = nil, include: [String]? = nil,
        exclude: [String]? = nil, start: Int? = nil, order: String? = nil, keepPlaylistNumbers: Bool? = nil,
        renames: [String: String]? = nil, streamLimit: Int? = nil, streamProfile: String? = nil,
        pickedOnly: Bool? = nil
    ) {
        self.id = id
        self.name = name
        self.kinds = kinds
        self.sourceIDs = sourceIDs
        self.groups = groups
        self.favouritesOnly = favouritesOnly
        self.search = search
        self.include = include
        self.exclude = exclude
        self.start = start
        self.order = order
        self.keepPlaylistNumbers = keepPlaylistNumbers
        self.renames = renames
        self.streamLimit = streamLimit
        self.streamProfile = streamProfile
        self.pickedOnly = pickedOnly
    }
}

/// An output profile as the API shows it, with the keyed URLs players are given.
public struct OutputProfileAnswer: Codable, Sendable, Equatable {
    public var id: String
    public var name: String
    /// HDHomeRun's DeviceID: eight hex digits.
    public var deviceID: String
    /// The key that opens the profile's outputs to other machines.
    public var accessKey: String
    public var streamLimit: Int
    public var channelCount: Int
    public var kinds: [String]
    public var sourceIDs: [Int64]
    public var groups: [String]
    public var favouritesOnly: Bool
    public var search: String?
    public var include: [String]
    public var exclude: [String]
    public var start: Int
    public var order: String
    public var keepPlaylistNumbers: Bool
    public var playlistURL: String
    public var guideURL: String
    public var hdhomerunURL: String
    public var streamProfile: String
    /// Only the channels of `include` (picked in the lineup editor).
    public var pickedOnly = false

    public init(
        id: String, name: String, deviceID: String, accessKey: String, streamLimit: Int, channelCount: Int,
        kinds: [String], sourceIDs: [Int64], groups: [String], favouritesOnly: Bool, search: String?,
        include: [String], exclude: [String], start: Int, order: String, keepPlaylistNumbers: Bool,
        playlistURL: String, guideURL: String, hdhomerunURL: String, streamProfile: String = "direct"
    ) {
        self.id = id
        self.name = name
        self.deviceID = deviceID
        self.accessKey = accessKey
        self.streamLimit = streamLimit
        self.channelCount = channelCount
        self.kinds = kinds
        self.sourceIDs = sourceIDs
        self.groups = groups
        self.favouritesOnly = favouritesOnly
        self.search = search
        self.include = include
        self.exclude = exclude
        self.start = start
        self.order = order
        self.keepPlaylistNumbers = keepPlaylistNumbers
        self.playlistURL = playlistURL
        self.guideURL = guideURL
        self.hdhomerunURL = hdhomerunURL
        self.streamProfile = streamProfile
    }
}

/// `GET /api/v1/outputs`.
public struct OutputProfileList: Codable, Sendable, Equatable {
    public var profiles: [OutputProfileAnswer]

    public init(profiles: [OutputProfileAnswer]) { self.profiles = profiles }
}

/// One channel of a profile's lineup (`GET /api/v1/outputs/{id}/channels`).
public struct OutputChannelAnswer: Codable, Sendable, Equatable {
    public var number: Int
    public var name: String
    /// The catalog item (`/api/v1/channels/{itemID}`).
    public var itemID: Int64
    public var identity: String
    public var group: String?

    public init(number: Int, name: String, itemID: Int64, identity: String, group: String?) {
        self.number = number
        self.name = name
        self.itemID = itemID
        self.identity = identity
        self.group = group
    }
}

/// `GET /api/v1/outputs/{id}/channels`.
public struct OutputChannelList: Codable, Sendable, Equatable {
    public var channels: [OutputChannelAnswer]

    public init(channels: [OutputChannelAnswer]) { self.channels = channels }
}

/// An Xtream login for players (`POST /api/v1/users`, `PATCH /api/v1/users/{name}`). The password
/// is write-only: no answer carries it.
public struct OutputUserSettings: Codable, Sendable, Equatable {
    public var username: String?
    /// 8 to 256 bytes, without `/`, `?` or `#` (it travels in stream paths).
    public var password: String?
    /// The profiles whose channels the login sees (default: `default`).
    public var profiles: [String]?
    /// Streams the login may open at once, 1 to 64 (default 1).
    public var maxConnections: Int?
    /// How live channels reach the login's player: `direct`, `remux` or `transcode`.
    public var streamProfile: String?
    /// When the login stops working, in seconds since 1970; 0 for never (the default).
    public var expiresAt: Int64?
    /// True disables the login (it sees its account and nothing else), false enables it again.
    public var disabled: Bool?

    public init(
        username: String? = nil, password: String? = nil, profiles: [String]? = nil, maxConnections: Int? = nil,
        streamProfile: String? = nil, expiresAt: Int64? = nil, disabled: Bool? = nil
    ) {
        self.username = username
        self.password = password
        self.profiles = profiles
        self.maxConnections = maxConnections
        self.streamProfile = streamProfile
        self.expiresAt = expiresAt
        self.disabled = disabled
    }
}

/// An Xtream login as the API shows it (never its password).
public struct OutputUserAnswer: Codable, Sendable, Equatable {
    public var username: String
    public var profiles: [String]
    public var maxConnections: Int
    /// The server address players are given with the login.
    public var serverURL: String
    public var streamProfile: String
    /// When the login stops working (seconds since 1970), or nil when it never does.
    public var expiresAt: Int64?
    /// Whether the login is disabled (it sees its account and nothing else).
    public var disabled: Bool

    public init(
        username: String, profiles: [String], maxConnections: Int, serverURL: String, streamProfile: String = "direct",
        expiresAt: Int64? = nil, disabled: Bool = false
    ) {
        self.username = username
        self.profiles = profiles
        self.maxConnections = maxConnections
        self.serverURL = serverURL
        self.streamProfile = streamProfile
        self.expiresAt = expiresAt
        self.disabled = disabled
    }
}

/// `GET /api/v1/users`.
public struct OutputUserList: Codable, Sendable, Equatable {
    public var users: [OutputUserAnswer]

    public init(users: [OutputUserAnswer]) { self.users = users }
}
