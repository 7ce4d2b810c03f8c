/// A problem found while parsing a playlist: the 1-based line number, what kind of problem it is,
/// and a readable message naming the offending text.
///
/// Thrown by a strict `HLSParser`; a lenient parser collects the same values in
/// `HLSPlaylist.warnings` and keeps going.
public struct HLSParseError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The kind of problem, for code that reacts to it; the description is for people.
    ///
    /// A struct with static members rather than an enum, so that adding a kind never breaks a
    /// caller's `switch`.
    public struct Kind: Sendable, Hashable, CustomStringConvertible {
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
        public static let missingHeader = Kind(.missingHeader)
        /// The text starts with a UTF-8 byte order mark, which RFC 8216 forbids.
        public static let byteOrderMark = Kind(.byteOrderMark)
        /// A line is not valid UTF-8.
        public static let invalidUTF8 = Kind(.invalidUTF8)
        /// The text is larger than the parser can index (2 GiB).
        public static let tooLarge = Kind(.tooLarge)
        /// A tag's value has the wrong form (a duration that is not a number, a value on a tag that
        /// takes none…).
        public static let invalidTagValue = Kind(.invalidTagValue)
        /// An attribute list cannot be read (unterminated quoted string, missing `=`…).
        public static let invalidAttributeList = Kind(.invalidAttributeList)
        /// An attribute has a value of the wrong type (`BANDWIDTH="x"`, a quoted `RESOLUTION`…).
        public static let invalidAttributeValue = Kind(.invalidAttributeValue)
        /// A required attribute is absent (`BANDWIDTH` on `#EXT-X-STREAM-INF`, `URI` on `#EXT-X-MAP`…).
        public static let missingAttribute = Kind(.missingAttribute)
        /// An attribute appears twice in one attribute list.
        public static let duplicateAttribute = Kind(.duplicateAttribute)
        /// A tag that may appear only once appears again.
        public static let duplicateTag = Kind(.duplicateTag)
        /// A tag is where it may not be (`#EXT-X-MEDIA-SEQUENCE` after the first segment…).
        public static let misplacedTag = Kind(.misplacedTag)
        /// Master-playlist tags and media-playlist tags are mixed in one playlist.
        public static let mixedPlaylistKinds = Kind(.mixedPlaylistKinds)
        /// A URI line follows neither `#EXTINF` nor `#EXT-X-STREAM-INF`.
        public static let uriWithoutTag = Kind(.uriWithoutTag)
        /// `#EXTINF` or `#EXT-X-STREAM-INF` is not followed by its URI line.
        public static let missingURI = Kind(.missingURI)
        /// A byte range cannot be resolved (no offset, and no earlier sub-range of the same resource).
        public static let invalidByteRange = Kind(.invalidByteRange)
        /// A `{$name}` variable reference has no definition before it.
        public static let undefinedVariable = Kind(.undefinedVariable)
        /// `#EXT-X-DEFINE` defines a name twice.
        public static let duplicateVariable = Kind(.duplicateVariable)

        public var description: String { base.rawValue }
    }

    /// The kind of problem.
    public let kind: Kind
    /// The 1-based number of the line that has the problem.
    public let line: Int
    /// `line 12: …`: the line and what is wrong there, naming the offending text.
    public let description: String

    /// A problem on `line`; `problem` says what is wrong, and the description puts the line before it.
    public init(_ kind: Kind, line: Int, _ problem: String) {
        self.kind = kind
        self.line = line
        self.description = "line \(line): \(problem)"
    }
}
