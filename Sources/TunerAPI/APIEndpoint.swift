/// A call of Tuner's JSON API (`/api/v1/…`): an ``APIOperation`` with the ids its path needs. The
/// clients (`ServerLink`, the CLI) name endpoints through this type; method and path come from
/// the operation, so no path is written twice.
public enum APIEndpoint: Hashable, Sendable, CaseIterable {
    case health
    /// The OpenAPI 3.1 document of this API.
    case openAPI
    case cluster
    case proxyURLs
    // The cache.
    case cacheStats
    case cacheClear
    case cacheTrim
    case startPreload
    case preloads
    case preload(id: String)
    case cancelPreload(id: String)
    case cacheExport
    case cachePin
    case cacheHistory
    case cachePins
    case unpin(key: String)
    // Transfers.
    case transfers
    case addTransfers
    case transfer(id: Int64)
    case changeTransfer(id: Int64)
    case removeTransfer(id: Int64)
    case pauseAllTransfers
    case resumeAllTransfers
    case purgeTransfers
    // Sources.
    case sources
    case addSource
    case changeSource(id: Int64)
    case refreshSource(id: Int64)
    case removeSource(id: Int64)
    // Channels, guide, favourites.
    case channels
    case channel(id: Int64)
    case playChannel(id: Int64)
    /// A channel's logo, through Tuner (a redirect to a signed proxy URL).
    case channelLogo(id: Int64)
    case catchup(channel: Int64)
    case checkChannels
    case groups
    case guide
    case guideNow
    case favourites
    // Outputs for other players.
    case outputs
    case addOutput
    case changeOutput(id: String)
    case removeOutput(id: String)
    case outputChannels(id: String)
    case outputLineup(id: String)
    case outputLineupIdentities(id: String)
    case changeOutputLineup(id: String)
    case acceptLineupGuides(id: String)
    case uploadLogo
    case users
    case addUser
    case changeUser(name: String)
    case removeUser(name: String)
    // Live channels
    case streams
    case stopStream(id: String)
    case alternatives(channel: Int64)
    case setAlternatives(channel: Int64)
    // The DVR
    case recordings
    case addRecording
    case recording(id: Int64)
    case changeRecording(id: Int64)
    case removeRecording(id: Int64)
    case rules
    case addRule
    case removeRule(id: Int64)
    // Sign-in and API keys
    case session
    case signIn
    case signOut
    case keys
    case addKey
    case removeKey(id: Int64)
    // Backups
    case backups
    case addBackup

    /// One value of each case (ids are placeholders), for tests and documents that list the API.
    public static let allCases: [APIEndpoint] = [
        .health, .openAPI, .cluster, .proxyURLs, .cacheStats, .cacheClear, .cacheTrim, .startPreload, .preloads,
        .preload(id: "0"),
        .cancelPreload(id: "0"), .cacheExport, .cachePin, .cacheHistory, .cachePins, .unpin(key: "0"), .transfers,
        .addTransfers, .transfer(id: 0),
        .changeTransfer(id: 0),
        .removeTransfer(id: 0), .pauseAllTransfers, .resumeAllTransfers, .purgeTransfers, .sources, .addSource,
        .changeSource(id: 0),
        .refreshSource(id: 0), .removeSource(id: 0), .channels, .channel(id: 0), .playChannel(id: 0),
        .channelLogo(id: 0), .catchup(channel: 0),
        .checkChannels, .groups, .guide, .guideNow, .favourites, .outputs, .addOutput, .changeOutput(id: "0"),
        .removeOutput(id: "0"), .outputChannels(id: "0"), .outputLineup(id: "0"), .outputLineupIdentities(id: "0"),
        .changeOutputLineup(id: "0"), .acceptLineupGuides(id: "0"), .uploadLogo, .users, .addUser,
        .changeUser(name: "0"),
        .removeUser(name: "0"), .streams, .stopStream(id: "0"),
        .alternatives(channel: 0), .setAlternatives(channel: 0), .session, .signIn, .signOut, .keys, .addKey,
        .removeKey(id: 0), .recordings, .addRecording, .recording(id: 0), .changeRecording(id: 0),
        .removeRecording(id: 0), .rules, .addRule, .removeRule(id: 0), .backups, .addBackup,
    ]

    /// Where every endpoint lives.
    public static let prefix = "/api/v1"

    /// The HTTP method.
    public var method: String { operation.method }

    /// The path (without query), like `/api/v1/transfers/7`: the operation's template with this
    /// case's ids, each escaped as one segment.
    public var path: String { operation.path(values) }

    /// The ids that fill the operation's path parameters.
    private var values: [String] {
        switch self {
        case .preload(let id), .cancelPreload(let id), .changeOutput(let id), .removeOutput(let id),
            .outputChannels(let id), .outputLineup(let id), .outputLineupIdentities(let id),
            .changeOutputLineup(let id), .acceptLineupGuides(let id), .stopStream(let id):
            [id]
        case .unpin(let key): [key]
        case .changeUser(let name), .removeUser(let name): [name]
        case .transfer(let id), .changeTransfer(let id), .removeTransfer(let id), .changeSource(let id),
            .removeSource(let id), .refreshSource(let id), .channel(let id), .playChannel(let id),
            .channelLogo(let id), .removeKey(let id), .recording(let id), .changeRecording(let id),
            .removeRecording(let id), .removeRule(let id):
            [String(id)]
        case .catchup(let id), .alternatives(let id), .setAlternatives(let id): [String(id)]
        default: []
        }
    }

    /// The operation of ``APIOperation/all`` this endpoint calls.
    public var operation: APIOperation {
        switch self {
        case .health: .health
        case .openAPI: .openAPI
        case .cluster: .cluster
        case .proxyURLs: .proxyURLs
        case .cacheStats: .cacheStats
        case .cacheClear: .cacheClear
        case .cacheTrim: .cacheTrim
        case .startPreload: .startPreload
        case .preloads: .preloads
        case .preload: .preload
        case .cancelPreload: .cancelPreload
        case .cacheExport: .cacheExport
        case .cachePin: .cachePin
        case .cacheHistory: .cacheHistory
        case .cachePins: .cachePins
        case .unpin: .unpin
        case .transfers: .transfers
        case .addTransfers: .addTransfers
        case .transfer: .transfer
        case .changeTransfer: .changeTransfer
        case .removeTransfer: .removeTransfer
        case .pauseAllTransfers: .pauseAllTransfers
        case .resumeAllTransfers: .resumeAllTransfers
        case .purgeTransfers: .purgeTransfers
        case .sources: .sources
        case .addSource: .addSource
        case .changeSource: .changeSource
        case .refreshSource: .refreshSource
        case .removeSource: .removeSource
        case .channels: .channels
        case .channel: .channel
        case .playChannel: .playChannel
        case .channelLogo: .channelLogo
        case .catchup: .catchup
        case .checkChannels: .checkChannels
        case .groups: .groups
        case .guide: .guide
        case .guideNow: .guideNow
        case .favourites: .favourites
        case .outputs: .outputs
        case .addOutput: .addOutput
        case .changeOutput: .changeOutput
        case .removeOutput: .removeOutput
        case .outputChannels: .outputChannels
        case .outputLineup: .outputLineup
        case .outputLineupIdentities: .outputLineupIdentities
        case .changeOutputLineup: .changeOutputLineup
        case .acceptLineupGuides: .acceptLineupGuides
        case .uploadLogo: .uploadLogo
        case .users: .users
        case .addUser: .addUser
        case .changeUser: .changeUser
        case .removeUser: .removeUser
        case .streams: .streams
        case .stopStream: .stopStream
        case .alternatives: .alternatives
        case .setAlternatives: .setAlternatives
        case .session: .session
        case .signIn: .signIn
        case .signOut: .signOut
        case .keys: .keys
        case .addKey: .addKey
        case .removeKey: .removeKey
        case .recordings: .recordings
        case .addRecording: .addRecording
        case .recording: .recording
        case .changeRecording: .changeRecording
        case .removeRecording: .removeRecording
        case .rules: .rules
        case .addRule: .addRule
        case .removeRule: .removeRule
        case .backups: .backups
        case .addBackup: .addBackup
        }
    }
}
