import Foundation

/// An HLS playlist (master or media) as parsed from its text: every line kept in order, byte for
/// byte, with typed views (segments, variants, renditions, keys…) derived from the tags.
///
/// The text is held once as UTF-8 bytes, and each line is an offset range into it, so
/// serializing untouched lines is a copy and reading a playlist creates no per-line strings;
/// typed values (`HLSSegment`, `HLSVariant`…) are built when asked for.
public struct HLSPlaylist: Sendable {
    /// The playlist text; lines replaced by a rewrite are appended after the original bytes.
    var storage: [UInt8]
    var lineRecords: [HLSLineRecord]
    var segmentRecords: [HLSSegmentRecord]
    var variantRecords: [HLSVariantRecord]
    var iFrameVariantLines: [Int]
    var renditionLines: [Int]
    var sessionKeyLines: [Int]
    var partRecords: [HLSPartRecord]
    /// The sets of `#EXT-X-KEY` lines in effect, shared by the segments that use the same set.
    var keySets: [[Int]]
    var header: HLSHeader

    /// Variables defined by `#EXT-X-DEFINE` (including imported ones), already applied to every
    /// URI and attribute value this type returns. Serialization keeps the `{$name}` references.
    public internal(set) var variables: [String: String]

    /// Problems a lenient parse found and went past; always empty after a strict parse, which
    /// throws the first one instead.
    public internal(set) var warnings: [HLSParseError]
}

// In an extension so that the memberwise initializer the parser uses stays synthesized.
extension HLSPlaylist {
    /// Parses `text` with `configuration` (strict by default).
    public init(parsing text: String, configuration: HLSParser.Configuration = .strict) throws(HLSParseError) {
        self = try HLSParser(configuration: configuration).parse(text)
    }

    /// Parses UTF-8 bytes (as received from the network) with `configuration` (strict by default).
    public init<Bytes: Collection<UInt8>>(
        parsing bytes: Bytes, configuration: HLSParser.Configuration = .strict
    ) throws(HLSParseError) {
        self = try HLSParser(configuration: configuration).parse(bytes)
    }
}

/// Where a line sits in `HLSPlaylist.storage`, and what the parser learnt from its first bytes.
struct HLSLineRecord: Sendable {
    /// First byte of the line, leading whitespace included so that serialization is exact.
    var lineStart: Int
    /// First non-blank byte.
    var contentStart: Int
    /// Tags: one past the last byte of the name. Other lines: `contentStart`.
    var nameEnd: Int
    /// Tags: first byte of the value (after `:`), or `end` when there is none.
    var valueStart: Int
    /// One past the last byte, trailing whitespace excluded.
    var end: Int
    var kind: HLSLine.Kind
    var tag: HLSTagID
    /// URI lines: what the line turned out to be.
    var uriRole: HLSURIRole

    var hasValue: Bool { nameEnd < end }
}

/// What a URI line belongs to, decided by the tag before it.
enum HLSURIRole: UInt8, Sendable {
    case none, segment, variant
    /// A URI line with neither `#EXTINF` nor `#EXT-X-STREAM-INF` before it (lenient parses only).
    case orphan
}

struct HLSSegmentRecord: Sendable {
    var uriLine: Int
    /// First line that belongs to this segment: the line after the previous segment's URI.
    var firstLine: Int
    var extInfLine: Int
    var duration: Double
    /// -1 when the segment has no byte range.
    var byteRangeLength: Int
    var byteRangeOffset: Int
    /// Index into `keySets`, -1 when unencrypted.
    var keySet: Int
    /// Line of the `#EXT-X-MAP` in effect, -1 when none.
    var mapLine: Int
    /// Line of an `#EXT-X-PROGRAM-DATE-TIME` among this segment's tags, -1 when none.
    var programDateTimeLine: Int
    var discontinuitySequence: Int
    /// Position in the media sequence relative to `#EXT-X-MEDIA-SEQUENCE`, counting segments that
    /// `#EXT-X-SKIP` left out.
    var sequenceOffset: Int
    var isDiscontinuity: Bool
    var isGap: Bool
}

struct HLSVariantRecord: Sendable {
    var tagLine: Int
    var uriLine: Int
}

struct HLSPartRecord: Sendable {
    var line: Int
    /// Index of the segment the part belongs to; equal to the segment count for the parts of the
    /// segment still being produced at the live edge.
    var segmentIndex: Int
    var duration: Double
    var byteRangeLength: Int
    var byteRangeOffset: Int
}

/// Values of the playlist-wide tags.
struct HLSHeader: Sendable {
    var isMaster = false
    var version: Int?
    var targetDuration: Int?
    var mediaSequence: Int?
    var discontinuitySequence: Int?
    var playlistType: HLSPlaylistType?
    var hasEndList = false
    var iFramesOnly = false
    var independentSegments = false
    var skippedSegments = 0
    var partTarget: Double?
    var startLine = -1
    var serverControlLine = -1
    var contentSteeringLine = -1
}
