import Foundation

/// A media segment of a media playlist, with everything that applies to it resolved: its
/// byte range (an offset-less `#EXT-X-BYTERANGE` continues after the previous sub-range of the
/// same URI), the keys and map in effect, and its sequence numbers.
public struct HLSSegment: Sendable, Hashable {
    /// Variables applied, not resolved against the playlist URL.
    public let uri: String
    /// `#EXTINF` duration in seconds.
    public let duration: Double
    /// The `#EXTINF` text after the comma, nil when there is no comma.
    public let title: String?
    public let byteRange: HLSByteRange?
    /// The keys in effect, one per `KEYFORMAT`; empty when the segment is not encrypted.
    public let keys: [HLSKey]
    /// The `#EXT-X-MAP` in effect.
    public let map: HLSMap?
    /// `#EXT-X-MEDIA-SEQUENCE` plus the segment's position (and any segments `#EXT-X-SKIP` left out).
    public let mediaSequenceNumber: Int
    public let discontinuitySequence: Int
    /// Whether `#EXT-X-DISCONTINUITY` precedes the segment.
    public let isDiscontinuity: Bool
    /// Whether `#EXT-X-GAP` marks the segment as missing.
    public let isGap: Bool
    /// The segment's own `#EXT-X-PROGRAM-DATE-TIME`, nil when it has none or it cannot be read.
    public let programDateTime: Date?
    /// The 1-based line number of the URI line.
    public let line: Int
    /// The 1-based line numbers of the segment's tags and URI line: from the line after the
    /// previous segment's URI line (from line 1 for the first segment) to its own URI line.
    public let lines: ClosedRange<Int>

    /// The first key in effect, for the common single-key case.
    public var key: HLSKey? { keys.first }

    public init(
        uri: String, duration: Double, title: String? = nil, byteRange: HLSByteRange? = nil, keys: [HLSKey] = [],
        map: HLSMap? = nil, mediaSequenceNumber: Int = 0, discontinuitySequence: Int = 0,
        isDiscontinuity: Bool = false, isGap: Bool = false, programDateTime: Date? = nil, line: Int = 0,
        lines: ClosedRange<Int>? = nil
    ) {
        self.uri = uri
        self.duration = duration
        self.title = title
        self.byteRange = byteRange
        self.keys = keys
        self.map = map
        self.mediaSequenceNumber = mediaSequenceNumber
        self.discontinuitySequence = discontinuitySequence
        self.isDiscontinuity = isDiscontinuity
        self.isGap = isGap
        self.programDateTime = programDateTime
        self.line = line
        self.lines = lines ?? line...line
    }
}
