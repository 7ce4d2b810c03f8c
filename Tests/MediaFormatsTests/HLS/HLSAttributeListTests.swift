import Foundation
import MediaFormats
import Testing

@Suite("HLS attribute lists")
struct HLSAttributeListTests {
    @Test func readsEveryValueType() throws {
        let list = try HLSAttributeList(
            parsing:
                #"BANDWIDTH=1280000,CODECS="avc1.4d401f,mp4a.40.2",RESOLUTION=1920x1080,FRAME-RATE=29.970,TIME-OFFSET=-3.5,IV=0x0A0b,DEFAULT=YES,FORCED=NO"#
        )
        #expect(list.count == 8)
        #expect(
            list.map(\.name) == [
                "BANDWIDTH", "CODECS", "RESOLUTION", "FRAME-RATE", "TIME-OFFSET", "IV", "DEFAULT", "FORCED",
            ])
        #expect(list["BANDWIDTH"]?.integer == 1_280_000)
        #expect(list["CODECS"]?.text == "avc1.4d401f,mp4a.40.2")
        #expect(list["CODECS"]?.isQuoted == true)
        #expect(list["CODECS"]?.integer == nil)
        #expect(list["RESOLUTION"]?.resolution == HLSResolution(width: 1920, height: 1080))
        #expect(list["FRAME-RATE"]?.decimal == 29.97)
        #expect(list["TIME-OFFSET"]?.decimal == -3.5)
        #expect(list["IV"]?.hexadecimalBytes == [0x0A, 0x0B])
        #expect(list["DEFAULT"]?.boolean == true)
        #expect(list["FORCED"]?.boolean == false)
        #expect(list["MISSING"] == nil)
    }

    @Test func toleratesBlanksAfterCommasAndATrailingComma() throws {
        let list = try HLSAttributeList(parsing: #"PROGRAM-ID=1, BANDWIDTH=200000, URI="a.m3u8","#)
        #expect(list.map(\.name) == ["PROGRAM-ID", "BANDWIDTH", "URI"])
        #expect(list["URI"]?.text == "a.m3u8")
    }

    @Test func quotedValuesMayHoldCommasAndEquals() throws {
        let list = try HLSAttributeList(parsing: #"URI="k.php?a=1,b=2",X-Y="""#)
        #expect(list["URI"]?.text == "k.php?a=1,b=2")
        #expect(list["X-Y"]?.text == "")
    }

    @Test(arguments: [
        (#"URI="a.m3u8"#, "unterminated"),
        ("BANDWIDTH", "expected NAME=value"),
        ("=1", "without a name"),
        ("BANDWIDTH=", "empty value"),
        (#"URI="a"x"#, "after the quoted value"),
        (#"A=b"c""#, "stray"),
        ("A B=1", "invalid attribute name"),
    ])
    func reportsMalformedLists(text: String, problem: String) {
        #expect {
            _ = try HLSAttributeList(parsing: text)
        } throws: { error in
            guard let error = error as? HLSParseError else { return false }
            return error.kind == .invalidAttributeList && error.description.contains(problem)
        }
    }

    @Test func printsAsWritten() throws {
        var list = try HLSAttributeList(parsing: #"TYPE=AUDIO,GROUP-ID="aac",NAME="English""#)
        #expect(list.description == #"TYPE=AUDIO,GROUP-ID="aac",NAME="English""#)
        list["NAME"] = .quoted("Deutsch")
        list["LANGUAGE"] = .quoted("de")
        list["BIT-DEPTH"] = .integer(16)
        list["TYPE"] = nil
        #expect(list.description == #"GROUP-ID="aac",NAME="Deutsch",LANGUAGE="de",BIT-DEPTH=16"#)
    }

    @Test func tagsExposeTheirAttributesWithVariablesApplied() throws {
        let playlist = try HLSPlaylist(
            parsing: """
                #EXTM3U
                #EXT-X-DEFINE:NAME="id",VALUE="42"
                #EXT-X-DATERANGE:ID="ad-{$id}",START-DATE="2020-03-26T11:26:25.122Z",PLANNED-DURATION=30.000,SCTE35-OUT=0xFC30
                #EXTINF:4,
                a.ts
                """)
        let dateRange = try #require(playlist.firstTag(named: .dateRange))
        #expect(dateRange.attributes["ID"]?.text == "ad-42")
        #expect(dateRange.attributes["PLANNED-DURATION"]?.decimal == 30)
        #expect(dateRange.value?.hasPrefix(#"ID="ad-{$id}""#) == true, "the value stays as written")
    }

    @Test(arguments: [
        ("#EXT-X-STREAM-INF:BANDWIDTH=\"1\"\na.m3u8", "BANDWIDTH of #EXT-X-STREAM-INF must be a decimal integer"),
        ("#EXT-X-STREAM-INF:BANDWIDTH=1.5\na.m3u8", "decimal integer, found 1.5"),
        ("#EXT-X-STREAM-INF:BANDWIDTH=1,RESOLUTION=\"1x1\"\na.m3u8", "RESOLUTION"),
        ("#EXT-X-STREAM-INF:BANDWIDTH=1,CODECS=avc1\na.m3u8", "CODECS of #EXT-X-STREAM-INF must be a quoted string"),
        ("#EXT-X-STREAM-INF:BANDWIDTH=1,CLOSED-CAPTIONS=cc\na.m3u8", "quoted string or NONE"),
        ("#EXT-X-MEDIA:TYPE=\"AUDIO\",GROUP-ID=\"a\",NAME=\"n\"", "unquoted enumerated string"),
        ("#EXT-X-KEY:METHOD=AES-128,URI=\"k\",IV=[IV]", "hexadecimal sequence"),
        ("#EXT-X-START:TIME-OFFSET=abc", "decimal number"),
        ("#EXT-X-PART-INF:PART-TARGET=-1", "non-negative decimal number"),
    ])
    func checksAttributeTypes(body: String, message: String) {
        let error = HLSTestSupport.parseError("#EXTM3U\n" + body + "\n")
        #expect(error?.kind == .invalidAttributeValue)
        #expect(error?.line == 2)
        #expect(error?.description.contains(message) == true, "\(String(describing: error))")
    }

    @Test func duplicateAttributeIsAnError() {
        let error = HLSTestSupport.parseError("#EXTM3U\n#EXT-X-MAP:URI=\"a\",URI=\"b\"\n")
        #expect(error?.kind == .duplicateAttribute)
    }

    @Test func unknownAttributesAreKept() throws {
        let playlist = try HLSPlaylist(
            parsing: "#EXTM3U\n#EXT-X-STREAM-INF:BANDWIDTH=1,UNKNOWN_TAG1=VALUE1,X-Y=\"z\"\na.m3u8\n")
        let attributes = try #require(playlist.variants.first?.attributes)
        #expect(attributes["UNKNOWN_TAG1"]?.text == "VALUE1")
        #expect(attributes["X-Y"]?.text == "z")
    }
}
