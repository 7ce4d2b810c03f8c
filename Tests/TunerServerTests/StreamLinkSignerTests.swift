import Crypto
import Foundation
import Testing

@testable import Streaming
@testable import TunerApp

/// Proxy URLs: the hand-written payload encoding must mean exactly what JSONDecoder reads back,
/// the sealed payload must open for this key and nothing else, and a URL must reveal nothing of
/// the origin URL or its headers.
@Suite struct StreamLinkSignerTests {
    let signer = StreamLinkSigner(key: SymmetricKey(data: Array(repeating: UInt8(7), count: 32)))

    static let awkwardLinks: [StreamLink] = [
        StreamLink(url: URL(string: "http://example.com/a.ts")!),
        StreamLink(
            url: URL(string: "https://example.com/live/index.m3u8?token=a%22b&x=%5C")!,
            headers: [
                StreamHeader(name: "User-Agent", value: #"VLC "3.0" \ back\slash / slash"#),
                StreamHeader(name: "Referer", value: "https://ex.com/ü/日本/\u{1F600}"),
                StreamHeader(name: "X-Tab", value: "a\tb\u{7}c\u{1F}d"),
            ], kind: .segment, playlist: URL(string: "http://example.com/p/index.m3u8")!),
        StreamLink(url: URL(string: "http://[::1]:8080/k.key")!, kind: .key),
        StreamLink(
            url: URL(string: "http://example.com/dir/%E2%82%AC%20name.mp4")!,
            headers: [StreamHeader(name: "A", value: "")]),
    ]

    @Test(arguments: awkwardLinks) func thePayloadDecodesToTheLink(link: StreamLink) throws {
        let json = StreamLinkSigner.payloadJSON(of: link)
        let decoded = try JSONDecoder().decode(StreamLinkSigner.Payload.self, from: Data(json))
        #expect(decoded.u == link.url.absoluteString)
        #expect((decoded.h ?? []) == link.headers.map { [$0.name, $0.value] })
        #expect(decoded.k == link.kind?.rawValue)
        #expect(decoded.p == link.playlist?.absoluteString)
    }

    @Test(arguments: awkwardLinks) func aSignedPathVerifiesToTheSameLink(link: StreamLink) throws {
        let path = try signer.path(for: link)
        let parts = path.split(separator: "/")
        #expect(parts.count == 4 && parts[0] == "stream", "\(path)")
        let back = try signer.verify(signature: parts[1], payload: parts[2])
        #expect(back == link)
    }

    /// A playlist's URIs are signed in a batch: each path must be byte for byte the one
    /// `path(for:)` makes (so the same URI keeps its URL whichever way it was signed), and must
    /// verify to the link with the playlist's headers, kind and playlist URL.
    @Test func aPlaylistsBatchSignsEachURIAsThePathForItsLink() throws {
        let playlist = URL(string: "http://example.com/p/index.m3u8?token=s3cret")!
        for headers in [[], Self.awkwardLinks[1].headers] {
            var signing = try StreamLinkSigner.PlaylistSigning(signer: signer, headers: headers, playlist: playlist)
            let uris: [(String, StreamKind)] = [
                ("http://example.com/p/seg1.ts", .segment), ("https://cdn.example.com:8443/a/b.m4s?x=1#f", .segment),
                ("http://example.com/k/key.bin", .key), ("http://example.com/p/init.mp4", .map),
                ("http://example.com/p/480p.m3u8", .playlist), ("http://[::1]:8080/v6.ts", .segment),
                ("http://user@example.com/dir/%E2%82%AC%20name.ts", .part),
                ("http://example.com/dir/", .other),
            ]
            for (uri, kind) in uris {
                var output: [UInt8] = Array("prefix".utf8)
                #expect(signing.appendPath(of: uri, kind: kind, to: &output), "\(uri)")
                let link = StreamLink(
                    url: URL(string: uri)!, headers: headers, kind: kind, playlist: kind == .segment ? playlist : nil)
                #expect(String(decoding: output, as: UTF8.self) == "prefix" + (try signer.path(for: link)))
                let parts = String(decoding: output.dropFirst(6), as: UTF8.self).split(separator: "/")
                #expect(try signer.verify(signature: parts[1], payload: parts[2]) == link)
            }
            // Keys a player handles itself are left alone, and nothing is appended for them.
            var output: [UInt8] = []
            #expect(!signing.appendPath(of: "skd://00066304-0081", kind: .key, to: &output))
            #expect(!signing.appendPath(of: "data:text/plain;base64,YQo=", kind: .key, to: &output))
            #expect(output.isEmpty)
        }
        // Headers that could not be attached to a link are refused for the whole playlist.
        #expect(throws: StreamError.self) {
            _ = try StreamLinkSigner.PlaylistSigning(
                signer: signer, headers: [StreamHeader(name: "X", value: "a\r\nInjected: 1")], playlist: playlist)
        }
    }

    @Test func aTamperedPayloadOrAnotherKeyIsRefused() throws {
        let link = Self.awkwardLinks[1]
        let parts = try signer.path(for: link).split(separator: "/")
        var tampered = Array(parts[2])
        tampered[5] = tampered[5] == "A" ? "B" : "A"
        #expect(throws: StreamError.badSignature) {
            try signer.verify(signature: parts[1], payload: String(tampered))
        }
        let other = StreamLinkSigner(key: SymmetricKey(data: Array(repeating: UInt8(8), count: 32)))
        #expect(throws: StreamError.badSignature) { try other.verify(signature: parts[1], payload: parts[2]) }
    }

    @Test func aProxyURLRevealsNeitherTheOriginNorItsCredentials() throws {
        let link = StreamLink(
            url: URL(string: "http://provider.example:8080/live/alice/SECRETPW/1234.ts?token=TOKENVALUE")!,
            headers: [StreamHeader(name: "Authorization", value: "Basic SECRETHEADER")])
        let path = try signer.path(for: link)
        // Every way the old plain base64 payload could have shown them: as text, and decoded.
        var revealed = path
        for part in path.split(separator: "/") {
            if let data = Data(base64URLEncoded: part) { revealed += String(decoding: data, as: UTF8.self) }
        }
        for secret in ["SECRETPW", "alice", "TOKENVALUE", "SECRETHEADER", "provider.example", "Authorization"] {
            #expect(!revealed.contains(secret), "\(secret) readable in \(path)")
        }
        #expect(path.hasSuffix("/1234.ts"))
    }

    @Test func theSameLinkGivesTheSameURLAndDifferentLinksDifferentNonces() throws {
        let first = try signer.path(for: Self.awkwardLinks[0])
        #expect(try signer.path(for: Self.awkwardLinks[0]) == first)
        let nonces = try Self.awkwardLinks.map { try signer.path(for: $0).split(separator: "/")[1] }
        #expect(Set(nonces).count == nonces.count)
    }

    @Test func aTamperedNonceOrTruncatedPayloadIsRefused() throws {
        let parts = try signer.path(for: Self.awkwardLinks[1]).split(separator: "/")
        var nonce = Array(parts[1])
        nonce[0] = nonce[0] == "A" ? "B" : "A"
        #expect(throws: StreamError.badSignature) { try signer.verify(signature: String(nonce), payload: parts[2]) }
        #expect(throws: StreamError.badSignature) {
            try signer.verify(signature: parts[1], payload: parts[2].dropLast(4))
        }
        #expect(throws: StreamError.badSignature) { try signer.verify(signature: parts[1], payload: "AAAA") }
        #expect(throws: StreamError.badSignature) { try signer.verify(signature: "", payload: "") }
    }

    @Test func base64URLMatchesFoundationForEveryLength() {
        var generator = SystemRandomNumberGenerator()
        for length in 0..<100 {
            let bytes = (0..<length).map { _ in UInt8.random(in: 0...255, using: &generator) }
            #expect(Base64URL.encode(bytes) == Data(bytes).base64URLEncodedString(), "length \(length)")
        }
    }

    @Test func theLastComponentKeepsTheExtensionAndEscapesTheRest() {
        #expect(StreamLinkSigner.lastComponent(of: URL(string: "http://e.com/a/seg-01.ts?x=1")!) == "seg-01.ts")
        #expect(
            StreamLinkSigner.lastComponent(of: URL(string: "http://e.com/a/%E2%82%AC%20b;c.mp4")!)
                == "%E2%82%AC%20b%3Bc.mp4")
        #expect(StreamLinkSigner.lastComponent(of: URL(string: "http://e.com/")!) == "index")
    }

    /// The byte-wise shortcut for plain names must give what Foundation's `lastPathComponent`
    /// gives, and step aside (nil) for everything it does not handle.
    @Test func thePlainLastComponentShortcutAgreesWithFoundation() {
        let texts = [
            "http://e.com/a/seg-01.ts?x=1", "https://e.com:8443/v/1/movie_0.m4s#t=1", "http://u:p@e.com/x/y/z~1.TS",
            "http://[::1]:80/a.ts?b=/c/d.ts", "http://e.com/a/", "http://e.com", "http://e.com/", "http://e.com/a/..",
            "http://e.com/a/%41.ts", "http://e.com/a/b;c.ts", "http://e.com/a/b c.ts", "http://e.com?x=/y.ts",
            "http://e.com/é.ts", "http://e.com/a/.", "http://e.com//x.ts",
        ]
        for text in texts {
            guard let url = URL(string: text) else { continue }
            let plain = StreamLinkSigner.plainLastComponent(of: url.absoluteString)
            if let plain {
                #expect(plain == url.lastPathComponent, "\(text)")
            }
            #expect(StreamLinkSigner.lastComponent(of: url).isEmpty == false, "\(text)")
        }
        #expect(StreamLinkSigner.plainLastComponent(of: "http://e.com/a/seg-01.ts?x=1") == "seg-01.ts")
        #expect(StreamLinkSigner.plainLastComponent(of: "http://e.com/a/%41.ts") == nil)
        #expect(StreamLinkSigner.plainLastComponent(of: "http://e.com/a/") == nil)
        #expect(StreamLinkSigner.plainLastComponent(of: "http://e.com") == nil)
    }
}
