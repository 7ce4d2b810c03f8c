import Foundation
import MediaFormats
import Testing

@Suite("HLS variables (EXT-X-DEFINE)")
struct HLSVariableTests {
    @Test func substitutesInURILinesQuotedStringsAndHexadecimals() throws {
        let text = """
            #EXTM3U
            #EXT-X-DEFINE:NAME="host",VALUE="example.com"
            #EXT-X-DEFINE:NAME="two",VALUE="2"
            #EXT-X-DEFINE:NAME="copy",VALUE="{$host}"
            #EXT-X-KEY:METHOD=AES-128,URI="https://{$host}/key",IV=0x0000000{$two}
            #EXTINF:4,title {$two}
            https://{$copy}/a{$two}.ts
            """
        let playlist = try HLSPlaylist(parsing: text)
        #expect(playlist.variables == ["host": "example.com", "two": "2", "copy": "example.com"])
        let segment = try #require(playlist.segments.first)
        #expect(segment.uri == "https://example.com/a2.ts")
        #expect(segment.title == "title {$two}", "titles are not substituted")
        #expect(segment.key?.uri == "https://example.com/key")
        #expect(segment.key?.iv == "0x00000002")
        #expect(playlist.serialized() == text + "\n", "serialization keeps the references")
    }

    @Test func importsFromTheMasterAndTheQuery() throws {
        let text = """
            #EXTM3U
            #EXT-X-DEFINE:IMPORT="token"
            #EXT-X-DEFINE:QUERYPARAM="session"
            #EXTINF:4,
            a.ts?t={$token}&s={$session}
            """
        let configuration = HLSParser.Configuration(
            playlistURL: URL(string: "https://example.com/media.m3u8?session=s1&x=y"),
            importedVariables: ["token": "abc"])
        let playlist = try HLSPlaylist(parsing: text, configuration: configuration)
        #expect(playlist.segments.first?.uri == "a.ts?t=abc&s=s1")

        let withoutContext = HLSTestSupport.parseError(text)
        #expect(withoutContext?.kind == .undefinedVariable)
        #expect(withoutContext?.line == 2)
    }

    @Test func referenceWithoutDefinitionIsAnError() {
        let error = HLSTestSupport.parseError("#EXTM3U\n#EXTINF:4,\na{$bar}.mp4\n")
        #expect(error?.kind == .undefinedVariable)
        #expect(error?.line == 3)
        #expect(error?.description.contains("{$bar}") == true)
    }

    @Test func referenceBeforeItsDefinitionIsAnError() {
        let error = HLSTestSupport.parseError(
            "#EXTM3U\n#EXTINF:4,\na{$bar}.mp4\n#EXT-X-DEFINE:NAME=\"bar\",VALUE=\"1\"\n")
        #expect(error?.kind == .undefinedVariable)
        #expect(error?.line == 3)
    }

    @Test func undefinedReferenceInAnAttributeIsAnError() {
        let error = HLSTestSupport.parseError("#EXTM3U\n#EXT-X-MAP:URI=\"{$init}.mp4\"\n")
        #expect(error?.kind == .undefinedVariable)
        #expect(error?.line == 2)
    }

    @Test func duplicateDefinitionIsAnError() {
        let error = HLSTestSupport.parseError(
            "#EXTM3U\n#EXT-X-DEFINE:NAME=\"foo\",VALUE=\"a\"\n#EXT-X-DEFINE:NAME=\"foo\",VALUE=\"b\"\n")
        #expect(error?.kind == .duplicateVariable)
        #expect(error?.line == 3)
    }

    @Test func bracesThatAreNotReferencesAreLeftAlone() throws {
        let playlist = try HLSPlaylist(parsing: "#EXTM3U\n#EXTINF:4,\na{b}{$}{$-x.ts\n")
        #expect(playlist.segments.first?.uri == "a{b}{$}{$-x.ts")
    }
}
