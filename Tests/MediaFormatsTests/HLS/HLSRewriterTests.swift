import Foundation
import MediaFormats
import Testing

@Suite("HLS URI rewriting")
struct HLSRewriterTests {
    static let base = URL(string: "https://origin.example.com/live/chan/index.m3u8?token=abc")!

    /// Maps every URI to `proxy://<kind>/<resolved URL>`, so a test can read both back.
    static func tagging(_ url: URL, _ kind: HLSURIKind) -> String { "proxy://\(kind)/\(url.absoluteString)" }

    @Test func rewritesEveryURIOfAMediaPlaylistWithItsKind() throws {
        let text = """
            #EXTM3U
            #EXT-X-TARGETDURATION:4
            #EXT-X-KEY:METHOD=AES-128,URI="../keys/k1.bin",IV=0x01
            #EXT-X-MAP:URI="init.mp4",BYTERANGE="718@0"
            #EXT-X-DATERANGE:ID="ad",CLASS="com.apple.hls.interstitial",START-DATE="2024-01-12T10:00:10Z",X-ASSET-URI="ad.m3u8",X-ASSET-LIST="list.json"
            #EXTINF:4,
            seg1.m4s
            #EXT-X-PART:DURATION=1,URI="part2.0.m4s"
            #EXT-X-PRELOAD-HINT:TYPE=PART,URI="part2.1.m4s"
            #EXT-X-PRELOAD-HINT:TYPE=MAP,URI="init2.mp4"
            #EXT-X-RENDITION-REPORT:URI="/live/other/index.m3u8",LAST-MSN=1
            #EXT-X-CUSTOM-URI:http://untouched.example.com/x
            # http://untouched.example.com/comment
            """
        let playlist = try HLSPlaylist(parsing: text)
        let rewritten = HLSRewriter(baseURL: Self.base).rewrite(playlist, Self.tagging)
        let expected = """
            #EXTM3U
            #EXT-X-TARGETDURATION:4
            #EXT-X-KEY:METHOD=AES-128,URI="proxy://key/https://origin.example.com/live/keys/k1.bin",IV=0x01
            #EXT-X-MAP:URI="proxy://map/https://origin.example.com/live/chan/init.mp4",BYTERANGE="718@0"
            #EXT-X-DATERANGE:ID="ad",CLASS="com.apple.hls.interstitial",START-DATE="2024-01-12T10:00:10Z",X-ASSET-URI="proxy://playlist/https://origin.example.com/live/chan/ad.m3u8",X-ASSET-LIST="proxy://other/https://origin.example.com/live/chan/list.json"
            #EXTINF:4,
            proxy://segment/https://origin.example.com/live/chan/seg1.m4s
            #EXT-X-PART:DURATION=1,URI="proxy://part/https://origin.example.com/live/chan/part2.0.m4s"
            #EXT-X-PRELOAD-HINT:TYPE=PART,URI="proxy://part/https://origin.example.com/live/chan/part2.1.m4s"
            #EXT-X-PRELOAD-HINT:TYPE=MAP,URI="proxy://map/https://origin.example.com/live/chan/init2.mp4"
            #EXT-X-RENDITION-REPORT:URI="proxy://playlist/https://origin.example.com/live/other/index.m3u8",LAST-MSN=1
            #EXT-X-CUSTOM-URI:http://untouched.example.com/x
            # http://untouched.example.com/comment

            """
        #expect(rewritten.serialized() == expected)
        // The rewritten playlist is a playlist like any other.
        let reparsed = try HLSPlaylist(parsing: rewritten.serialized())
        #expect(reparsed.segments.first?.map?.byteRange == HLSByteRange(length: 718, offset: 0))
        #expect(rewritten.segments.first?.uri == "proxy://segment/https://origin.example.com/live/chan/seg1.m4s")
        #expect(rewritten.segments.first?.key?.uri == "proxy://key/https://origin.example.com/live/keys/k1.bin")
    }

    @Test func rewritesEveryURIOfAMasterPlaylistWithItsKind() throws {
        let playlist = try HLSPlaylist(parsing: HLSMasterPlaylistTests.master)
        let references = playlist.uriReferences
        #expect(
            references.map(\.uri) == [
                "/steering?video=00012", "skd://key", "audio/en.m3u8", "audio/fr.m3u8", "low/index.m3u8",
                "https://cdn.example.com/hi/index.m3u8", "low/iframe.m3u8",
            ])
        #expect(references.map(\.kind) == [.other, .key, .playlist, .playlist, .playlist, .playlist, .playlist])
        #expect(references.map(\.attribute) == ["SERVER-URI", "URI", "URI", "URI", nil, nil, "URI"])
        #expect(
            references.map(\.tagName) == [.contentSteering, .sessionKey, .media, .media, nil, nil, .iFrameStreamInf])
        #expect(references.map(\.line) == [4, 6, 7, 8, 11, 15, 16])

        var seen: [(String, HLSURIKind)] = []
        let rewritten = HLSRewriter(baseURL: Self.base).rewrite(playlist) { url, kind in
            seen.append((url.absoluteString, kind))
            return "http://127.0.0.1/\(seen.count)"
        }
        #expect(
            seen.map(\.0) == [
                "https://origin.example.com/steering?video=00012", "skd://key",
                "https://origin.example.com/live/chan/audio/en.m3u8",
                "https://origin.example.com/live/chan/audio/fr.m3u8",
                "https://origin.example.com/live/chan/low/index.m3u8", "https://cdn.example.com/hi/index.m3u8",
                "https://origin.example.com/live/chan/low/iframe.m3u8",
            ])
        #expect(rewritten.variants.map(\.uri) == ["http://127.0.0.1/5", "http://127.0.0.1/6"])
        #expect(rewritten.iFrameVariants.map(\.uri) == ["http://127.0.0.1/7"])
        #expect(rewritten.renditions.map(\.uri) == ["http://127.0.0.1/3", "http://127.0.0.1/4", nil])
        #expect(rewritten.sessionKeys.map(\.uri) == ["http://127.0.0.1/2"])
        // Everything but the URIs is byte for byte the same.
        let before = playlist.serialized().split(separator: "\n", omittingEmptySubsequences: false)
        let after = rewritten.serialized().split(separator: "\n", omittingEmptySubsequences: false)
        #expect(before.count == after.count)
        for (old, new) in zip(before, after) where !old.contains("URI") && !old.hasSuffix(".m3u8") {
            #expect(old == new)
        }
        #expect(
            after[6]
                == #"#EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID="aac",NAME="English",LANGUAGE="en",DEFAULT=YES,AUTOSELECT=YES,URI="http://127.0.0.1/3""#
        )
    }

    @Test func resolvesAgainstTheFinalURL() throws {
        let playlist = try HLSPlaylist(parsing: "#EXTM3U\n#EXTINF:4,\na.ts\n")
        let rewriter = HLSRewriter(baseURL: URL(string: "https://redirected.example.net/x/y/final.m3u8")!)
        let rewritten = rewriter.rewrite(playlist) { url, _ in url.absoluteString }
        #expect(rewritten.segments.first?.uri == "https://redirected.example.net/x/y/a.ts")
    }

    /// RFC 3986 section 5.4.1 "normal examples", plus the abnormal ones of 5.4.2 that a playlist
    /// could plausibly contain.
    @Test(arguments: [
        ("g:h", "g:h"), ("g", "http://a/b/c/g"), ("./g", "http://a/b/c/g"), ("g/", "http://a/b/c/g/"),
        ("/g", "http://a/g"), ("//g", "http://g"), ("?y", "http://a/b/c/d;p?y"), ("g?y", "http://a/b/c/g?y"),
        ("#s", "http://a/b/c/d;p?q#s"), ("g#s", "http://a/b/c/g#s"), ("g?y#s", "http://a/b/c/g?y#s"),
        (";x", "http://a/b/c/;x"), ("g;x", "http://a/b/c/g;x"), ("g;x?y#s", "http://a/b/c/g;x?y#s"),
        ("", "http://a/b/c/d;p?q"), (".", "http://a/b/c/"), ("./", "http://a/b/c/"), ("..", "http://a/b/"),
        ("../", "http://a/b/"), ("../g", "http://a/b/g"), ("../..", "http://a/"), ("../../", "http://a/"),
        ("../../g", "http://a/g"), ("../../../g", "http://a/g"), ("../../../../g", "http://a/g"),
        ("/./g", "http://a/g"), ("/../g", "http://a/g"), ("g.", "http://a/b/c/g."), (".g", "http://a/b/c/.g"),
        ("g..", "http://a/b/c/g.."), ("..g", "http://a/b/c/..g"), ("./../g", "http://a/b/g"),
        ("./g/.", "http://a/b/c/g/"), ("g/./h", "http://a/b/c/g/h"), ("g/../h", "http://a/b/c/h"),
        ("g;x=1/./y", "http://a/b/c/g;x=1/y"), ("g;x=1/../y", "http://a/b/c/y"),
    ])
    func resolvesLikeRFC3986(reference: String, expected: String) throws {
        let rewriter = HLSRewriter(baseURL: URL(string: "http://a/b/c/d;p?q")!)
        #expect(rewriter.resolve(reference)?.absoluteString == expected)
    }

    @Test func percentEncodesWhatAURLCannotHold() throws {
        let rewriter = HLSRewriter(baseURL: URL(string: "https://h/dir/p.m3u8")!)
        #expect(
            rewriter.resolve("180724_Allison VLOG-v3_00001.ts")?.absoluteString
                == "https://h/dir/180724_Allison%20VLOG-v3_00001.ts")
        #expect(rewriter.resolve("héllo{1}.ts")?.absoluteString == "https://h/dir/h%C3%A9llo%7B1%7D.ts")
        #expect(rewriter.resolve("a%20b%zz.ts")?.absoluteString == "https://h/dir/a%20b%25zz.ts")
        #expect(rewriter.resolve("data:text/plain;base64,YQo=")?.absoluteString == "data:text/plain;base64,YQo=")
        #expect(rewriter.resolve("skd://00066304-0081")?.absoluteString == "skd://00066304-0081")
    }

    @Test func mappedTextCannotBreakTheLine() throws {
        let playlist = try HLSPlaylist(parsing: "#EXTM3U\n#EXT-X-KEY:METHOD=AES-128,URI=\"k\"\n#EXTINF:4,\na.ts\n")
        let rewritten = HLSRewriter(baseURL: Self.base).rewrite(playlist) { _, kind in
            kind == .key ? "x\"y\nz" : "#not a comment\r"
        }
        #expect(
            rewritten.serialized()
                == "#EXTM3U\n#EXT-X-KEY:METHOD=AES-128,URI=\"x%22y%0Az\"\n#EXTINF:4,\n%23not a comment%0D\n")
        #expect(try HLSPlaylist(parsing: rewritten.serialized()).segments.count == 1)
    }

    @Test func bytesWrittenInPlaceCannotBreakTheLineEither() throws {
        let playlist = try HLSPlaylist(
            parsing: "#EXTM3U\n#EXT-X-KEY:METHOD=AES-128,URI=\"k\"\n#EXTINF:4,\na.ts\n#EXTINF:4,\nb.ts\n")
        let bytes = HLSRewriter(baseURL: Self.base).rewrittenBytes(playlist, reservingCapacity: 0) { site, output in
            switch site.number {
            case 0: output.append(contentsOf: "x\"y\nz".utf8)
            case 1: output.append(contentsOf: "#not a comment\r".utf8)
            default: return false
            }
            return true
        }
        #expect(
            String(decoding: bytes, as: UTF8.self)
                == "#EXTM3U\n#EXT-X-KEY:METHOD=AES-128,URI=\"x%22y%0Az\"\n#EXTINF:4,\n%23not a comment%0D\n#EXTINF:4,\nb.ts\n"
        )
    }

    @Test func plainHTTPURLsAreThoseFoundationTakesAsTheyAre() {
        let plain = [
            "http://a.example.com/x.ts", "https://h:8080/a/b%20c.ts?x=1&y=(2)#f", "http://1.2.3.4", "https://h?q",
            "http://h/~a-b_c.d!$&'*+,;=:@/",
        ]
        for text in plain {
            #expect(HLSRewriter.isPlainHTTPURL(text), "\(text)")
            #expect(URL(string: text)?.absoluteString == text)
        }
        let notPlain = [
            "HTTP://h/x", "ftp://h/x", "http://", "http:///x", "http://u@h/x", "http://[::1]/x", "http://h:99999/x",
            "http://h:/x", "http://h/a b", "http://h/%zz", "http://h/%2", "http://h/a#b#c", "http://h/[x]",
            "http://h/é",
            "http://h/\"", "//h/x",
        ]
        for text in notPlain { #expect(!HLSRewriter.isPlainHTTPURL(text), "\(text)") }
    }

    @Test func rewritesURIsThatUseVariables() throws {
        let playlist = try HLSPlaylist(
            parsing: """
                #EXTM3U
                #EXT-X-DEFINE:NAME="p",VALUE="part-"
                #EXTINF:4,
                {$p}1.ts
                """)
        let rewritten = HLSRewriter(baseURL: Self.base).rewrite(playlist) { url, _ in url.lastPathComponent }
        #expect(rewritten.serialized().hasSuffix("\n#EXTINF:4,\npart-1.ts\n"))
        #expect(rewritten.variables == ["p": "part-"])
    }

    @Test func quotesAnUnquotedURIAttributeOfALenientParse() throws {
        let playlist = try HLSPlaylist(
            parsing: "#EXTM3U\n#EXT-X-MAP:URI=init.mp4,BYTERANGE=\"1@0\"\n", configuration: .lenient)
        #expect(playlist.warnings.map(\.kind) == [.invalidAttributeValue])
        let rewritten = HLSRewriter(baseURL: Self.base).rewrite(playlist) { _, _ in "http://p/a,b" }
        #expect(rewritten.serialized() == "#EXTM3U\n#EXT-X-MAP:URI=\"http://p/a,b\",BYTERANGE=\"1@0\"\n")
    }

    @Test func rewriteErrorsPropagate() throws {
        struct Refused: Error {}
        let playlist = try HLSPlaylist(parsing: "#EXTM3U\n#EXTINF:4,\na.ts\n")
        #expect(throws: Refused.self) {
            _ = try HLSRewriter(baseURL: Self.base).rewrite(playlist) { (_, _) throws(Refused) in throw Refused() }
        }
    }
}
