import Foundation
import MediaFormats
import Testing

@Suite("HLS master playlists")
struct HLSMasterPlaylistTests {
    static let master = """
        #EXTM3U
        #EXT-X-VERSION:6
        #EXT-X-INDEPENDENT-SEGMENTS
        #EXT-X-CONTENT-STEERING:SERVER-URI="/steering?video=00012",PATHWAY-ID="CDN-A"
        #EXT-X-SESSION-DATA:DATA-ID="com.example.title",VALUE="Title"
        #EXT-X-SESSION-KEY:METHOD=SAMPLE-AES,URI="skd://key",KEYFORMAT="com.apple.streamingkeydelivery"
        #EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID="aac",NAME="English",LANGUAGE="en",DEFAULT=YES,AUTOSELECT=YES,URI="audio/en.m3u8"
        #EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID="aac",NAME="Français",LANGUAGE="fr",URI="audio/fr.m3u8"
        #EXT-X-MEDIA:TYPE=CLOSED-CAPTIONS,GROUP-ID="cc",NAME="CC1",INSTREAM-ID="CC1"
        #EXT-X-STREAM-INF:BANDWIDTH=1280000,AVERAGE-BANDWIDTH=1000000,CODECS="avc1.4d401f, mp4a.40.2",RESOLUTION=640x360,FRAME-RATE=29.970,AUDIO="aac",CLOSED-CAPTIONS="cc"
        low/index.m3u8
        # a comment between variants
        #EXT-X-STREAM-INF:BANDWIDTH=7680000,RESOLUTION=1920x1080,AUDIO="aac",CLOSED-CAPTIONS=NONE,HDCP-LEVEL=TYPE-0,VIDEO-RANGE=PQ

        https://cdn.example.com/hi/index.m3u8
        #EXT-X-I-FRAME-STREAM-INF:BANDWIDTH=86000,CODECS="avc1.4d401f",URI="low/iframe.m3u8"
        """

    @Test func isMaster() throws {
        let playlist = try HLSPlaylist(parsing: Self.master)
        #expect(playlist.isMaster)
        #expect(!playlist.isLive)
        #expect(playlist.segments.isEmpty)
        #expect(playlist.version == 6)
        #expect(playlist.hasIndependentSegments)
    }

    @Test func readsVariants() throws {
        let variants = try HLSPlaylist(parsing: Self.master).variants
        #expect(variants.map(\.uri) == ["low/index.m3u8", "https://cdn.example.com/hi/index.m3u8"])
        #expect(variants.map(\.bandwidth) == [1_280_000, 7_680_000])
        #expect(variants.map(\.averageBandwidth) == [1_000_000, nil])
        #expect(
            variants.map(\.resolution) == [
                HLSResolution(width: 640, height: 360), HLSResolution(width: 1920, height: 1080),
            ])
        #expect(variants[0].codecs == "avc1.4d401f, mp4a.40.2")
        #expect(variants[0].codecList == ["avc1.4d401f", "mp4a.40.2"])
        #expect(variants[0].frameRate == 29.97)
        #expect(variants.map(\.audioGroup) == ["aac", "aac"])
        #expect(variants.map(\.closedCaptionsGroup) == ["cc", nil])
        #expect(variants[1].hdcpLevel == "TYPE-0")
        #expect(variants[1].videoRange == "PQ")
        #expect(variants.map(\.line) == [10, 13])
        #expect(variants.map(\.uriLine) == [11, 15])
        #expect(variants[0].attributes["AVERAGE-BANDWIDTH"]?.integer == 1_000_000)
    }

    @Test func readsIFrameVariants() throws {
        let variants = try HLSPlaylist(parsing: Self.master).iFrameVariants
        #expect(variants.count == 1)
        #expect(variants[0].uri == "low/iframe.m3u8")
        #expect(variants[0].bandwidth == 86000)
        #expect(variants[0].isIFrameOnly)
        #expect(variants[0].line == 16)
    }

    @Test func readsRenditions() throws {
        let renditions = try HLSPlaylist(parsing: Self.master).renditions
        #expect(renditions.map(\.type) == [.audio, .audio, .closedCaptions])
        #expect(renditions.map(\.name) == ["English", "Français", "CC1"])
        #expect(renditions.map(\.uri) == ["audio/en.m3u8", "audio/fr.m3u8", nil])
        #expect(renditions.map(\.isDefault) == [true, false, false])
        #expect(renditions.map(\.isAutoselect) == [true, false, false])
        #expect(renditions[2].instreamID == "CC1")
        #expect(renditions.allSatisfy { $0.groupID == "aac" || $0.groupID == "cc" })
    }

    @Test func readsSessionKeysSessionDataAndSteering() throws {
        let playlist = try HLSPlaylist(parsing: Self.master)
        #expect(playlist.sessionKeys.map(\.uri) == ["skd://key"])
        #expect(playlist.sessionKeys.first?.method == .sampleAES)
        #expect(playlist.firstTag(named: .sessionData)?.attributes["VALUE"]?.text == "Title")
        #expect(playlist.firstTag(named: .contentSteering)?.attributes["PATHWAY-ID"]?.text == "CDN-A")
    }

    @Test func variantNeedsBandwidthAndAURILine() {
        #expect(
            HLSTestSupport.parseError("#EXTM3U\n#EXT-X-STREAM-INF:RESOLUTION=1x1\na.m3u8\n")?.kind == .missingAttribute)
        let noURI = HLSTestSupport.parseError(
            "#EXTM3U\n#EXT-X-STREAM-INF:BANDWIDTH=1\n#EXT-X-STREAM-INF:BANDWIDTH=2\nb.m3u8\n")
        #expect(noURI?.kind == .missingURI)
        #expect(noURI?.line == 2)
        let atEnd = HLSTestSupport.parseError("#EXTM3U\n#EXT-X-STREAM-INF:BANDWIDTH=1\n")
        #expect(atEnd?.kind == .missingURI)
        #expect(atEnd?.line == 2)
    }

    @Test func masterAndMediaTagsMustNotMix() {
        let error = HLSTestSupport.parseError(
            "#EXTM3U\n#EXT-X-TARGETDURATION:10\n#EXT-X-STREAM-INF:BANDWIDTH=1\na.m3u8\n")
        #expect(error?.kind == .mixedPlaylistKinds)
        #expect(error?.line == 3)
        #expect(error?.description.contains("EXT-X-TARGETDURATION") == true)
    }
}
