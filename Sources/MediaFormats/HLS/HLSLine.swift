/// One line of a playlist, as written (trailing whitespace removed).
public struct HLSLine: Sendable, Hashable {
    /// The four kinds of line RFC 8216 section 4.1 defines; a plain enum because the RFC fixes them.
    public enum Kind: UInt8, Sendable, Hashable {
        /// An empty line (or only whitespace).
        case blank
        /// A line starting with `#` but not `#EXT`.
        case comment
        /// A line starting with `#EXT`.
        case tag
        /// Any other line: a URI.
        case uri
    }

    public let kind: Kind
    /// The 1-based line number in the parsed text.
    public let number: Int
    /// The line's text, without line ending or trailing whitespace.
    public let text: String
    /// The tag name, for tag lines.
    public let tagName: HLSTagName?

    public init(kind: Kind, number: Int, text: String, tagName: HLSTagName? = nil) {
        self.kind = kind
        self.number = number
        self.text = text
        self.tagName = tagName
    }
}
