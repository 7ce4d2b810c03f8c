/// An encryption key (`#EXT-X-KEY`, or `#EXT-X-SESSION-KEY` in a master playlist).
public struct HLSKey: Sendable, Hashable {
    /// The encryption method. A struct with static members so that new methods never break a
    /// caller's `switch`; unknown methods keep their text.
    public struct Method: Sendable, Hashable, CustomStringConvertible {
        public let rawValue: String

        public init(rawValue: String) { self.rawValue = rawValue }

        public static let none = Method(rawValue: "NONE")
        public static let aes128 = Method(rawValue: "AES-128")
        public static let sampleAES = Method(rawValue: "SAMPLE-AES")
        public static let sampleAESCTR = Method(rawValue: "SAMPLE-AES-CTR")
        public static let aes256 = Method(rawValue: "AES-256")
        public static let aes256CTR = Method(rawValue: "AES-256-CTR")

        public var description: String { rawValue }
    }

    public let method: Method
    /// Where the key is (variables applied, not resolved against the playlist URL); nil for `NONE`.
    /// May be `skd://…` or `data:…` for DRM systems.
    public let uri: String?
    /// The initialization vector as written (`0x…`), when given.
    public let iv: String?
    /// `KEYFORMAT`, `identity` when absent.
    public let keyFormat: String
    public let keyFormatVersions: String?
    /// Every attribute, including ones this type has no property for.
    public let attributes: HLSAttributeList
    /// The 1-based line number of the tag.
    public let line: Int

    init(attributes: HLSAttributeList, line: Int) {
        self.method = Method(rawValue: attributes["METHOD"]?.text ?? "NONE")
        self.uri = attributes["URI"]?.text
        self.iv = attributes["IV"]?.text
        self.keyFormat = attributes["KEYFORMAT"]?.text ?? "identity"
        self.keyFormatVersions = attributes["KEYFORMATVERSIONS"]?.text
        self.attributes = attributes
        self.line = line
    }
}
