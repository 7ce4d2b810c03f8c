/// The name of a playlist tag, without the leading `#` (`EXTINF`, `EXT-X-KEY`, or any unknown name).
///
/// Every tag of RFC 8216 and of its low-latency and content-steering extensions has a static member;
/// other names (vendor tags such as `EXT-X-CUE-OUT`) are kept as written.
public struct HLSTagName: Sendable, Hashable, CustomStringConvertible, ExpressibleByStringLiteral {
    /// The name as written, without `#`.
    public let rawValue: String

    public init(rawValue: String) { self.rawValue = rawValue }

    public init(stringLiteral value: String) { self.rawValue = value }

    /// Whether the parser knows this tag's meaning (it is one of the static members).
    public var isKnown: Bool { HLSTagID(name: rawValue) != .unknown }

    public var description: String { rawValue }

    init(_ id: HLSTagID) { self.rawValue = id.name }

    // Basic tags
    public static let extM3U = HLSTagName(.extM3U)
    public static let version = HLSTagName(.version)
    // Media segment tags
    public static let extInf = HLSTagName(.extInf)
    public static let byteRange = HLSTagName(.byteRange)
    public static let discontinuity = HLSTagName(.discontinuity)
    public static let key = HLSTagName(.key)
    public static let map = HLSTagName(.map)
    public static let programDateTime = HLSTagName(.programDateTime)
    public static let dateRange = HLSTagName(.dateRange)
    public static let gap = HLSTagName(.gap)
    public static let bitrate = HLSTagName(.bitrate)
    public static let part = HLSTagName(.part)
    // Media playlist tags
    public static let targetDuration = HLSTagName(.targetDuration)
    public static let mediaSequence = HLSTagName(.mediaSequence)
    public static let discontinuitySequence = HLSTagName(.discontinuitySequence)
    public static let endList = HLSTagName(.endList)
    public static let playlistType = HLSTagName(.playlistType)
    public static let iFramesOnly = HLSTagName(.iFramesOnly)
    public static let partInf = HLSTagName(.partInf)
    public static let serverControl = HLSTagName(.serverControl)
    public static let skip = HLSTagName(.skip)
    public static let preloadHint = HLSTagName(.preloadHint)
    public static let renditionReport = HLSTagName(.renditionReport)
    // Master (multivariant) playlist tags
    public static let media = HLSTagName(.media)
    public static let streamInf = HLSTagName(.streamInf)
    public static let iFrameStreamInf = HLSTagName(.iFrameStreamInf)
    public static let imageStreamInf = HLSTagName(.imageStreamInf)
    public static let sessionData = HLSTagName(.sessionData)
    public static let sessionKey = HLSTagName(.sessionKey)
    public static let contentSteering = HLSTagName(.contentSteering)
    // Tags allowed in both kinds
    public static let independentSegments = HLSTagName(.independentSegments)
    public static let start = HLSTagName(.start)
    public static let define = HLSTagName(.define)
}
