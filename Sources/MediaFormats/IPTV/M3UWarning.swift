/// Something in a playlist that the parser tolerated instead of failing on: where it was and what.
public struct M3UWarning: Sendable, Hashable, CustomStringConvertible {
    /// What kind of problem this is. A struct rather than an enum so that new kinds can be added
    /// without breaking callers that switch over them.
    public struct Kind: Sendable, Hashable, CustomStringConvertible {
        private enum Code: String, Sendable, Hashable {
            case missingHeader = "missing #EXTM3U header"
            case duplicateHeader = "repeated #EXTM3U header"
            case missingDuration = "missing #EXTINF duration"
            case invalidDuration = "invalid #EXTINF duration"
            case missingTitleSeparator = "#EXTINF without a comma before the title"
            case attributeWithoutValue = "attribute without a value"
            case unterminatedQuote = "unterminated quoted value"
            case suspiciousQuote = "attribute value that looks like a missing closing quote"
            case entryWithoutURL = "entry without a URL"
            case junkLine = "line that is neither a tag nor a URL"
            case lineTooLong = "line longer than the limit"
            case invalidHTTPHeaders = "#EXTHTTP value that is not a JSON object of strings"
            case invalidURLHeader = "URL header without a value"
        }

        private let code: Code
        private init(_ code: Code) { self.code = code }

        /// The first non-blank line is not `#EXTM3U`.
        public static let missingHeader = Kind(.missingHeader)
        /// A second `#EXTM3U` line (concatenated playlists); its attributes are merged.
        public static let duplicateHeader = Kind(.duplicateHeader)
        /// `#EXTINF` with no duration; the entry gets -1.
        public static let missingDuration = Kind(.missingDuration)
        /// `#EXTINF` whose duration is not a number; the entry gets -1.
        public static let invalidDuration = Kind(.invalidDuration)
        /// `#EXTINF` with no comma, so there is no title.
        public static let missingTitleSeparator = Kind(.missingTitleSeparator)
        /// A bare word among the attributes; it is dropped.
        public static let attributeWithoutValue = Kind(.attributeWithoutValue)
        /// A quoted value with no closing quote; the value ends at the next comma.
        public static let unterminatedQuote = Kind(.unterminatedQuote)
        /// A value containing `="`, which usually means an earlier closing quote is missing.
        public static let suspiciousQuote = Kind(.suspiciousQuote)
        /// An `#EXTINF` (and its tags) never followed by a URL; it is dropped.
        public static let entryWithoutURL = Kind(.entryWithoutURL)
        /// A line that is not a tag, comment or location; it is skipped.
        public static let junkLine = Kind(.junkLine)
        /// A line longer than ``M3UParser/Options/maxLineLength``; the rest of it is skipped.
        public static let lineTooLong = Kind(.lineTooLong)
        /// `#EXTHTTP` whose JSON could not be read; it is dropped.
        public static let invalidHTTPHeaders = Kind(.invalidHTTPHeaders)
        /// A `|name` on the URL line without `=value`; it is dropped.
        public static let invalidURLHeader = Kind(.invalidURLHeader)

        public var description: String { code.rawValue }
    }

    /// The 1-based line number, counting blank lines, with CRLF, LF or CR line ends.
    public var line: Int
    /// What kind of problem it is.
    public var kind: Kind
    /// The offending text (shortened), to help a user find and fix it.
    public var detail: String

    public init(line: Int, kind: Kind, detail: String) {
        self.line = line
        self.kind = kind
        self.detail = detail
    }

    public var description: String {
        detail.isEmpty ? "line \(line): \(kind)" : "line \(line): \(kind): \(detail)"
    }
}
