/// Something in a guide that the parser tolerated or skipped: where (byte offset) and what.
public struct XMLTVWarning: Sendable, Hashable, CustomStringConvertible {
    /// What kind of problem this is; a struct so kinds can be added without breaking callers.
    public struct Kind: Sendable, Hashable, CustomStringConvertible {
        private enum Code: String, Sendable, Hashable {
            case notXMLTV = "root element is not <tv>"
            case unsupportedEncoding = "unsupported encoding, read as UTF-8"
            case channelWithoutID = "<channel> without an id; skipped"
            case programmeWithoutChannel = "<programme> without a channel; skipped"
            case invalidStart = "<programme> without a valid start time; skipped"
            case invalidStop = "invalid stop time; ignored"
            case invalidDate = "invalid date attribute; ignored"
            case mismatchedEndTag = "end tag that closes no open element; ignored"
            case unclosedElement = "element closed implicitly by an outer end tag"
            case malformedMarkup = "malformed markup; skipped"
            case tokenTooLong = "markup longer than the limit; skipped"
            case textTooLong = "text longer than the limit; truncated"
            case truncatedDocument = "document ends inside markup or an element"
        }

        private let code: Code
        private init(_ code: Code) { self.code = code }

        public static let notXMLTV = Kind(.notXMLTV)
        public static let unsupportedEncoding = Kind(.unsupportedEncoding)
        public static let channelWithoutID = Kind(.channelWithoutID)
        public static let programmeWithoutChannel = Kind(.programmeWithoutChannel)
        public static let invalidStart = Kind(.invalidStart)
        public static let invalidStop = Kind(.invalidStop)
        public static let invalidDate = Kind(.invalidDate)
        public static let mismatchedEndTag = Kind(.mismatchedEndTag)
        public static let unclosedElement = Kind(.unclosedElement)
        public static let malformedMarkup = Kind(.malformedMarkup)
        public static let tokenTooLong = Kind(.tokenTooLong)
        public static let textTooLong = Kind(.textTooLong)
        public static let truncatedDocument = Kind(.truncatedDocument)

        public var description: String { code.rawValue }
    }

    /// Offset in bytes from the start of the input. (Byte offsets rather than line numbers,
    /// because counting lines would cost a second pass over every byte of a 200 MB guide.)
    public var offset: Int
    /// What kind of problem it is.
    public var kind: Kind
    /// The offending text, shortened.
    public var detail: String

    public init(offset: Int, kind: Kind, detail: String) {
        self.offset = offset
        self.kind = kind
        self.detail = detail
    }

    public var description: String {
        detail.isEmpty ? "byte \(offset): \(kind)" : "byte \(offset): \(kind): \(detail)"
    }
}
