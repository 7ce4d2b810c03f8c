import Foundation
import MediaFormats
import Testing

@Suite("HLS serialization")
struct HLSSerializationTests {
    @Test(arguments: [
        HLSMasterPlaylistTests.master, HLSLowLatencyTests.playlist, HLSMediaPlaylistTests.vod,
    ])
    func reproducesThePlaylist(text: String) throws {
        let playlist = try HLSPlaylist(parsing: text)
        #expect(playlist.serialized() == text + "\n")
        #expect(playlist.description == text + "\n")
        #expect(try HLSPlaylist(parsing: playlist.serialized()).serialized() == playlist.serialized())
    }

    @Test func normalisesLineEndingsAndTrailingBlanksOnly() throws {
        let text = "#EXTM3U\r\n#EXTINF:4,  title  \r\n  a.ts \t\r#EXT-X-CUSTOM:  x  \n\n  \n#EXT-X-ENDLIST"
        let playlist = try HLSPlaylist(parsing: text)
        #expect(playlist.serialized() == "#EXTM3U\n#EXTINF:4,  title\n  a.ts\n#EXT-X-CUSTOM:  x\n\n\n#EXT-X-ENDLIST\n")
        #expect(playlist.segments.first?.uri == "a.ts")
        #expect(playlist.segments.first?.title == "  title")
        #expect(playlist.lines.count == 7)
    }

    @Test func keepsBlankLinesAtTheEnd() throws {
        #expect(try HLSPlaylist(parsing: "#EXTM3U\n\n\n").serialized() == "#EXTM3U\n\n\n")
        #expect(try HLSPlaylist(parsing: "#EXTM3U").serialized() == "#EXTM3U\n")
    }

    @Test func dropsAByteOrderMarkInALenientParse() throws {
        let playlist = try HLSPlaylist(parsing: "\u{FEFF}#EXTM3U\n", configuration: .lenient)
        #expect(playlist.serialized() == "#EXTM3U\n")
        #expect(playlist.warnings.map(\.kind) == [.byteOrderMark])
    }

    @Test func serializesBytesExactly() throws {
        let text = "#EXTM3U\n#EXT-X-MEDIA:TYPE=SUBTITLES,GROUP-ID=\"s\",NAME=\"日本語\",URI=\"ja.m3u8\"\n"
        let playlist = try HLSPlaylist(parsing: Array(text.utf8))
        #expect(playlist.serializedBytes() == Array(text.utf8))
        #expect(playlist.renditions.first?.name == "日本語")
    }
}
