/// An alternative rendition of a master playlist (`#EXT-X-MEDIA`): an audio language, a camera
/// angle, subtitles or closed captions.
public struct HLSRendition: Sendable, Hashable {
    /// `TYPE`. A struct with static members so that new types never break a caller's `switch`.
    public struct MediaType: Sendable, Hashable, CustomStringConvertible {
        public let rawValue: String

        public init(rawValue: String) { self.rawValue = rawValue }

        public static let audio = MediaType(rawValue: "AUDIO")
        public static let video = MediaType(rawValue: "VIDEO")
        public static let subtitles = MediaType(rawValue: "SUBTITLES")
        public static let closedCaptions = MediaType(rawValue: "CLOSED-CAPTIONS")

        public var description: String { rawValue }
    }

    public let type: MediaType
    public let groupID: String
    public let name: String
    public let language: String?
    public let associatedLanguage: String?
    /// The rendition's playlist (variables applied, not resolved); nil when the rendition is
    /// carried in the variant's own stream, and always for closed captions.
    public let uri: String?
    public let isDefault: Bool
    public let isAutoselect: Bool
    public let isForced: Bool
    public let instreamID: String?
    public let characteristics: String?
    public let channels: String?
    /// Every attribute, including ones this type has no property for.
    public let attributes: HLSAttributeList
    /// The 1-based line number of the tag.
    public let line: Int

    init(attributes: HLSAttributeList, line: Int) {
        self.type = MediaType(rawValue: attributes["TYPE"]?.text ?? "")
        self.groupID = attributes["GROUP-ID"]?.text ?? ""
        self.name = attributes["NAME"]?.text ?? ""
        self.language = attributes["LANGUAGE"]?.text
        self.associatedLanguage = attributes["ASSOC-LANGUAGE"]?.text
        self.uri = attributes["URI"]?.text
        self.isDefault = attributes["DEFAULT"]?.boolean ?? false
        self.isAutoselect = attributes["AUTOSELECT"]?.boolean ?? false
        self.isForced = attributes["FORCED"]?.boolean ?? false
        self.instreamID = attributes["INSTREAM-ID"]?.text
        self.characteristics = attributes["CHARACTERISTICS"]?.text
        self.channels = attributes["CHANNELS"]?.text
        self.attributes = attributes
        self.line = line
    }
}
