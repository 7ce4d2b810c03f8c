import Foundation
import MediaFormats
import Testing

@Suite("HLS byte ranges, keys and maps")
struct HLSByteRangeAndKeyTests {
    @Test func byteRangeWithoutOffsetContinuesAfterThePreviousRangeOfTheSameURI() throws {
        let playlist = try HLSPlaylist(
            parsing: """
                #EXTM3U
                #EXTINF:10,
                #EXT-X-BYTERANGE:75232@0
                video.ts
                #EXT-X-BYTERANGE:82112
                #EXTINF:10,
                video.ts
                #EXTINF:10,
                #EXT-X-BYTERANGE:1000@500
                audio.aac
                #EXTINF:10,
                #EXT-X-BYTERANGE:69864
                video.ts
                #EXTINF:10,
                #EXT-X-BYTERANGE:10
                audio.aac
                #EXTINF:10,
                whole.ts
                """)
        #expect(
            playlist.segments.map(\.byteRange) == [
                HLSByteRange(length: 75232, offset: 0),
                HLSByteRange(length: 82112, offset: 75232),
                HLSByteRange(length: 1000, offset: 500),
                HLSByteRange(length: 69864, offset: 157_344),
                HLSByteRange(length: 10, offset: 1500),
                nil,
            ])
        #expect(playlist.segments[1].byteRange?.range == 75232..<157_344)
        #expect(HLSByteRange(length: 5, offset: 7).description == "5@7")
    }

    @Test func byteRangeWithoutOffsetAndWithoutPredecessorIsAnError() {
        let error = HLSTestSupport.parseError("#EXTM3U\n#EXTINF:10,\n#EXT-X-BYTERANGE:100\nvideo.ts\n")
        #expect(error?.kind == .invalidByteRange)
        #expect(error?.line == 3)
        #expect(error?.description.contains("video.ts") == true)
    }

    @Test func byteRangeTagMayPrecedeTheMapTag() throws {
        let playlist = try HLSPlaylist(
            parsing: """
                #EXTM3U
                #EXT-X-BYTERANGE:10000@24000
                #EXT-X-MAP:URI="init.m4v",BYTERANGE="24000@0"
                #EXTINF:4.000,
                lo007.m4v
                #EXT-X-BYTERANGE:30000
                #EXTINF:4.000,
                lo007.m4v
                """)
        #expect(
            playlist.segments.map(\.byteRange) == [
                HLSByteRange(length: 10000, offset: 24000), HLSByteRange(length: 30000, offset: 34000),
            ])
        #expect(playlist.segments[0].map?.byteRange == HLSByteRange(length: 24000, offset: 0))
        #expect(playlist.segments[0].map?.uri == "init.m4v")
    }

    @Test func mapInEffectChangesAtEachMapTag() throws {
        let playlist = try HLSPlaylist(
            parsing: """
                #EXTM3U
                #EXTINF:4,
                before.mp4
                #EXT-X-MAP:URI="main.mp4"
                #EXTINF:4,
                a.mp4
                #EXTINF:4,
                b.mp4
                #EXT-X-DISCONTINUITY
                #EXT-X-MAP:URI="alt.mp4",BYTERANGE="718"
                #EXTINF:4,
                c.mp4
                """)
        #expect(playlist.segments.map { $0.map?.uri } == [nil, "main.mp4", "main.mp4", "alt.mp4"])
        #expect(playlist.segments[3].map?.byteRange == HLSByteRange(length: 718, offset: 0))
        #expect(playlist.segments[3].map?.line == 10)
    }

    @Test func keysInEffectFollowMethodNoneAndKeyFormat() throws {
        let playlist = try HLSPlaylist(
            parsing: """
                #EXTM3U
                #EXTINF:4,
                clear.ts
                #EXT-X-KEY:METHOD=AES-128,URI="key1.bin",IV=0x10ef8f758ca555115584bb5b3c687f52
                #EXTINF:4,
                a.ts
                #EXT-X-KEY:METHOD=SAMPLE-AES,URI="skd://fairplay",KEYFORMAT="com.apple.streamingkeydelivery",KEYFORMATVERSIONS="1"
                #EXTINF:4,
                b.ts
                #EXT-X-KEY:METHOD=AES-128,URI="key2.bin"
                #EXTINF:4,
                c.ts
                #EXT-X-KEY:METHOD=NONE
                #EXTINF:4,
                d.ts
                """)
        let keys = playlist.segments.map { $0.keys.map { $0.uri ?? "-" } }
        #expect(keys == [[], ["key1.bin"], ["key1.bin", "skd://fairplay"], ["skd://fairplay", "key2.bin"], []])
        let fairPlay = try #require(playlist.segments[2].keys.last)
        #expect(fairPlay.method == .sampleAES)
        #expect(fairPlay.keyFormat == "com.apple.streamingkeydelivery")
        #expect(fairPlay.keyFormatVersions == "1")
        #expect(fairPlay.line == 7)
        let first = try #require(playlist.segments[1].key)
        #expect(first.method == .aes128)
        #expect(first.keyFormat == "identity")
        #expect(first.iv == "0x10ef8f758ca555115584bb5b3c687f52")
        #expect(first.attributes["IV"]?.hexadecimalBytes?.count == 16)
    }

    @Test func keyWithMethodOtherThanNoneNeedsAURI() {
        let error = HLSTestSupport.parseError("#EXTM3U\n#EXT-X-KEY:METHOD=AES-128\n#EXTINF:4,\na.ts\n")
        #expect(error?.kind == .missingAttribute)
        #expect(error?.line == 2)
    }
}
