import Foundation
import MediaFormats
import Testing
import TunerTesting

@Suite("XMLTV parser")
struct XMLTVParserTests {
    static let sample = """
        <?xml version="1.0" encoding="UTF-8"?>
        <!DOCTYPE tv SYSTEM "xmltv.dtd" [
          <!ENTITY custom "ignored">
        ]>
        <tv generator-info-name="test &amp; co">
          <!-- a comment with <programme> inside must not count -->
          <channel id="bbc1.uk">
            <display-name lang="en">BBC One</display-name>
            <display-name>101</display-name>
            <icon src="http://l/bbc1.png" width="100" height="50"/>
            <url>http://bbc.co.uk</url>
          </channel>
          <programme start="20151126060000 +0000" stop="20151126091500 +0000" channel="bbc1.uk" catchup-id="abc/123">
            <title lang="en">Breakfast &amp; News</title>
            <title lang="cy">Brecwast</title>
            <sub-title lang="en">Episode &#49;&#x32;</sub-title>
            <desc lang="en"><![CDATA[Round-up of <news> & weather.]]></desc>
            <desc lang="cy">Newyddion</desc>
            <credits><actor role="Host">Someone</actor></credits>
            <date>2015</date>
            <category lang="en">News</category>
            <category lang="en">Weather</category>
            <length units="minutes">195</length>
            <icon src="http://i/p.jpg"/>
            <episode-num system="xmltv_ns">5.3/10.</episode-num>
            <episode-num system="onscreen">S06E04</episode-num>
            <video><aspect>16:9</aspect></video>
            <new/>
            <previously-shown start="20151120060000 +0100" channel="bbc2.uk"/>
            <premiere lang="en">First showing</premiere>
            <rating system="VCHIP">
              <value>TV-14</value>
              <icon src="http://r/tv14.png"/>
            </rating>
            <star-rating system="imdb"><value>7/10</value></star-rating>
          </programme>
        </tv>
        """

    @Test func readsChannelsWithNamesIconsAndURLs() throws {
        let guide = XMLTVParser.parse(Self.sample)
        #expect(guide.warnings.isEmpty)
        let channel = try #require(guide.channels.first)
        #expect(guide.channels.count == 1)
        #expect(channel.id == "bbc1.uk")
        #expect(channel.displayNames == [XMLTVText("BBC One", lang: "en"), XMLTVText("101")])
        #expect(channel.name == "BBC One")
        #expect(channel.icons == [XMLTVIcon(src: "http://l/bbc1.png", width: 100, height: 50)])
        #expect(channel.urls == ["http://bbc.co.uk"])
    }

    @Test func readsEveryProgrammeField() throws {
        let guide = XMLTVParser.parse(Self.sample)
        let programme = try #require(guide.programmes.first)
        #expect(guide.programmes.count == 1)
        #expect(programme.channel == "bbc1.uk")
        #expect(programme.start == XMLTVDate("20151126060000 +0000"))
        #expect(programme.stop == XMLTVDate("20151126091500 +0000"))
        #expect(programme.catchupID == "abc/123")
        #expect(programme.titles == [XMLTVText("Breakfast & News", lang: "en"), XMLTVText("Brecwast", lang: "cy")])
        #expect(programme.title == "Breakfast & News")
        #expect(programme.subTitles == [XMLTVText("Episode 12", lang: "en")])
        #expect(
            programme.descriptions == [
                XMLTVText("Round-up of <news> & weather.", lang: "en"), XMLTVText("Newyddion", lang: "cy"),
            ])
        #expect(programme.descriptions.xmltvBest(for: ["cy-GB"]) == "Newyddion")
        #expect(programme.descriptions.xmltvBest(for: ["fr"]) == "Round-up of <news> & weather.")
        #expect(programme.categories.map(\.value) == ["News", "Weather"])
        #expect(programme.date == "2015")
        #expect(programme.length == 195 * 60)
        #expect(programme.icons == [XMLTVIcon(src: "http://i/p.jpg")])
        #expect(
            programme.episodeNumbers == [
                XMLTVEpisodeNumber(system: "xmltv_ns", value: "5.3/10."),
                XMLTVEpisodeNumber(system: "onscreen", value: "S06E04"),
            ])
        #expect(programme.seasonNumber == 6)
        #expect(programme.episodeNumber == 4)
        #expect(programme.seasonEpisode?.totalEpisodes == 10)
        #expect(programme.isNew)
        #expect(
            programme.previouslyShown
                == XMLTVPreviouslyShown(start: XMLTVDate("20151120060000 +0100"), channel: "bbc2.uk"))
        #expect(programme.isRepeat)
        #expect(programme.premiere == XMLTVText("First showing", lang: "en"))
        #expect(
            programme.ratings == [
                XMLTVRating(system: "VCHIP", value: "TV-14", icons: [XMLTVIcon(src: "http://r/tv14.png")])
            ])
        #expect(programme.starRatings == [XMLTVRating(system: "imdb", value: "7/10")])
    }

    @Test func givesTheSameResultForAnyChunking() throws {
        let whole = XMLTVParser.parse(Self.sample)
        for chunkSize in 1...23 {
            #expect(XMLTVTestSupport.parse(Self.sample, chunkSize: chunkSize) == whole, "chunk size \(chunkSize)")
        }
    }

    @Test func readsMinimalAndSingleQuotedMarkup() throws {
        let guide = XMLTVParser.parse(
            """
            <tv><channel id='17'><display-name>Service 1</display-name></channel><programme channel='17' start='20250216080000 -0500' stop='20250216120000 -0500'><title lang='es'>Programación Infantil</title><previously-shown/><premiere/></programme></tv>
            """)
        #expect(guide.warnings.isEmpty)
        #expect(guide.channels.map(\.id) == ["17"])
        let programme = try #require(guide.programmes.first)
        #expect(programme.titles == [XMLTVText("Programación Infantil", lang: "es")])
        #expect(programme.start.utcOffset == -5 * 3600)
        #expect(programme.previouslyShown == XMLTVPreviouslyShown())
        #expect(programme.premiere == XMLTVText(""))
    }

    @Test func decodesEntitiesAndKeepsBareAmpersands() throws {
        let guide = XMLTVParser.parse(
            """
            <tv><programme channel="a&amp;b" start="20200101000000"><title>Tom & Jerry &lt;3 &quot;x&quot; &apos;y&apos; &#233;&#xE9;&#X1F600; &nbsp;&unknown; &#0; &#xZZ;</title></programme></tv>
            """)
        let programme = try #require(guide.programmes.first)
        #expect(programme.channel == "a&b")
        #expect(programme.title == "Tom & Jerry <3 \"x\" 'y' éé😀 \u{A0}&unknown; &#0; &#xZZ;")
    }

    @Test func normalisesLineEndsAndTrimsText() throws {
        let guide = XMLTVParser.parse(
            """
            <tv>\r\n<programme channel=\"c\" start=\"20200101\">\r\n<desc>\r\n  Line one\r\nLine two\r  \
            </desc>\r\n</programme>\r\n</tv>
            """
        )
        #expect(guide.programmes.first?.descriptions.first?.value == "Line one\nLine two")
    }

    @Test func convertsLatin1AndWindows1252() throws {
        let latin1: [UInt8] =
            Array("<?xml version=\"1.0\" encoding=\"ISO-8859-1\"?><tv><channel id=\"c\"><display-name>Caf".utf8) + [
                0xE9
            ]
            + Array("</display-name><display-name>already UTF-8: caf".utf8) + [0xC3, 0xA9]
            + Array("</display-name></channel></tv>".utf8)
        let guide = XMLTVParser.parse(latin1)
        // Text that is valid UTF-8 is kept as such even in a document declared ISO-8859-1,
        // because guides often lie about their encoding.
        #expect(guide.channels.first?.displayNames.map(\.value) == ["Café", "already UTF-8: café"])

        let windows: [UInt8] =
            Array("<?xml version='1.0' encoding='windows-1252'?><tv><channel id=\"c\"><display-name>".utf8) + [
                0x80, 0x20, 0x93, 0x71, 0x94,
            ]
            + Array("</display-name></channel></tv>".utf8)
        #expect(XMLTVParser.parse(windows).channels.first?.name == "€ “q”")
    }

    @Test(arguments: [false, true])
    func readsUTF16Documents(bigEndian: Bool) throws {
        let text =
            """
            <?xml version=\"1.0\" encoding=\"UTF-16\"?><tv><channel id=\"c\"><display-name>Ümlaut \
            😀</display-name></channel></tv>
            """
        var bytes: [UInt8] = bigEndian ? [0xFE, 0xFF] : [0xFF, 0xFE]
        for unit in text.utf16 {
            let pair = [UInt8(unit >> 8), UInt8(unit & 0xFF)]
            bytes += bigEndian ? pair : pair.reversed()
        }
        for chunkSize in [1, 3, 1000] {
            let guide = XMLTVTestSupport.parse(bytes, chunkSize: chunkSize)
            #expect(guide.channels.first?.name == "Ümlaut 😀", "chunk size \(chunkSize)")
            #expect(guide.warnings.isEmpty)
        }
    }

    @Test func skipsAUTF8ByteOrderMark() throws {
        let bytes: [UInt8] = [0xEF, 0xBB, 0xBF] + Array("<?xml version=\"1.0\"?><tv><channel id=\"c\"/></tv>".utf8)
        let guide = XMLTVParser.parse(bytes)
        #expect(guide.channels.map(\.id) == ["c"])
        #expect(guide.warnings.isEmpty)
    }

    @Test func skipsInvalidProgrammesWithWarnings() throws {
        let guide = XMLTVParser.parse(
            """
            <tv>
            <channel><display-name>No id</display-name></channel>
            <programme start="20200101000000"><title>No channel</title></programme>
            <programme channel="c" start="yesterday"><title>Bad start</title></programme>
            <programme channel="c"><title>No start</title></programme>
            <programme channel="c" start="20200101000000" stop="soon"><title>Bad stop</title></programme>
            </tv>
            """)
        #expect(guide.channels.isEmpty)
        #expect(guide.programmes.map(\.title) == ["Bad stop"])
        #expect(guide.programmes.first?.stop == nil)
        #expect(
            guide.warnings.map(\.kind) == [
                .channelWithoutID, .programmeWithoutChannel, .invalidStart, .invalidStart, .invalidStop,
            ])
        #expect(guide.warnings[2].detail == "yesterday")
        #expect(guide.warnings.allSatisfy { $0.offset > 0 })
    }

    @Test func recoversFromUnclosedAndStrayTags() throws {
        let guide = XMLTVParser.parse(
            """
            <tv>
            <programme channel="c" start="20200101000000"><title>A</title><desc>one<br>two</desc></programme>
            </stray>
            <programme channel="c" start="20200101010000"><title>B</title><sub-title>never closed</programme>
            <programme channel="c" start="20200101020000"><title>C</title></programme>
            </tv>
            """)
        #expect(guide.programmes.map(\.title) == ["A", "B", "C"])
        #expect(guide.programmes[0].descriptions.first?.value == "onetwo")
        #expect(guide.programmes[1].subTitles.first?.value == "never closed")
        #expect(guide.warnings.map(\.kind) == [.unclosedElement, .mismatchedEndTag, .unclosedElement])
    }

    @Test func reportsATruncatedDocumentButKeepsWhatWasComplete() throws {
        let guide = XMLTVParser.parse(
            """
            <tv><programme channel="c" start="20200101000000"><title>Complete</title></programme><programme channel="c" start="20200101010000"><title>Cut o
            """)
        #expect(guide.programmes.map(\.title) == ["Complete"])
        #expect(guide.warnings.map(\.kind) == [.truncatedDocument])
        let cutInTag = XMLTVParser.parse("<tv><programme channel=\"c\" start=\"2020")
        #expect(cutInTag.warnings.map(\.kind) == [.truncatedDocument])
    }

    @Test func ignoresDocumentsThatAreNotGuides() throws {
        let guide = XMLTVParser.parse(
            """
            <?xml version="1.0" encoding="UTF-8"?>
            <channels>
              <channel site="example.com" lang="en" xmltv_id="Channel1.us" site_id="140">Custom Channel 1</channel>
            </channels>
            """)
        #expect(guide.channels.isEmpty)
        #expect(guide.warnings.map(\.kind) == [.notXMLTV])
    }

    @Test func warnsAboutUnsupportedEncodings() throws {
        let guide = XMLTVParser.parse("<?xml version=\"1.0\" encoding=\"KOI8-R\"?><tv><channel id=\"c\"/></tv>")
        #expect(guide.channels.count == 1)
        #expect(guide.warnings.map(\.kind) == [.unsupportedEncoding])
    }

    @Test func limitsTokensAndTextToKeepMemoryFlat() throws {
        let longComment = "<!--" + String(repeating: "x", count: 5000) + "-->"
        let longDesc = String(repeating: "é", count: 3000)
        let text =
            """
            <tv>\(longComment)<programme channel=\"c\" \
            start=\"20200101\"><desc>\(longDesc)</desc><title>T</title></programme></tv>
            """
        let guide = XMLTVTestSupport.parse(
            Array(text.utf8), chunkSize: 100, options: .init(maxTokenLength: 1000, maxTextLength: 1001))
        #expect(guide.programmes.map(\.title) == ["T"])
        #expect(guide.programmes.first?.descriptions.first?.value == String(repeating: "é", count: 500))
        #expect(guide.warnings.map(\.kind) == [.tokenTooLong, .textTooLong])
    }

    @Test func neverCrashesOnRandomBytes() throws {
        var generator = SplitMix64(seed: 7)
        let pieces = [
            "<", ">", "/", "tv", "programme", "channel", "title", " start=\"2020\"", " channel='c'", "&amp;", "&",
            "<!--", "-->",
            "<![CDATA[", "]]>", "<?xml", "?>", "\"", "'", "=", " ", "\n", "é", "\u{FEFF}", "<!DOCTYPE", "[", "]",
        ]
        for _ in 0..<300 {
            let text = (0..<Int.random(in: 0..<60, using: &generator)).map { _ in
                pieces.randomElement(using: &generator)!
            }.joined()
            let whole = XMLTVParser.parse(text)
            let chunked = XMLTVTestSupport.parse(text, chunkSize: Int.random(in: 1...7, using: &generator))
            #expect(whole.channels == chunked.channels)
            #expect(whole.programmes == chunked.programmes)
        }
    }

    @Test func asyncSequenceYieldsTheSameEvents() async throws {
        let bytes = Array(Self.sample.utf8)
        let chunks = AsyncStream<[UInt8]> { continuation in
            for start in stride(from: 0, to: bytes.count, by: 64) {
                continuation.yield(Array(bytes[start..<min(start + 64, bytes.count)]))
            }
            continuation.finish()
        }
        var events: [XMLTVParser.Event] = []
        for try await event in XMLTVParser.events(in: chunks) {
            events.append(event)
        }
        let guide = XMLTVParser.parse(bytes)
        #expect(events == guide.channels.map { .channel($0) } + guide.programmes.map { .programme($0) })
    }

    @Test func countsWhatItEmits() {
        var parser = XMLTVParser()
        parser.feed(Array(Self.sample.utf8)) { _ in }
        parser.finish { _ in }
        #expect(parser.channelCount == 1)
        #expect(parser.programmeCount == 1)
        #expect(parser.warningCount == 0)
    }
}
