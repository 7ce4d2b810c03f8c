import Foundation
import MediaFormats
import Testing

@Suite("HLS media playlists")
struct HLSMediaPlaylistTests {
    static let vod = """
        #EXTM3U
        #EXT-X-VERSION:3
        #EXT-X-TARGETDURATION:10
        #EXT-X-MEDIA-SEQUENCE:7
        #EXT-X-PLAYLIST-TYPE:VOD
        # a comment
        #EXTINF:9.009,First, with a comma
        first.ts
        #EXT-X-CUE-OUT:30
        #EXTINF:10
        second.ts

        #EXTINF:3.003,
        https://cdn.example.com/third.ts
        #EXT-X-ENDLIST
        """

    @Test func readsThePlaylistWideTags() throws {
        let playlist = try HLSPlaylist(parsing: Self.vod)
        #expect(!playlist.isMaster)
        #expect(playlist.version == 3)
        #expect(playlist.targetDuration == 10)
        #expect(playlist.mediaSequence == 7)
        #expect(playlist.playlistType == .vod)
        #expect(playlist.isEndList)
        #expect(!playlist.isLive)
        #expect(playlist.warnings.isEmpty)
    }

    @Test func readsSegmentsWithDurationTitleAndSequenceNumber() throws {
        let segments = Array(try HLSPlaylist(parsing: Self.vod).segments)
        #expect(segments.map(\.uri) == ["first.ts", "second.ts", "https://cdn.example.com/third.ts"])
        #expect(segments.map(\.duration) == [9.009, 10, 3.003])
        #expect(segments.map(\.title) == ["First, with a comma", nil, ""])
        #expect(segments.map(\.mediaSequenceNumber) == [7, 8, 9])
        #expect(segments.map(\.line) == [8, 11, 14])
        #expect(segments[1].lines == 9...11)
        #expect(segments.allSatisfy { $0.byteRange == nil && $0.keys.isEmpty && $0.map == nil })
    }

    @Test func keepsCommentsUnknownTagsAndBlankLinesInOrder() throws {
        let lines = Array(try HLSPlaylist(parsing: Self.vod).lines)
        #expect(lines.count == 15)
        #expect(lines[5] == HLSLine(kind: .comment, number: 6, text: "# a comment"))
        #expect(lines[8] == HLSLine(kind: .tag, number: 9, text: "#EXT-X-CUE-OUT:30", tagName: "EXT-X-CUE-OUT"))
        #expect(lines[11].kind == .blank)
        #expect(lines[7] == HLSLine(kind: .uri, number: 8, text: "first.ts"))
    }

    @Test func exposesTagsWithTheirValues() throws {
        let playlist = try HLSPlaylist(parsing: Self.vod)
        let cue = try #require(playlist.firstTag(named: "EXT-X-CUE-OUT"))
        #expect(cue.value == "30")
        #expect(cue.line == 9)
        #expect(!cue.name.isKnown)
        #expect(playlist.tags(named: .extInf).count == 3)
        #expect(playlist.tags(named: .targetDuration).first?.value == "10")
        #expect(HLSTagName.extInf.isKnown)
    }

    @Test func liveWithoutEndListOrVODType() throws {
        let live = try HLSPlaylist(parsing: "#EXTM3U\n#EXT-X-TARGETDURATION:6\n#EXTINF:6,\na.ts\n")
        #expect(live.isLive)
        #expect(live.mediaSequence == 0)
        #expect(live.playlistType == nil)
        let event = try HLSPlaylist(parsing: "#EXTM3U\n#EXT-X-PLAYLIST-TYPE:EVENT\n#EXTINF:6,\na.ts\n")
        #expect(event.isLive)
        #expect(event.playlistType == .event)
        let vodWithoutEndList = try HLSPlaylist(parsing: "#EXTM3U\n#EXT-X-PLAYLIST-TYPE:VOD\n#EXTINF:6,\na.ts\n")
        #expect(!vodWithoutEndList.isLive)
    }

    @Test func acceptsCommalessAndSpacedDurations() throws {
        let playlist = try HLSPlaylist(
            parsing: "#EXTM3U\n#EXTINF:5220\na.ts\n#EXTINF: 11.5,x\nb.ts\n#EXTINF:.360,\nc.ts\n")
        #expect(playlist.segments.map(\.duration) == [5220, 11.5, 0.36])
        #expect(playlist.segments.map(\.title) == [nil, "x", ""])
    }

    @Test func readsLongDurationsExactly() throws {
        let playlist = try HLSPlaylist(
            parsing: "#EXTM3U\n#EXTINF:10.0000000000000000001,\na.ts\n#EXTINF:6.006,\nb.ts\n")
        #expect(playlist.segments.map(\.duration) == [10.0000000000000000001, 6.006])
    }

    @Test func sumsDurations() throws {
        #expect(try HLSPlaylist(parsing: Self.vod).totalDuration == 9.009 + 10 + 3.003)
    }

    @Test func readsDiscontinuitiesAndGaps() throws {
        let playlist = try HLSPlaylist(
            parsing: """
                #EXTM3U
                #EXT-X-DISCONTINUITY-SEQUENCE:4
                #EXTINF:4,
                a.ts
                #EXT-X-DISCONTINUITY
                #EXTINF:4,
                b.ts
                #EXT-X-GAP
                #EXTINF:4,
                c.ts
                """)
        #expect(playlist.discontinuitySequence == 4)
        #expect(playlist.segments.map(\.discontinuitySequence) == [4, 5, 5])
        #expect(playlist.segments.map(\.isDiscontinuity) == [false, true, false])
        #expect(playlist.segments.map(\.isGap) == [false, false, true])
    }

    @Test func readsProgramDateTimes() throws {
        let playlist = try HLSPlaylist(
            parsing: """
                #EXTM3U
                #EXT-X-PROGRAM-DATE-TIME:2024-01-12T10:00:00.250Z
                #EXTINF:4,
                a.ts
                #EXTINF:4,
                b.ts
                #EXT-X-PROGRAM-DATE-TIME:2018-12-31T09:47:22+08:00
                #EXTINF:4,
                c.ts
                #EXT-X-PROGRAM-DATE-TIME:foo
                #EXTINF:4,
                d.ts
                """)
        let dates = playlist.segments.map(\.programDateTime)
        #expect(dates[0] == Date(timeIntervalSince1970: 1_705_053_600.25))
        #expect(dates[1] == nil)
        #expect(dates[2] == Date(timeIntervalSince1970: 1_546_220_842))
        #expect(dates[3] == nil, "an unreadable date is not an error, and reads as nil")
    }

    @Test func readsIFramesOnlyIndependentSegmentsAndStart() throws {
        let playlist = try HLSPlaylist(
            parsing: """
                #EXTM3U
                #EXT-X-I-FRAMES-ONLY
                #EXT-X-INDEPENDENT-SEGMENTS
                #EXT-X-START:TIME-OFFSET=-12.5,PRECISE=YES
                #EXTINF:4,
                #EXT-X-BYTERANGE:100@0
                a.ts
                """)
        #expect(playlist.isIFramesOnly)
        #expect(playlist.hasIndependentSegments)
        #expect(playlist.start == HLSPlaylist.Start(timeOffset: -12.5, isPrecise: true))
    }

    @Test func acceptsIPTVStylePlaylistsLeniently() throws {
        let text = """
            #EXTM3U url-tvg="http://epg.example.com/guide.xml"
            #EXTVLCOPT:http-user-agent=Foo
            #EXTINF:-1 tvg-id="one" group-title="News, Sports",Channel One
            http://iptv.example.com/1.ts
            """
        let playlist = try HLSPlaylist(parsing: text, configuration: .lenient)
        #expect(playlist.segments.map(\.uri) == ["http://iptv.example.com/1.ts"])
        #expect(playlist.segments.map(\.title) == ["Channel One"])
        #expect(playlist.segments.first?.duration == -1)
        #expect(playlist.warnings.map(\.kind) == [.invalidTagValue])
        #expect(playlist.serialized() == HLSTestSupport.normalized(text))
        // Strictly, -1 is not an HLS duration.
        #expect(HLSTestSupport.parseError(text)?.line == 3)
    }
}
