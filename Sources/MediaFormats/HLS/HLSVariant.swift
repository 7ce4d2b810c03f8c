import Foundation

/// A variant stream of a master playlist (`#EXT-X-STREAM-INF` and its URI line, or
/// `#EXT-X-I-FRAME-STREAM-INF`).
public struct HLSVariant: Sendable, Hashable {
    /// Variables applied, not resolved against the playlist URL.
    public let uri: String
    /// `BANDWIDTH`, nil only when a lenient parse met an invalid value.
    public let bandwidth: Int?
    public let averageBandwidth: Int?
    /// `CODECS` as written (`"avc1.64001f,mp4a.40.2"`).
    public let codecs: String?
    public let resolution: HLSResolution?
    public let frameRate: Double?
    public let hdcpLevel: String?
    public let videoRange: String?
    /// `AUDIO`, `VIDEO`, `SUBTITLES`: the `GROUP-ID`s of the renditions to combine with the variant.
    public let audioGroup: String?
    public let videoGroup: String?
    public let subtitlesGroup: String?
    /// `CLOSED-CAPTIONS` group; nil for `NONE`.
    public let closedCaptionsGroup: String?
    /// True for `#EXT-X-I-FRAME-STREAM-INF`.
    public let isIFrameOnly: Bool
    /// Every attribute, including ones this type has no property for.
    public let attributes: HLSAttributeList
    /// The 1-based line number of the tag.
    public let line: Int
    /// The 1-based line number of the URI line (the tag's own line for I-frame variants).
    public let uriLine: Int

    /// The codec identifiers of `CODECS`, in order.
    public var codecList: [String] {
        codecs?.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) } ?? []
    }

    init(attributes: HLSAttributeList, uri: String, isIFrameOnly: Bool, line: Int, uriLine: Int) {
        self.uri = uri
        self.bandwidth = attributes["BANDWIDTH"]?.integer
        self.averageBandwidth = attributes["AVERAGE-BANDWIDTH"]?.integer
        self.codecs = attributes["CODECS"]?.text
        self.resolution = attributes["RESOLUTION"]?.resolution
        self.frameRate = attributes["FRAME-RATE"]?.decimal
        self.hdcpLevel = attributes["HDCP-LEVEL"]?.text
        self.videoRange = attributes["VIDEO-RANGE"]?.text
        self.audioGroup = attributes["AUDIO"]?.text
        self.videoGroup = attributes["VIDEO"]?.text
        self.subtitlesGroup = attributes["SUBTITLES"]?.text
        let closedCaptions = attributes["CLOSED-CAPTIONS"]
        self.closedCaptionsGroup = closedCaptions?.isQuoted == true ? closedCaptions?.text : nil
        self.isIFrameOnly = isIFrameOnly
        self.attributes = attributes
        self.line = line
        self.uriLine = uriLine
    }
}
