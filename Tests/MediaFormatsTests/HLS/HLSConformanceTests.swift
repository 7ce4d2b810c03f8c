import Foundation
import MediaFormats
import Testing

/// The real playlists of `../shared/data` (see its SOURCES.md): every one parses, or fails with
/// the error listed below; every one round-trips; every URI of every one is rewritten.
@Suite("HLS conformance: real playlists")
struct HLSConformanceTests {
    /// The corpora that hold HLS playlists. `M3U8Decoder/…/tv_channels_private.m3u.zlib` is a
    /// compressed IPTV M3U and belongs to the IPTV parser's tests; the `.m3u` IPTV playlists here
    /// are parsed as media playlists (strictly they fail on `#EXTINF:-1`).
    static let corpora = ["globocom-m3u8", "hls.js", "grafov-m3u8", "m3u8-rs", "mamba", "M3U8Parser", "M3U8Decoder"]

    /// How a strict parse of an invalid playlist must fail, and why the playlist is invalid.
    struct Violation: Sendable {
        let code: HLSParseError.Kind
        let line: Int
        let reason: String
    }

    static let invalid: [String: Violation] = [
        // Snippets cut from larger test strings, which lose their header or their last URI.
        "globocom-m3u8/tests/playlists_extracted/VARIANT_PLAYLIST_WITH_STABLE_VARIANT_ID.m3u8":
            Violation(code: .missingHeader, line: 1, reason: "no #EXTM3U: a fragment, not a playlist"),
        "globocom-m3u8/tests/playlists_extracted/VARIANT_PLAYLIST_WITH_IFRAME_STABLE_VARIANT_ID.m3u8":
            Violation(code: .missingHeader, line: 1, reason: "no #EXTM3U: a fragment, not a playlist"),
        "globocom-m3u8/tests/playlists_extracted/VARIANT_PLAYLIST_WITH_STABLE_RENDITION_ID.m3u8":
            Violation(code: .missingHeader, line: 1, reason: "no #EXTM3U: a fragment, not a playlist"),
        "globocom-m3u8/tests/playlists_extracted/PLAYLIST_WITH_SLASH_IN_QUERY_STRING.m3u8":
            Violation(code: .missingURI, line: 12, reason: "ends with an #EXTINF that has no URI line"),
        "hls.js/tests/unit/loader/m3u8-parser_extracted/parse-level-with-extinf-line-without-comma.m3u8":
            Violation(code: .missingURI, line: 16, reason: "the last #EXTINF has no URI line"),
        "grafov-m3u8/sample-playlists/media-playlist-with-cue-out-in-without-oatcls.m3u8":
            Violation(code: .missingURI, line: 136, reason: "ends with an #EXTINF that has no URI line"),
        "mamba/mambaTests/Fixtures/ThirdPartyTagsTestFixture.txt":
            Violation(code: .missingURI, line: 8, reason: "an #EXTINF with no URI line"),
        "grafov-m3u8/sample-playlists/media-playlist-with-discontinuity.m3u8":
            Violation(
                code: .missingHeader, line: 1, reason: "comment lines before #EXTM3U, which must be the first line"),
        "grafov-m3u8/sample-playlists/master-with-hlsv7.m3u8":
            Violation(
                code: .missingHeader, line: 1, reason: "comment lines before #EXTM3U, which must be the first line"),
        "hls.js/tests/unit/loader/m3u8-parser_extracted/manifest-with-broken-syntax-returns-empty-array.m3u8":
            Violation(code: .missingHeader, line: 1, reason: "'#EXTM3U#EXTXSTREAMINF:…' is not the #EXTM3U header"),

        // Master-playlist tags in media playlists (RFC 8216 6.3.1: clients must fail to parse).
        "globocom-m3u8/tests/playlists/relative-playlist.m3u8":
            Violation(code: .mixedPlaylistKinds, line: 6, reason: "#EXT-X-SESSION-KEY in a media playlist"),
        "globocom-m3u8/tests/playlists_extracted/PLAYLIST_WITH_SESSION_ENCRYPTED_SEGMENTS.m3u8":
            Violation(code: .mixedPlaylistKinds, line: 5, reason: "#EXT-X-SESSION-KEY in a media playlist"),
        "globocom-m3u8/tests/playlists_extracted/PLAYLIST_WITH_SESSION_ENCRYPTED_SEGMENTS_AND_IV.m3u8":
            Violation(code: .mixedPlaylistKinds, line: 5, reason: "#EXT-X-SESSION-KEY in a media playlist"),
        "globocom-m3u8/tests/playlists_extracted/PLAYLIST_WITH_SESSION_ENCRYPTED_SEGMENTS_AND_IV_SORTED.m3u8":
            Violation(code: .mixedPlaylistKinds, line: 6, reason: "#EXT-X-SESSION-KEY in a media playlist"),
        "mamba/mambaTests/Fixtures/hls_writer_parser_roundtrip_tester.txt":
            Violation(
                code: .mixedPlaylistKinds, line: 45,
                reason: "a tag catalogue mixing master and media tags, with duplicates and invalid values"),

        // Required attributes missing, or attribute values of the wrong type.
        "globocom-m3u8/tests/playlists_extracted/VARIANT_PLAYLIST_WITH_HDCP_LEVEL.m3u8":
            Violation(code: .missingAttribute, line: 2, reason: "#EXT-X-STREAM-INF without BANDWIDTH"),
        "globocom-m3u8/tests/playlists_extracted/VARIANT_PLAYLIST_WITH_IFRAME_HDCP_LEVEL.m3u8":
            Violation(code: .missingAttribute, line: 2, reason: "#EXT-X-STREAM-INF without BANDWIDTH"),
        "globocom-m3u8/tests/playlists_extracted/VARIANT_PLAYLIST_WITH_IFRAME_VIDEO_RANGE.m3u8":
            Violation(code: .missingAttribute, line: 2, reason: "#EXT-X-STREAM-INF without BANDWIDTH"),
        "globocom-m3u8/tests/playlists_extracted/VARIANT_PLAYLIST_WITH_VIDEO_RANGE.m3u8":
            Violation(code: .missingAttribute, line: 2, reason: "#EXT-X-STREAM-INF without BANDWIDTH"),
        "hls.js/tests/unit/loader/m3u8-parser_extracted/propagates-the-raw-programdatetime-to-the-fragment-following-the-init-segment.m3u8":
            Violation(code: .missingAttribute, line: 6, reason: "#EXT-X-MAP without URI"),
        "globocom-m3u8/tests/playlists_extracted/VARIANT_PLAYLIST_WITH_BANDWIDTH_FLOAT.m3u8":
            Violation(code: .invalidAttributeValue, line: 2, reason: "BANDWIDTH=1280000.0 is not a decimal integer"),
        "globocom-m3u8/tests/playlists_extracted/DATERANGE_ENDDATE_SCTECMD_PLAYLIST.m3u8":
            Violation(
                code: .invalidAttributeValue, line: 3, reason: "SCTE35-CMD=0xFCINVALIDSECTION is not hexadecimal"),
        "globocom-m3u8/tests/playlists_extracted/PLAYLIST_WITH_TAG_MEDIA_READY.m3u8":
            Violation(
                code: .invalidAttributeValue, line: 6, reason: "IV=[IV]: a template placeholder, not hexadecimal"),
        "globocom-m3u8/tests/playlists_extracted/LOW_LATENCY_WITH_PRELOAD_AND_BYTERANGES_PLAYLIST.m3u8":
            Violation(
                code: .invalidAttributeValue, line: 4, reason: "#EXT-X-PART BYTERANGE=20000@0 must be a quoted string"),
        "grafov-m3u8/sample-playlists/master-with-i-frame-stream-inf.m3u8":
            Violation(
                code: .invalidAttributeValue, line: 4,
                reason: "RESOLUTION=\"1x1\" is quoted (and BANDWIDTH=\"INVALIDBW\")"),
        "m3u8-rs/sample-playlists/master-with-i-frame-stream-inf.m3u8":
            Violation(
                code: .invalidAttributeValue, line: 4,
                reason: "RESOLUTION=\"1x1\" is quoted (and BANDWIDTH=\"INVALIDBW\")"),

        // Tag values of the wrong form.
        "globocom-m3u8/tests/playlists_extracted/PLAYLIST_WITH_NEGATIVE_MEDIA_SEQUENCE.m3u8":
            Violation(code: .invalidTagValue, line: 3, reason: "#EXT-X-MEDIA-SEQUENCE:-2680 is negative"),
        "globocom-m3u8/tests/playlists_extracted/IPTV_PLAYLIST_WITH_CUSTOM_TAGS.m3u8":
            Violation(code: .invalidTagValue, line: 4, reason: "IPTV M3U, not HLS: #EXTINF:-1 with attributes"),
        "hls.js/tests/unit/loader/m3u8-parser_extracted/targetduration-is-a-decimal-integer.m3u8":
            Violation(code: .invalidTagValue, line: 4, reason: "#EXT-X-TARGETDURATION:2.5 is not an integer"),
        "hls.js/tests/unit/loader/m3u8-parser_extracted/targetduration-is-a-decimal-integer-which-hls-js-assigns-a-minimum-value-of-1.m3u8":
            Violation(code: .invalidTagValue, line: 4, reason: "#EXT-X-TARGETDURATION:0.5 is not an integer"),

        // URI lines with no tag before them.
        "globocom-m3u8/tests/playlists_extracted/SIMPLE_PLAYLIST_MESSY.m3u8":
            Violation(code: .uriWithoutTag, line: 5, reason: "a stray 'JUNK' line"),
        "M3U8Parser/M3U8KitDemo/M3U8KitDemo/769.m3u8":
            Violation(code: .uriWithoutTag, line: 63, reason: "a stray 'baseURL=…' line at the end"),
        "m3u8-rs/sample-playlists/masterplaylist.m3u8":
            Violation(
                code: .uriWithoutTag, line: 4, reason: "URI lines after #EXT-X-MEDIA and #EXT-X-I-FRAME-STREAM-INF"),
        "m3u8-rs/sample-playlists/master-not-ending-in-newline.m3u8":
            Violation(
                code: .uriWithoutTag, line: 4, reason: "URI lines after #EXT-X-MEDIA and #EXT-X-I-FRAME-STREAM-INF"),
        "mamba/mambaTests/Fixtures/hls_master_playlist_sap.m3u8":
            Violation(
                code: .missingURI, line: 6, reason: "#EXT-X-STREAM-INF with a URI attribute instead of a URI line"),

        // hls.js tests of what a parser must reject: tags that may appear only once…
        "hls.js/tests/unit/loader/m3u8-parser_extracted/ext-x-version-must-not-appear-more-than-once.m3u8":
            Violation(code: .duplicateTag, line: 3, reason: "two #EXT-X-VERSION"),
        "hls.js/tests/unit/loader/m3u8-parser_extracted/ext-x-targetduration-must-not-appear-more-than-once.m3u8":
            Violation(code: .duplicateTag, line: 4, reason: "two #EXT-X-TARGETDURATION"),
        "hls.js/tests/unit/loader/m3u8-parser_extracted/ext-x-media-sequence-must-not-appear-more-than-once.m3u8":
            Violation(code: .duplicateTag, line: 7, reason: "two #EXT-X-MEDIA-SEQUENCE"),
        "hls.js/tests/unit/loader/m3u8-parser_extracted/ext-x-discontinuity-sequence-must-not-appear-more-than-once.m3u8":
            Violation(code: .duplicateTag, line: 8, reason: "two #EXT-X-DISCONTINUITY-SEQUENCE"),
        "hls.js/tests/unit/loader/m3u8-parser_extracted/ext-x-endlist-must-not-appear-more-than-once.m3u8":
            Violation(code: .duplicateTag, line: 7, reason: "two #EXT-X-ENDLIST"),
        "hls.js/tests/unit/loader/m3u8-parser_extracted/ext-x-playlist-type-must-not-appear-more-than-once.m3u8":
            Violation(code: .duplicateTag, line: 5, reason: "two #EXT-X-PLAYLIST-TYPE"),
        "hls.js/tests/unit/loader/m3u8-parser_extracted/ext-x-part-inf-must-not-appear-more-than-once.m3u8":
            Violation(code: .duplicateTag, line: 5, reason: "two #EXT-X-PART-INF"),
        "hls.js/tests/unit/loader/m3u8-parser_extracted/ext-x-server-control-must-not-appear-more-than-once.m3u8":
            Violation(code: .duplicateTag, line: 5, reason: "two #EXT-X-SERVER-CONTROL"),
        "hls.js/tests/unit/loader/m3u8-parser_extracted/ext-x-skip-must-not-appear-more-than-once.m3u8":
            Violation(code: .duplicateTag, line: 8, reason: "two #EXT-X-SKIP"),
        // …sequence tags after the first segment…
        "hls.js/tests/unit/loader/m3u8-parser_extracted/ext-x-media-sequence-must-appear-before-the-first-media-segment.m3u8":
            Violation(code: .misplacedTag, line: 6, reason: "#EXT-X-MEDIA-SEQUENCE after a segment"),
        "hls.js/tests/unit/loader/m3u8-parser_extracted/errors-when-a-media-segment-precedes-ext-x-skip-and-ext-x-media-sequence.m3u8":
            Violation(code: .misplacedTag, line: 8, reason: "#EXT-X-MEDIA-SEQUENCE after a segment"),
        "hls.js/tests/unit/loader/m3u8-parser_extracted/applies-ext-x-discontinuity-sequence-to-all-media-segments-event-when-not-declar.m3u8":
            Violation(code: .misplacedTag, line: 7, reason: "#EXT-X-DISCONTINUITY-SEQUENCE after a segment"),
        // …and variables that are undefined or defined twice.
        "hls.js/tests/unit/loader/m3u8-parser_extracted/fails-to-parse-media-playlist-when-variable-reference-has-no-definition.m3u8":
            Violation(code: .undefinedVariable, line: 6, reason: "{$bar} is never defined"),
        "hls.js/tests/unit/loader/m3u8-parser_extracted/fails-to-parse-media-playlist-when-variable-reference-precedes-definition.m3u8":
            Violation(code: .undefinedVariable, line: 6, reason: "{$bar} is used before its definition"),
        "hls.js/tests/unit/loader/m3u8-parser_extracted/fails-to-parse-media-playlist-when-import-variable-is-not-present.m3u8":
            Violation(
                code: .undefinedVariable, line: 5, reason: "IMPORT of a variable the master playlist does not define"),
        "hls.js/tests/unit/loader/m3u8-parser_extracted/finds-variable-references-in-a-playlist-parsed-after-one-that-was-rejected.m3u8":
            Violation(code: .undefinedVariable, line: 4, reason: "{$host} is never defined in this playlist"),
        "hls.js/tests/unit/loader/m3u8-parser_extracted/returns-an-error-when-duplicate-variables-are-found-in-multivariant-playlists.m3u8":
            Violation(code: .duplicateVariable, line: 4, reason: "'foo' is defined twice"),
    ]

    /// Playlists whose variables come from their master playlist or their URL, as hls.js's tests
    /// provide them.
    static let contexts: [String: HLSParser.Configuration] = [
        "hls.js/tests/unit/loader/m3u8-parser_extracted/defines-variables-using-queryparam-name-value-pairs-in-parent-playlist-uris-and-.m3u8":
            HLSParser.Configuration(playlistURL: URL(string: "https://www.x.com/sec/master.m3u8?token=abc&foo=bar")),
        "hls.js/tests/unit/loader/m3u8-parser_extracted/defines-variables-using-queryparam-name-value-pairs-in-parent-playlist-uris-and--2.m3u8":
            HLSParser.Configuration(
                playlistURL: URL(string: "https://www.x.com/sec/video/1.m3u8?parent-token=abc"),
                importedVariables: ["token": "abc"]),
        "hls.js/tests/unit/loader/m3u8-parser_extracted/imports-and-substitutes-variable-references-in-quoted-strings-uri-lines-and-hexi.m3u8":
            HLSParser.Configuration(importedVariables: ["mvpVariable": "mvp"]),
    ]

    /// Every playlist file of the corpora, relative to the data folder.
    static let files: [String] = {
        let root = HLSTestSupport.sharedDataDirectory
        var files: [String] = []
        for corpus in corpora {
            guard let enumerator = FileManager.default.enumerator(atPath: root.appendingPathComponent(corpus).path)
            else {
                continue
            }
            for case let path as String in enumerator
            where path.hasSuffix(".m3u8") || path.hasSuffix(".m3u") || path.hasSuffix(".txt") {
                files.append("\(corpus)/\(path)")
            }
        }
        return files.sorted()
    }()

    static func bytes(_ file: String) throws -> [UInt8] {
        [UInt8](try Data(contentsOf: HLSTestSupport.sharedDataDirectory.appendingPathComponent(file)))
    }

    static func configuration(_ file: String, strict: Bool) -> HLSParser.Configuration {
        var configuration = contexts[file] ?? .strict
        configuration.throwsOnViolation = strict
        return configuration
    }

    /// The playlist as it must be read: strictly when valid, leniently when listed as invalid.
    static func playlist(_ file: String) throws -> HLSPlaylist {
        try HLSPlaylist(parsing: bytes(file), configuration: configuration(file, strict: invalid[file] == nil))
    }

    @Test func corpusIsPresentAndTheListsAreCurrent() {
        #expect(Self.files.count == 264, "data folder: \(HLSTestSupport.sharedDataDirectory.path)")
        for file in Self.invalid.keys.sorted() + Self.contexts.keys.sorted() {
            #expect(Self.files.contains(file), "listed but not in the corpus: \(file)")
        }
    }

    @Test(arguments: files)
    func parsesOrFailsWithTheListedError(file: String) throws {
        let bytes = try Self.bytes(file)
        let result = Result { () throws(HLSParseError) in
            try HLSPlaylist(parsing: bytes, configuration: Self.configuration(file, strict: true))
        }
        switch (result, Self.invalid[file]) {
        case (.success(let playlist), nil):
            #expect(playlist.warnings.isEmpty)
            // A playlist is one kind or the other.
            #expect(!playlist.isMaster || playlist.segments.isEmpty)
            #expect(playlist.isMaster || playlist.variants.isEmpty)
        case (.success, let violation?):
            Issue.record("listed as invalid (\(violation.reason)) but parses")
        case (.failure(let error), nil):
            Issue.record("\(error)")
        case (.failure(let error), let violation?):
            #expect(error.kind == violation.code, "\(error)")
            #expect(error.line == violation.line, "\(error)")
            // The lenient parse reports the same problem first and reads the rest.
            let lenient = try HLSPlaylist(parsing: bytes, configuration: Self.configuration(file, strict: false))
            #expect(lenient.warnings.first == error)
        }
    }

    @Test(arguments: files)
    func roundTrips(file: String) throws {
        let bytes = try Self.bytes(file)
        let playlist = try Self.playlist(file)
        let serialized = playlist.serializedBytes()
        #expect(serialized == HLSTestSupport.normalized(bytes))
        let reparsed = try HLSPlaylist(
            parsing: serialized, configuration: Self.configuration(file, strict: Self.invalid[file] == nil))
        #expect(reparsed.serializedBytes() == serialized)
        #expect(reparsed.segments.count == playlist.segments.count)
        #expect(reparsed.variants.count == playlist.variants.count)
    }

    @Test(arguments: files)
    func rewritesEveryURI(file: String) throws {
        let text = String(decoding: try Self.bytes(file), as: UTF8.self)
        let playlist = try Self.playlist(file)
        let references = playlist.uriReferences
        // Counted independently of the parser: URI lines, and URI attributes of the tags that have them.
        let expectedCount = Self.countURIsNaively(text)
        #expect(references.count == expectedCount)

        var rewrittenCount = 0
        let rewriter = HLSRewriter(baseURL: URL(string: "https://origin.example.com/path/to/playlist.m3u8")!)
        let rewritten = rewriter.rewrite(playlist) { url, _ in
            rewrittenCount += 1
            #expect(url.scheme != nil)
            return "http://proxy/x"
        }
        #expect(rewrittenCount == expectedCount)
        if !text.isEmpty { #expect(expectedCount > 0 || playlist.segments.isEmpty && playlist.variants.isEmpty) }

        // Read back, every URI points at the proxy, and every line without a URI is unchanged.
        let reparsed = try HLSPlaylist(
            parsing: rewritten.serializedBytes(),
            configuration: Self.configuration(file, strict: Self.invalid[file] == nil))
        #expect(reparsed.uriReferences.count == expectedCount)
        #expect(reparsed.uriReferences.allSatisfy { $0.uri == "http://proxy/x" })
        #expect(reparsed.uriReferences.map(\.kind) == references.map(\.kind))
        let uriLines = Set(references.map(\.line))
        let before = Array(playlist.lines)
        let after = Array(reparsed.lines)
        #expect(before.count == after.count)
        for (old, new) in zip(before, after) where !uriLines.contains(old.number) {
            #expect(old.text == new.text)
        }
        #expect(reparsed.segments.map(\.duration) == playlist.segments.map(\.duration))
        #expect(reparsed.segments.map(\.byteRange) == playlist.segments.map(\.byteRange))
    }

    /// The proxy's fast path: URIs resolved as text (in line shares) and the text written with
    /// the replacements in place must match `resolve(_:)` and `rewrite(_:_:)` on every real playlist.
    @Test(arguments: files)
    func rewritesBytesAsRewriteDoes(file: String) throws {
        let playlist = try Self.playlist(file)
        let rewriter = HLSRewriter(baseURL: URL(string: "https://origin.example.com/path/to/playlist.m3u8")!)
        let whole = rewriter.resolvedURIs(of: playlist)
        let half = playlist.lineCount / 2
        #expect(
            rewriter.resolvedURIs(of: playlist, lines: 0..<half)
                + rewriter.resolvedURIs(of: playlist, lines: half..<playlist.lineCount) == whole)
        let references = playlist.uriReferences
        #expect(whole.count == references.count)
        for (resolved, reference) in zip(whole, references) {
            #expect(resolved?.text == rewriter.resolve(reference.uri)?.absoluteString)
            #expect(resolved.map { URL(string: $0.text)?.absoluteString == $0.text } ?? true)
            if let resolved { #expect(resolved.kind == reference.kind) }
        }
        let expected = rewriter.rewrite(playlist) { url, kind in "p://\(kind)/\(url.absoluteString)" }
        var sequenceNumbers: [Int] = []
        let bytes = rewriter.rewrittenBytes(playlist, reservingCapacity: 0) { site, output in
            #expect(site.uri == references[site.number].uri)
            #expect(site.line + 1 == references[site.number].line)
            if let number = site.mediaSequenceNumber { sequenceNumbers.append(number) }
            guard let uri = whole[site.number] else { return false }
            output.append(contentsOf: "p://\(uri.kind)/\(uri.text)".utf8)
            return true
        }
        #expect(bytes == expected.serializedBytes())
        // Every segment's URI line came with the segment's media sequence number.
        #expect(sequenceNumbers == playlist.segments.map(\.mediaSequenceNumber))
    }

    @Test func readsTheLargePlaylist() throws {
        let file = "grafov-m3u8/sample-playlists/media-playlist-large.m3u8"
        let bytes = try Self.bytes(file)
        let playlist = try HLSPlaylist(parsing: bytes)
        #expect(playlist.segments.count == 40_001)
        #expect(playlist.segments.first?.uri == "movie0.ts")
        #expect(playlist.segments.last?.uri == "movie40000.ts")
        #expect(playlist.segments.last?.mediaSequenceNumber == 40_000)
        #expect(playlist.totalDuration == 400_010)
        #expect(playlist.targetDuration == 10)
        #expect(playlist.isLive)
        #expect(playlist.serializedBytes() == bytes)
    }

    /// URIs of a playlist found with plain string matching, as an oracle for `uriReferences`.
    static func countURIsNaively(_ text: String) -> Int {
        let uriTags = [
            "EXT-X-KEY", "EXT-X-SESSION-KEY", "EXT-X-MAP", "EXT-X-MEDIA", "EXT-X-STREAM-INF",
            "EXT-X-I-FRAME-STREAM-INF",
            "EXT-X-IMAGE-STREAM-INF", "EXT-X-PART", "EXT-X-PRELOAD-HINT", "EXT-X-RENDITION-REPORT",
            "EXT-X-SESSION-DATA",
            "EXT-X-CONTENT-STEERING", "EXT-X-DATERANGE",
        ].map { "#\($0):" }
        var count = 0
        for rawLine in text.split(whereSeparator: { $0 == "\n" || $0 == "\r" || $0 == "\r\n" }) {
            let line = rawLine.trimmingCharacters(in: .whitespaces)
            if line.isEmpty { continue }
            if !line.hasPrefix("#") {
                count += 1
            } else if uriTags.contains(where: { line.hasPrefix($0) }) {
                count += line.components(separatedBy: "URI=").count - 1
                count += line.components(separatedBy: "X-ASSET-LIST=").count - 1
            }
        }
        return count
    }
}
