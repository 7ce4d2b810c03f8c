import MediaFormats
import Testing

/// Numbers in a playlist come from whoever serves it. Each of these used to trap the process on
/// overflow; now each is a reported violation and the rest of the playlist still parses.
@Suite("HLS hostile numbers")
struct HLSHostileNumberTests {
    private let lenient = HLSParser(configuration: .lenient)

    @Test func byteRangeWhoseEndOverflowsIsRefused() throws {
        let text = """
            #EXTM3U
            #EXT-X-TARGETDURATION:4
            #EXTINF:4,
            #EXT-X-BYTERANGE:9223372036854775807@9223372036854775807
            a.ts
            #EXTINF:4,
            #EXT-X-BYTERANGE:100@0
            b.ts
            #EXT-X-ENDLIST
            """
        let playlist = try lenient.parse(text)
        #expect(playlist.segments.count == 2)
        #expect(playlist.segments[0].byteRange == nil)
        #expect(playlist.segments[1].byteRange == HLSByteRange(length: 100, offset: 0))
        #expect(playlist.warnings.contains { $0.kind == .invalidTagValue })
        #expect(throws: HLSParseError.self) { try HLSParser().parse(text) }
    }

    @Test func chainedByteRangesThatRunPastIntMaxAreRefused() throws {
        let text = """
            #EXTM3U
            #EXT-X-TARGETDURATION:4
            #EXTINF:4,
            #EXT-X-BYTERANGE:9223372036854775000@0
            a.ts
            #EXTINF:4,
            #EXT-X-BYTERANGE:9223372036854775000
            a.ts
            #EXT-X-ENDLIST
            """
        let playlist = try lenient.parse(text)
        #expect(playlist.segments[0].byteRange == HLSByteRange(length: 9_223_372_036_854_775_000, offset: 0))
        #expect(playlist.segments[1].byteRange == nil)
        #expect(playlist.warnings.contains { $0.kind == .invalidByteRange })
    }

    @Test func partByteRangesThatRunPastIntMaxAreRefused() throws {
        let text = """
            #EXTM3U
            #EXT-X-TARGETDURATION:4
            #EXT-X-PART-INF:PART-TARGET=1
            #EXT-X-PART:DURATION=1,URI="p.mp4",BYTERANGE="9223372036854775000@0"
            #EXT-X-PART:DURATION=1,URI="p.mp4",BYTERANGE="9223372036854775000"
            #EXT-X-PART:DURATION=1,URI="p.mp4",BYTERANGE="1@9223372036854775807"
            """
        let playlist = try lenient.parse(text)
        #expect(playlist.parts.count == 3)
        #expect(playlist.parts[0].byteRange != nil)
        #expect(playlist.parts[1].byteRange == nil)
        #expect(playlist.parts[2].byteRange == nil)
    }

    @Test func mapByteRangeWhoseEndOverflowsIsDropped() throws {
        let playlist = try lenient.parse(
            """
            #EXTM3U
            #EXT-X-TARGETDURATION:4
            #EXT-X-MAP:URI="init.mp4",BYTERANGE="10@9223372036854775800"
            #EXTINF:4,
            a.m4s
            """)
        #expect(playlist.segments[0].map?.uri == "init.mp4")
        #expect(playlist.segments[0].map?.byteRange == nil)
    }

    @Test func sequenceNumbersNearIntMaxNeitherTrapNorWrap() throws {
        let text = """
            #EXTM3U
            #EXT-X-TARGETDURATION:4
            #EXT-X-MEDIA-SEQUENCE:9223372036854775807
            #EXT-X-DISCONTINUITY-SEQUENCE:9223372036854775807
            #EXT-X-SKIP:SKIPPED-SEGMENTS=9223372036854775807
            #EXT-X-SKIP:SKIPPED-SEGMENTS=9007199254740991
            #EXT-X-SKIP:SKIPPED-SEGMENTS=9007199254740991
            #EXT-X-PART-INF:PART-TARGET=1
            #EXT-X-DISCONTINUITY
            #EXTINF:4,
            a.ts
            #EXT-X-PART:DURATION=1,URI="p.mp4"
            """
        let playlist = try lenient.parse(text)
        #expect(playlist.mediaSequence == 0)
        #expect(playlist.discontinuitySequence == 0)
        #expect(playlist.skippedSegments == 9_007_199_254_740_991)
        #expect(playlist.segments[0].mediaSequenceNumber == 9_007_199_254_740_991)
        #expect(playlist.parts[0].mediaSequenceNumber == 9_007_199_254_740_992)
        #expect(playlist.warnings.filter { $0.kind == .invalidTagValue }.count >= 3)
    }

    @Test func largestAllowedSequenceNumberStillCounts() throws {
        let playlist = try HLSParser().parse(
            """
            #EXTM3U
            #EXT-X-TARGETDURATION:4
            #EXT-X-MEDIA-SEQUENCE:9007199254740991
            #EXTINF:4,
            a.ts
            #EXTINF:4,
            b.ts
            """)
        #expect(playlist.segments[1].mediaSequenceNumber == 9_007_199_254_740_992)
    }
}
