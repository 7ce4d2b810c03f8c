/// A problem found while parsing a playlist: the 1-based line number, what kind of problem it is,
/// and a readable message naming the offending text.
///
/// Thrown by a strict `HLSParser`; a lenient parser collects the same values in
/// `HLSPlaylist.warnings` and keeps going.
public struct HLSParseError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The kind of problem, for code that reacts to it; the message is for people.
    ///
    /// A struct with static members rather than an enum, so that adding a code never breaks a
    /// caller's `switch`.
    public struct Code: Sendable, Hashable, CustomStringConvertible {
        private enum Base: String, Sendable, Hashable {
            case missingHeader, byteOrderMark, invalidUTF8, tooLarge
            case invalidTagValue, invalidAttributeList, invalidAttributeValue, missingAttribute
            case duplicateAttribute, duplicateTag, misplacedTag, mixedPlaylistKinds
            case uriWithoutTag, missingURI, invalidByteRange
            case undefinedVariable, duplicateVariable
        }

        private let base: Base

        private init(_ base: Base) { self.base = base }

        /// The first line is not `#EXTM3U`.
        public static let missingHeader = Code(.missingHeader)
        /// The text starts with a UTF-8 byte order mark, which RFC 8216 forbids.
        public static let byteOrderMark = Code(.byteOrderMark)
        /// A line is not valid UTF-8.
        public static let invalidUTF8 = Code(.invalidUTF8)
        /// The text is larger than the parser can index (2 GiB).
        public static let tooLarge = Code(.tooLarge)
        /// A tag's value has the wrong form (a duration that is not a number, a value on a tag that
        /// takes none…).
        public static let invalidTagValue = Code(.invalidTagValue)
        /// An attribute list cannot be read (unterminated quoted string, missing `=`…).
        public static let invalidAttributeList = Code(.invalidAttributeList)
        /// An attribute has a value of the wrong type (`BANDWIDTH="x"`, a quoted `RESOLUTION`…).
        public static let invalidAttributeValue = Code(.invalidAttributeValue)
        /// A required attribute is absent (`BANDWIDTH` on `#EXT-X-STREAM-INF`, `URI` on `#EXT-X-MAP`…).
        public static let missingAttribute = Code(.missingAttribute)
        /// An attribute appears twice in one attribute list.
        public static let duplicateAttribute = Code(.duplicateAttribute)
        /// A tag that may appear only once appears again.
        public static let duplicateTag = Code(.duplicateTag)
        /// A tag is where it may not be (`#EXT-X-MEDIA-SEQUENCE` after the first segment…).
        public static let misplacedTag = Code(.misplacedTag)
        /// Master-playlist tags and media-playlist tags are mixed in one playlist.
        public static let mixedPlaylistKinds = Code(.mixedPlaylistKinds)
        /// A URI line follows neither `#EXTINF` nor `#EXT-X-STREAM-INF`.
        public static let uriWithoutTag = Code(.uriWithoutTag)
        /// `#EXTINF` or `#EXT-X-STREAM-INF` is not followed by its URI line.
        public static let missingURI = Code(.missingURI)
        /// A byte range cannot be resolved (no offset, and no earlier sub-range of the same resource).
        public static let invalidByteRange = Code(.invalidByteRange)
        /// A `{$name}` variable reference has no definition before it.
        public static let undefinedVariable = Code(.undefinedVariable)
        /// `#EXT-X-DEFINE` defines a name twice.
        public static let duplicateVariable = Code(.duplicateVariable)

        public var description: String { base.rawValue }
    }

    /// The kind of problem.
    public let code: Code
    /// The 1-based number of the line that has the problem.
    public let line: Int
    /// What is wrong, naming the offending text.
    public let message: String

    public init(_ code: Code, line: Int, _ message: String) {
        self.code = code
        self.line = line
        self.message = message
    }

    /// `line 12: …`, the form to show people.
    public var description: String { "line \(line): \(message)" }
}
