/// A tag line (`#NAME` or `#NAME:value`), with its value parsed as an attribute list when it is one.
public struct HLSTag: Sendable, Hashable {
    public let name: HLSTagName
    /// The text after `:` as written (variable references not applied), nil when there is none.
    public let value: String?
    /// The 1-based line number.
    public let line: Int
    /// The value read as an attribute list, with variables applied. Empty for tags whose value is
    /// not an attribute list (`#EXTINF`, `#EXT-X-BYTERANGE`…); for unknown tags, whatever part of
    /// the value reads as one.
    public let attributes: HLSAttributeList

    public init(name: HLSTagName, value: String?, line: Int, attributes: HLSAttributeList = HLSAttributeList()) {
        self.name = name
        self.value = value
        self.line = line
        self.attributes = attributes
    }
}
