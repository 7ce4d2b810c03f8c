import Foundation
import Testing

@testable import LiveTV
@testable import TunerApp

/// The file names an HLS session serves and the playlist Xtream's `.m3u8` hands out.
@Suite struct LiveHLSSessionTests {
    func session(_ format: LiveHLSSession.Format) -> LiveHLSSession {
        LiveHLSSession(
            id: "abc", channelID: 7, channelName: "News", format: format, directory: "/nonexistent",
            settings: LiveSettings(), logger: .init(label: "test"))
    }

    @Test("Only seg-<digits> with the format's extension names a segment")
    func segmentNames() {
        let ts = session(.mpegTS)
        for name in ["seg-0.ts", "seg-12345.ts"] { #expect(ts.isSegmentName(name), "\(name)") }
        for name in ["seg-.ts", "seg-1.m4s", "seg-1.ts.bak", "seg-../1.ts", "seg-1/.ts", "x-1.ts", "seg-１.ts"] {
            #expect(!ts.isSegmentName(name), "\(name)")
        }
        #expect(ts.isSegmentName("seg-" + String(repeating: "9", count: 40) + ".ts") == false, "bounded length")
        let browser = session(.browser)
        #expect(browser.isSegmentName("seg-3.m4s") && !browser.isSegmentName("seg-3.ts"))
        #expect(LiveHLSSession.Format.mpegTS.playlistName == "index.m3u8")
        #expect(LiveHLSSession.playlistName == "live.m3u8")
    }

    @Test("Segment URIs get the prefix; tags, blank lines and the rest of the text do not")
    func playlistPrefix() {
        let playlist = """
            #EXTM3U
            #EXT-X-VERSION:3
            #EXT-X-TARGETDURATION:2
            #EXT-X-MEDIA-SEQUENCE:4
            #EXTINF:2.000000,
            seg-4.ts
            #EXTINF:2.000000,
            seg-5.ts

            """
        let text = String(
            decoding: LiveHLSSession.playlist(Data(playlist.utf8), prefixingURIsWith: "7/abc/"), as: UTF8.self)
        #expect(
            text == playlist.replacingOccurrences(of: "\nseg-", with: "\n7/abc/seg-"),
            "\(text)")
        #expect(text.components(separatedBy: "7/abc/").count == 3)
    }
}
