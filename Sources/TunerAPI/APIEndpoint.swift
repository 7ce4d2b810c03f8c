/// Every endpoint of Tuner's JSON API (`/api/v1/…`): its method and path. The server's routes and
/// the clients (`ServerLink`, the CLI) name endpoints through this type, so no path is written
/// twice; `APIEndpointTests` checks that the server routes every case.
public enum APIEndpoint: Hashable, Sendable, CaseIterable {
    case health
    /// The OpenAPI 3.1 document of this API.
    case openAPI
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
    case users
    case addUser
    case changeUser(name: String)
    case removeUser(name: String)
    // Live channels
    case streams
    case stopStream(id: String)
    case alternatives(channel: Int64)
    case setAlternatives(channel: Int64)
    // Sign-in and API keys
    case session
    case signIn
    case signOut
    case keys
    case addKey
    case removeKey(id: Int64)

    /// One value of each case (ids are placeholders), for tests and documents that list the API.
    public static let allCases: [APIEndpoint] = [
        .health, .openAPI, .proxyURLs, .cacheStats, .cacheClear, .cacheTrim, .startPreload, .preloads,
        .preload(id: "0"),
        .cancelPreload(id: "0"), .cacheExport, .cachePin, .cacheHistory, .cachePins, .unpin(key: "0"), .transfers,
        .addTransfers, .transfer(id: 0),
        .changeTransfer(id: 0),
        .removeTransfer(id: 0), .pauseAllTransfers, .resumeAllTransfers, .purgeTransfers, .sources, .addSource,
        .changeSource(id: 0),
        .refreshSource(id: 0), .removeSource(id: 0), .channels, .channel(id: 0), .playChannel(id: 0),
        .channelLogo(id: 0), .catchup(channel: 0),
        .checkChannels, .groups, .guide, .guideNow, .favourites, .outputs, .addOutput, .changeOutput(id: "0"),
        .removeOutput(id: "0"), .outputChannels(id: "0"), .users, .addUser, .changeUser(name: "0"),
        .removeUser(name: "0"), .streams, .stopStream(id: "0"),
        .alternatives(channel: 0), .setAlternatives(channel: 0), .session, .signIn, .signOut, .keys, .addKey,
        .removeKey(id: 0),
    ]

    /// Where every endpoint lives.
    public static let prefix = "/api/v1"

    /// The HTTP method.
    public var method: String {
        switch self {
        case .health, .openAPI, .cacheStats, .cacheHistory, .cachePins, .preloads, .preload, .transfers, .transfer,
            .sources, .channels, .channel,
            .playChannel, .channelLogo, .catchup, .groups, .guide, .guideNow, .favourites, .outputs, .outputChannels,
            .users, .streams, .alternatives, .session, .keys:
            return "GET"
        case .proxyURLs, .cacheClear, .cacheTrim, .startPreload, .cacheExport, .cachePin, .addTransfers,
            .pauseAllTransfers,
            .resumeAllTransfers, .purgeTransfers, .addSource, .refreshSource, .checkChannels, .addOutput, .addUser,
            .signIn, .addKey:
            return "POST"
        case .changeTransfer, .changeSource, .changeOutput, .changeUser:
            return "PATCH"
        case .setAlternatives:
            return "PUT"
        case .cancelPreload, .unpin, .removeTransfer, .removeSource, .removeOutput, .removeUser, .stopStream, .signOut,
            .removeKey:
            return "DELETE"
        }
    }

    /// The path (without query), like `/api/v1/transfers/7`.
    public var path: String {
        Self.prefix + "/" + components.joined(separator: "/")
    }

    private var components: [String] {
        switch self {
        case .health: ["health"]
        case .openAPI: ["openapi.json"]
        case .proxyURLs: ["proxy-urls"]
        case .cacheStats: ["cache", "stats"]
        case .cacheClear: ["cache", "clear"]
        case .cacheTrim: ["cache", "trim"]
        case .startPreload: ["cache", "preload"]
        case .preloads: ["cache", "preloads"]
        case .preload(let id), .cancelPreload(let id): ["cache", "preloads", Self.escaped(id)]
        case .cacheExport: ["cache", "export"]
        case .cachePin: ["cache", "pin"]
        case .cacheHistory: ["cache", "history"]
        case .cachePins: ["cache", "pins"]
        case .unpin(let key): ["cache", "pins", Self.escaped(key)]
        case .transfers, .addTransfers: ["transfers"]
        case .transfer(let id), .changeTransfer(let id), .removeTransfer(let id): ["transfers", String(id)]
        case .pauseAllTransfers: ["transfers", "pause-all"]
        case .resumeAllTransfers: ["transfers", "resume-all"]
        case .purgeTransfers: ["transfers", "purge"]
        case .sources, .addSource: ["sources"]
        case .changeSource(let id), .removeSource(let id): ["sources", String(id)]
        case .refreshSource(let id): ["sources", String(id), "refresh"]
        case .channels: ["channels"]
        case .channel(let id): ["channels", String(id)]
        case .playChannel(let id): ["channels", String(id), "play"]
        case .channelLogo(let id): ["channels", String(id), "logo"]
        case .catchup(let id): ["channels", String(id), "catchup"]
        case .checkChannels: ["channels", "check"]
        case .groups: ["groups"]
        case .guide: ["guide"]
        case .guideNow: ["guide", "now"]
        case .favourites: ["favourites"]
        case .outputs, .addOutput: ["outputs"]
        case .changeOutput(let id), .removeOutput(let id): ["outputs", Self.escaped(id)]
        case .outputChannels(let id): ["outputs", Self.escaped(id), "channels"]
        case .users, .addUser: ["users"]
        case .changeUser(let name), .removeUser(let name): ["users", Self.escaped(name)]
        case .streams: ["streams"]
        case .alternatives(let id), .setAlternatives(let id): ["channels", String(id), "alternatives"]
        case .stopStream(let id): ["streams", Self.escaped(id)]
        case .session, .signIn, .signOut: ["session"]
        case .keys, .addKey: ["keys"]
        case .removeKey(let id): ["keys", String(id)]
        }
    }

    /// An id from outside as one path segment: unreserved characters only.
    private static func escaped(_ text: String) -> String {
        var result = ""
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"),
                UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"):
                result.unicodeScalars.append(Unicode.Scalar(byte))
            default:
                result +=
                    "%" + String(byte >> 4, radix: 16, uppercase: true) + String(byte & 0xF, radix: 16, uppercase: true)
            }
        }
        return result
    }
}
