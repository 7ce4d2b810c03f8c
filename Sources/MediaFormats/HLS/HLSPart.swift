/// A low-latency partial segment (`#EXT-X-PART`).
public struct HLSPart: Sendable, Hashable {
    /// Variables applied, not resolved against the playlist URL.
    public let uri: String
    public let duration: Double
    public let isIndependent: Bool
    public let isGap: Bool
    /// Resolved like a segment's: a range without offset continues after the previous part of the
    /// same URI.
    public let byteRange: HLSByteRange?
    /// The media sequence number of the segment the part belongs to; the parts after the last
    /// segment belong to the segment still being produced.
    public let mediaSequenceNumber: Int
    /// The 1-based line number of the tag.
    public let line: Int
}
