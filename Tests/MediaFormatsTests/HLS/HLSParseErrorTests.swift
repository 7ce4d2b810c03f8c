import Foundation
import MediaFormats
import Testing
import TunerTesting

@Suite("HLS parse errors")
struct HLSParseErrorTests {
    @Test(arguments: [
        ("", HLSParseError.Kind.missingHeader, 1),
        ("#EXT-X-VERSION:3\n", .missingHeader, 1),
        ("# comment\n#EXTM3U\n", .missingHeader, 1),
        ("#EXTM3U#EXT-X-STREAM-INF:BANDWIDTH=1\na.m3u8\n", .missingHeader, 1),
        ("\u{FEFF}#EXTM3U\n", .byteOrderMark, 1),
        ("#EXTM3U\n#EXT-X-VERSION:three\n", .invalidTagValue, 2),
        ("#EXTM3U\n#EXT-X-TARGETDURATION:2.5\n", .invalidTagValue, 2),
        ("#EXTM3U\n#EXT-X-MEDIA-SEQUENCE:-1\n", .invalidTagValue, 2),
        ("#EXTM3U\n#EXT-X-ENDLIST:YES\n", .invalidTagValue, 2),
        ("#EXTM3U\n#EXT-X-PLAYLIST-TYPE:LIVE\n", .invalidTagValue, 2),
        ("#EXTM3U\n#EXTINF:abc,\na.ts\n", .invalidTagValue, 2),
        ("#EXTM3U\n#EXTINF:\na.ts\n", .invalidTagValue, 2),
        ("#EXTM3U\n#EXTINF:4,\n#EXT-X-BYTERANGE:12@x\na.ts\n", .invalidTagValue, 3),
        ("#EXTM3U\n#EXT-X-VERSION:3\n#EXT-X-VERSION:4\n", .duplicateTag, 3),
        ("#EXTM3U\n#EXTINF:4,\n#EXT-X-ENDLIST\n#EXT-X-ENDLIST\n", .duplicateTag, 4),
        ("#EXTM3U\n#EXTINF:4,\n#EXTINF:4,\na.ts\n", .misplacedTag, 3),
        ("#EXTM3U\n#EXTINF:4,\na.ts\n#EXT-X-DISCONTINUITY-SEQUENCE:2\n", .misplacedTag, 4),
        ("#EXTM3U\na.ts\n", .uriWithoutTag, 2),
        ("#EXTM3U\n#EXTINF:4,\na.ts\n#EXTINF:4,\n#EXT-X-ENDLIST\n", .missingURI, 4),
        ("#EXTM3U\n#EXT-X-MAP\n", .missingAttribute, 2),
        ("#EXTM3U\n#EXT-X-MEDIA:TYPE=AUDIO,NAME=\"x\"\n", .missingAttribute, 2),
        ("#EXTM3U\n#EXT-X-SESSION-KEY:METHOD=NONE\n", .invalidAttributeValue, 2),
        ("#EXTM3U\n#EXT-X-KEY:METHOD=AES-128,URI=\"k\n", .invalidAttributeList, 2),
        ("#EXTM3U\n#EXT-X-DEFINE:VALUE=\"x\"\n", .missingAttribute, 2),
        ("#EXTM3U\n#EXT-X-BYTERANGE:100\n#EXTINF:4,\na.ts\n", .invalidByteRange, 2),
    ])
    func namesTheLineAndTheProblem(text: String, code: HLSParseError.Kind, line: Int) {
        let error = HLSTestSupport.parseError(text)
        #expect(error?.kind == code, "\(String(describing: error))")
        #expect(error?.line == line)
        #expect(error?.description.hasPrefix("line \(line): ") == true)
    }

    @Test func invalidUTF8IsReported() {
        let bytes: [UInt8] = Array("#EXTM3U\n#EXTINF:4,\n".utf8) + [0x61, 0xFF, 0x2E, 0x74, 0x73, 0x0A]
        #expect {
            _ = try HLSPlaylist(parsing: bytes)
        } throws: { error in
            (error as? HLSParseError)?.kind == .invalidUTF8 && (error as? HLSParseError)?.line == 3
        }
        let lenient = try? HLSPlaylist(parsing: bytes, configuration: .lenient)
        #expect(lenient?.serializedBytes() == bytes, "lenient parses pass invalid bytes through unchanged")
    }

    @Test func lenientParseCollectsWarningsAndKeepsGoing() throws {
        let text = """
            #EXTM3U
            #EXT-X-TARGETDURATION:2.5
            #EXT-X-TARGETDURATION:3
            #EXTINF:4,
            a.ts
            JUNK
            #EXTINF:4,
            """
        let playlist = try HLSPlaylist(parsing: text, configuration: .lenient)
        #expect(playlist.warnings.map(\.kind) == [.invalidTagValue, .duplicateTag, .uriWithoutTag, .missingURI])
        #expect(playlist.warnings.map(\.line) == [2, 3, 6, 7])
        #expect(playlist.targetDuration == 3)
        #expect(playlist.segments.map(\.uri) == ["a.ts"])
        #expect(playlist.uriReferences.map(\.uri) == ["a.ts", "JUNK"])
        #expect(playlist.serialized() == HLSTestSupport.normalized(text))
    }

    /// Mutated playlists must give a value or an error, never a crash; the lenient parse of any
    /// input must round-trip.
    @Test func neverCrashesOnMutatedInput() throws {
        let seeds = [
            HLSMasterPlaylistTests.master, HLSLowLatencyTests.playlist, HLSMediaPlaylistTests.vod,
            "#EXTM3U\n#EXT-X-DEFINE:NAME=\"a\",VALUE=\"b\"\n#EXT-X-KEY:METHOD=AES-128,URI=\"{$a}\",IV=0x1\n#EXTINF:1,\n#EXT-X-BYTERANGE:1@2\nx{$a}\n",
        ]
        let alphabet = Array("#EXT-XINF:,=\"@{$}0123456789.\n\r \tURIABC-x".utf8)
        var generator = SplitMix64(seed: 0x5EED)
        for seed in seeds {
            let original = Array(seed.utf8)
            for _ in 0..<400 {
                var bytes = original
                for _ in 0..<Int.random(in: 1...6, using: &generator) {
                    let position = Int.random(in: 0...bytes.count, using: &generator)
                    switch Int.random(in: 0..<3, using: &generator) {
                    case 0 where position < bytes.count: bytes.remove(at: position)
                    case 1: bytes.insert(alphabet.randomElement(using: &generator)!, at: position)
                    default:
                        if position < bytes.count { bytes[position] = UInt8.random(in: 0...255, using: &generator) }
                    }
                }
                _ = try? HLSPlaylist(parsing: bytes)
                let lenient = try HLSPlaylist(parsing: bytes, configuration: .lenient)
                #expect(lenient.serializedBytes() == HLSTestSupport.normalized(bytes))
                _ = Array(lenient.segments)
                _ = (lenient.variants, lenient.iFrameVariants, lenient.renditions, lenient.parts, lenient.tags)
                let rewritten = HLSRewriter(baseURL: URL(string: "https://example.com/a/b.m3u8")!)
                    .rewrite(lenient) { _, _ in "http://proxy/x" }
                _ = rewritten.serializedBytes()
            }
        }
    }

    @Test func everyPrefixOfAPlaylistParsesOrFails() {
        let bytes = Array(HLSMasterPlaylistTests.master.utf8) + Array(HLSLowLatencyTests.playlist.utf8)
        for end in 0...bytes.count {
            let prefix = Array(bytes[..<end])
            _ = try? HLSPlaylist(parsing: prefix)
            #expect(
                (try? HLSPlaylist(parsing: prefix, configuration: .lenient))?.serializedBytes()
                    == HLSTestSupport.normalized(prefix))
        }
    }
}
