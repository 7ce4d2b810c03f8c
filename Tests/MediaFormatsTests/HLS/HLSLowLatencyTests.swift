import Foundation
import MediaFormats
import Testing

@Suite("HLS low-latency and delta updates")
struct HLSLowLatencyTests {
    static let playlist = """
        #EXTM3U
        #EXT-X-TARGETDURATION:4
        #EXT-X-VERSION:9
        #EXT-X-SERVER-CONTROL:CAN-BLOCK-RELOAD=YES,PART-HOLD-BACK=1.0,CAN-SKIP-UNTIL=12.0
        #EXT-X-PART-INF:PART-TARGET=0.33334
        #EXT-X-MEDIA-SEQUENCE:266
        #EXT-X-SKIP:SKIPPED-SEGMENTS=3
        #EXTINF:4.00008,
        fileSequence269.mp4
        #EXT-X-PART:DURATION=0.33334,URI="part270.mp4",BYTERANGE="20000@0",INDEPENDENT=YES
        #EXT-X-PART:DURATION=0.33334,URI="part270.mp4",BYTERANGE="23000"
        #EXTINF:4.00008,
        fileSequence270.mp4
        #EXT-X-PART:DURATION=0.33334,URI="part271.a.mp4",GAP=YES
        #EXT-X-PRELOAD-HINT:TYPE=PART,URI="part271.b.mp4"
        #EXT-X-RENDITION-REPORT:URI="../1M/waitForMSN.php",LAST-MSN=270,LAST-PART=2
        """

    @Test func readsServerControlAndPartTarget() throws {
        let playlist = try HLSPlaylist(parsing: Self.playlist)
        #expect(playlist.partTargetDuration == 0.33334)
        #expect(
            playlist.serverControl
                == HLSPlaylist.ServerControl(
                    canBlockReload: true, canSkipUntil: 12, canSkipDateRanges: false, holdBack: nil, partHoldBack: 1))
    }

    @Test func skippedSegmentsCountInTheMediaSequence() throws {
        let playlist = try HLSPlaylist(parsing: Self.playlist)
        #expect(playlist.skippedSegments == 3)
        #expect(playlist.segments.map(\.mediaSequenceNumber) == [269, 270])
    }

    @Test func readsPartsWithResolvedByteRangesAndTheirSegment() throws {
        let parts = try HLSPlaylist(parsing: Self.playlist).parts
        #expect(parts.map(\.uri) == ["part270.mp4", "part270.mp4", "part271.a.mp4"])
        #expect(
            parts.map(\.byteRange) == [
                HLSByteRange(length: 20000, offset: 0), HLSByteRange(length: 23000, offset: 20000), nil,
            ])
        #expect(parts.map(\.mediaSequenceNumber) == [270, 270, 271])
        #expect(parts.map(\.isIndependent) == [true, false, false])
        #expect(parts.map(\.isGap) == [false, false, true])
        #expect(parts.map(\.duration) == [0.33334, 0.33334, 0.33334])
    }

    @Test func readsPreloadHintsAndRenditionReportsAsTags() throws {
        let playlist = try HLSPlaylist(parsing: Self.playlist)
        #expect(playlist.firstTag(named: .preloadHint)?.attributes["TYPE"]?.text == "PART")
        let report = try #require(playlist.firstTag(named: .renditionReport))
        #expect(report.attributes["LAST-MSN"]?.integer == 270)
        #expect(report.attributes["URI"]?.text == "../1M/waitForMSN.php")
    }

    @Test func partNeedsDurationAndURI() {
        let error = HLSTestSupport.parseError("#EXTM3U\n#EXT-X-PART:URI=\"a.mp4\"\n")
        #expect(error?.kind == .missingAttribute)
        #expect(error?.description.contains("DURATION") == true)
    }

    @Test func partByteRangeMustBeQuoted() {
        let error = HLSTestSupport.parseError("#EXTM3U\n#EXT-X-PART:DURATION=1,URI=\"a.mp4\",BYTERANGE=100@0\n")
        #expect(error?.kind == .invalidAttributeValue)
        #expect(error?.line == 2)
    }

    @Test func mediaSequenceAfterSkipIsAllowedButNotAfterASegment() {
        let afterSkip = "#EXTM3U\n#EXT-X-SKIP:SKIPPED-SEGMENTS=191\n#EXT-X-MEDIA-SEQUENCE:7126\n#EXTINF:2,\na.mp4\n"
        #expect(HLSTestSupport.parseError(afterSkip) == nil)
        let afterSegment = "#EXTM3U\n#EXTINF:2,\na.mp4\n#EXT-X-MEDIA-SEQUENCE:7126\n#EXTINF:2,\nb.mp4\n"
        #expect(HLSTestSupport.parseError(afterSegment)?.kind == .misplacedTag)
    }
}
