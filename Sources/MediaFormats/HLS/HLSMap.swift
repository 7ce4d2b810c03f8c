/// A Media Initialization Section (`#EXT-X-MAP`): what a decoder needs before the segments that
/// follow, such as an fMP4 `moov`.
public struct HLSMap: Sendable, Hashable {
    /// Variables applied, not resolved against the playlist URL.
    public let uri: String
    /// The sub-range of the resource, when given; a range without offset starts at 0.
    public let byteRange: HLSByteRange?
    /// The 1-based line number of the tag.
    public let line: Int

    init(attributes: HLSAttributeList, line: Int) {
        self.uri = attributes["URI"]?.text ?? ""
        var byteRange: HLSByteRange?
        if var text = attributes["BYTERANGE"]?.text,
            let range = text.withUTF8({ HLSBytes.byteRange($0, 0, $0.count) })
        {
            byteRange = HLSByteRange(length: range.length, offset: range.offset ?? 0)
        }
        self.byteRange = byteRange
        self.line = line
    }
}
