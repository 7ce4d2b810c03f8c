import Foundation
import MediaFormats
import Testing
import TunerTesting

@Suite("M3U parser")
struct M3UParserTests {
    private func parse(_ text: String) -> M3UPlaylist { M3UParser.parse(text) }

    @Test func readsHeaderAttributesWithGuideURLListsMergedInOrder() throws {
        let playlist = parse(
            """
            #EXTM3U x-tvg-url="http://a/1.xml, http://a/2.xml.gz" url-tvg="http://a/2.xml.gz,http://b/3.xml" tvg-shift="-2.5" catchup="append" catchup-days="7" catchup-source="?utc={utc}" refresh="3600" m3uautoload=1
            #EXTINF:-1,One
            http://x/1
            """)
        let header = playlist.header
        #expect(header.tvgURLs == ["http://a/1.xml", "http://a/2.xml.gz", "http://b/3.xml"])
        #expect(header.tvgShift == "-2.5")
        #expect(header.tvgShiftHours == -2.5)
        #expect(header.catchup == "append")
        #expect(header.catchupDays == "7")
        #expect(header.catchupDayCount == 7)
        #expect(header.catchupSource == "?utc={utc}")
        #expect(
            header.extraAttributes == [
                M3UAttribute(name: "refresh", value: "3600"), M3UAttribute(name: "m3uautoload", value: "1"),
            ])
        #expect(playlist.warnings.isEmpty)
    }

    @Test func readsEveryKnownEntryAttributeAndAlias() throws {
        let playlist = parse(
            """
            #EXTM3U
            #EXTINF:-1 tvg-id="bbc1.uk" tvg-name="BBC One" logo="http://l/bbc.png" tvg-url="http://g/uk.xml" group-title="UK;News" channel-number="101" tvg-country="GB" tvg-language="English" tvg-rec="3" tvg-shift="1" radio="true" catchup-type="flussonic" catchup-days="5" catchup-source="http://c/{start}" timeshift="2" user-agent="UA/1" http-referrer="http://ref/",BBC One HD
            http://x/bbc1
            """)
        let entry = try #require(playlist.entries.first)
        #expect(entry.title == "BBC One HD")
        #expect(entry.duration == -1)
        #expect(entry.tvgID == "bbc1.uk")
        #expect(entry.tvgName == "BBC One")
        #expect(entry.tvgLogo == "http://l/bbc.png")
        #expect(entry.tvgURL == "http://g/uk.xml")
        #expect(entry.groupTitle == "UK;News")
        #expect(entry.groups == ["UK", "News"])
        #expect(entry.channelNumber == "101")
        #expect(entry.tvgCountry == "GB")
        #expect(entry.tvgLanguage == "English")
        #expect(entry.tvgRec == "3")
        #expect(entry.tvgShift == "1")
        #expect(entry.isRadio)
        #expect(entry.catchup == "flussonic")
        #expect(entry.catchupDays == "5")
        #expect(entry.catchupDayCount == 5)
        #expect(entry.catchupSource == "http://c/{start}")
        #expect(entry.timeshift == "2")
        #expect(entry.userAgent == "UA/1")
        #expect(entry.httpReferrer == "http://ref/")
        #expect(entry.extraAttributes.isEmpty)
        #expect(entry.url == "http://x/bbc1")
        #expect(playlist.warnings.isEmpty)
    }

    @Test func keepsUnknownAndRepeatedAttributesInOrder() throws {
        let entry = try #require(
            parse(
                """
                #EXTM3U
                #EXTINF:-1 channelID="7" tvg-logo="a.png" lang="tur" logo="b.png" http-user-agent="UA2" user-agent="UA1",T
                http://x
                """
            ).entries.first)
        #expect(entry.tvgLogo == "a.png")
        #expect(entry.userAgent == "UA2")
        #expect(
            entry.extraAttributes == [
                M3UAttribute(name: "channelID", value: "7"),
                M3UAttribute(name: "lang", value: "tur"),
                M3UAttribute(name: "logo", value: "b.png"),
                M3UAttribute(name: "user-agent", value: "UA1"),
            ])
        #expect(entry.extraAttributes.m3uValue(named: "CHANNELID") == "7")
    }

    @Test(arguments: [
        ("#EXTINF:-1,T", -1.0),
        ("#EXTINF:0,T", 0),
        ("#EXTINF:16 tvg-id=\"x\",T", 16),
        ("#EXTINF:2.5,T", 2.5),
        ("#EXTINF: -1, T", -1),
        ("#EXTINF:-1.000,T", -1),
        ("#EXTINF:+30,T", 30),
    ])
    func readsDurations(line: String, expected: Double) throws {
        let playlist = parse("#EXTM3U\n\(line)\nhttp://x\n")
        let entry = try #require(playlist.entries.first)
        #expect(entry.duration == expected)
        #expect(entry.title == "T")
        #expect(playlist.warnings.isEmpty)
    }

    @Test func toleratesMissingAndInvalidDurationsWithWarnings() throws {
        let playlist = parse(
            """
            #EXTM3U
            #EXTINF: tvg-id="a",No duration
            http://x/1
            #EXTINF:abc,Bad duration
            http://x/2
            #EXTINF:,Empty duration
            http://x/3
            """)
        #expect(playlist.entries.map(\.title) == ["No duration", "Bad duration", "Empty duration"])
        #expect(playlist.entries.map(\.duration) == [-1, -1, -1])
        #expect(playlist.entries[0].tvgID == "a")
        #expect(playlist.warnings.map(\.kind) == [.missingDuration, .invalidDuration, .missingDuration])
        #expect(playlist.warnings.map(\.line) == [2, 4, 6])
        #expect(playlist.warnings[1].detail == "abc")
    }

    @Test func titleIsEverythingAfterTheFirstCommaOutsideQuotes() throws {
        let playlist = parse(
            """
            #EXTM3U
            #EXTINF:-1 tvg-name="The Good, the Bad and the Ugly" group-title="Movies, Westerns",The Good, the Bad and the Ugly
            movie.m3u8
            #EXTINF:-1, name,with comma
            http://x/2
            #EXTINF:-1 tvg-logo="http://a/x.png,y.png",  Spaced title\t
            http://x/3
            #EXTINF:-1,
            http://x/4
            """)
        #expect(
            playlist.entries.map(\.title) == ["The Good, the Bad and the Ugly", "name,with comma", "Spaced title", ""])
        #expect(playlist.entries[0].tvgName == "The Good, the Bad and the Ugly")
        #expect(playlist.entries[0].groupTitle == "Movies, Westerns")
        #expect(playlist.entries[2].tvgLogo == "http://a/x.png,y.png")
        #expect(playlist.entries[0].url == "movie.m3u8")
        #expect(playlist.warnings.isEmpty)
    }

    @Test func warnsWhenExtInfHasNoTitleSeparator() throws {
        let playlist = parse("#EXTM3U\n#EXTINF:-1 tvg-id=\"a\" tvg-name=\"Name\"\nhttp://x\n")
        let entry = try #require(playlist.entries.first)
        #expect(entry.title == "")
        #expect(entry.displayName == "Name")
        #expect(playlist.warnings.map(\.kind) == [.missingTitleSeparator])
    }

    @Test func matchesKeysAndTagsIgnoringCase() throws {
        let playlist = parse(
            """
            #extm3u X-TVG-URL="http://g"
            #ExtInf:-1 TVG-ID="A" Group-Title="G" tvg-LOGO="l",Title
            #extvlcopt:HTTP-User-Agent=UA
            http://x
            """)
        let entry = try #require(playlist.entries.first)
        #expect(playlist.header.tvgURLs == ["http://g"])
        #expect(entry.tvgID == "A")
        #expect(entry.groupTitle == "G")
        #expect(entry.tvgLogo == "l")
        #expect(entry.httpHeaders == [M3UAttribute(name: "User-Agent", value: "UA")])
        #expect(playlist.warnings.isEmpty)
    }

    @Test func readsSingleQuotesUnquotedValuesAndAttributesWithoutSpaces() throws {
        let entry = try #require(
            parse(
                """
                #EXTM3U
                #EXTINF:-1 tvg-id='single' tvg-name=bare tvg-logo="a.png"group-title="Glued" tvg-country="It's",T
                http://x
                """
            ).entries.first)
        #expect(entry.tvgID == "single")
        #expect(entry.tvgName == "bare")
        #expect(entry.tvgLogo == "a.png")
        #expect(entry.groupTitle == "Glued")
        #expect(entry.tvgCountry == "It's")
    }

    @Test func keepsQuotesInsideValuesThatDoNotEndThem() throws {
        let entry = try #require(
            parse(
                """
                #EXTM3U
                #EXTINF:-1 tvg-name="He said "hi" twice" group-title="G",T
                http://x
                """
            ).entries.first)
        #expect(entry.tvgName == "He said \"hi\" twice")
        #expect(entry.groupTitle == "G")
        #expect(entry.title == "T")
    }

    @Test func toleratesBrokenQuotesWithWarnings() throws {
        let playlist = parse(
            """
            #EXTM3U
            #EXTINF:-1 missing closing quote tvg-logo="http://example.com/logo.png group-title="Broken",Broken Quote
            http://example.com/broken
            #EXTINF:-1 tvg-name="Never closed,Title after
            http://example.com/unterminated
            """)
        #expect(playlist.entries.count == 2)
        #expect(playlist.entries[0].title == "Broken Quote")
        #expect(playlist.entries[0].url == "http://example.com/broken")
        #expect(playlist.entries[1].tvgName == "Never closed")
        #expect(playlist.entries[1].title == "Title after")
        let kinds = playlist.warnings.map(\.kind)
        #expect(kinds.filter { $0 == .attributeWithoutValue }.count == 3)
        #expect(kinds.contains(.suspiciousQuote))
        #expect(kinds.contains(.unterminatedQuote))
        #expect(playlist.warnings.allSatisfy { $0.line == 2 || $0.line == 4 })
    }

    @Test func groupsFallBackToExtGrp() throws {
        let playlist = parse(
            """
            #EXTM3U
            #EXTINF:-1,A
            #EXTGRP:Sports
            http://x/a
            #EXTINF:-1 group-title=" Movies ; ;Kids ",B
            #EXTGRP:Ignored
            http://x/b
            """)
        #expect(playlist.entries[0].extGroup == "Sports")
        #expect(playlist.entries[0].groups == ["Sports"])
        #expect(playlist.entries[1].groups == ["Movies", "Kids"])
        #expect(playlist.entries[1].extGroup == "Ignored")
    }

    @Test func tagsBeforeExtInfBelongToTheNextEntry() throws {
        let playlist = parse(
            """
            #EXTM3U
            #EXTVLCOPT:video-filter=invert
            #EXTGRP:ExtGroup1
            #EXTINF:-1 timeshift="0" catchup-days="7" catchup-type="flussonic" tvg-id="channel1" group-title="Group1",Channel1
            #EXTVLCOPT:param2=value2
            http://str00.iptv.domain/7331/mpegts?token=longtokenhere
            """)
        let entry = try #require(playlist.entries.first)
        #expect(
            entry.vlcOptions == [
                M3UAttribute(name: "video-filter", value: "invert"), M3UAttribute(name: "param2", value: "value2"),
            ])
        #expect(entry.extGroup == "ExtGroup1")
        #expect(entry.catchup == "flussonic")
        #expect(entry.timeshift == "0")
        #expect(playlist.entries.count == 1)
    }

    @Test func readsVLCOptionsAsHeaders() throws {
        let entry = try #require(
            parse(
                """
                #EXTM3U
                #EXTINF:-1,T
                #EXTVLCOPT:http-user-agent="Dalvik/2.1.0 (Linux; U; Android 6.0.1;)"
                #EXTVLCOPT:http-referrer=http://ref/
                #EXTVLCOPT:http-origin=http://origin
                #EXTVLCOPT:network-caching=1000
                #EXTVLCOPT:no-video
                http://x
                """
            ).entries.first)
        #expect(entry.vlcOptions.count == 5)
        #expect(entry.vlcOptions[0].value == "Dalvik/2.1.0 (Linux; U; Android 6.0.1;)")
        #expect(entry.vlcOptions[4] == M3UAttribute(name: "no-video", value: ""))
        #expect(
            entry.httpHeaders == [
                M3UAttribute(name: "User-Agent", value: "Dalvik/2.1.0 (Linux; U; Android 6.0.1;)"),
                M3UAttribute(name: "Referer", value: "http://ref/"),
                M3UAttribute(name: "Origin", value: "http://origin"),
            ])
    }

    @Test func readsKodiPropertiesVerbatimAndTheirStreamHeaders() throws {
        let entry = try #require(
            parse(
                """
                #EXTM3U
                #EXTINF:-1,T
                #KODIPROP:inputstream=inputstream.adaptive
                #KODIPROP:inputstream.adaptive.license_type=com.widevine.alpha
                #KODIPROP:inputstream.adaptive.license_key=https://lic/?a=1|Content-Type="application/octet-stream"|R{SSM}|
                #KODIPROP:inputstream.adaptive.stream_headers=User-Agent=Kodi%2F20&Cookie=a%3Db
                http://x/manifest.mpd
                """
            ).entries.first)
        #expect(entry.kodiProperties.count == 4)
        #expect(entry.kodiProperties[2].value == "https://lic/?a=1|Content-Type=\"application/octet-stream\"|R{SSM}|")
        #expect(
            entry.httpHeaders == [
                M3UAttribute(name: "User-Agent", value: "Kodi/20"),
                M3UAttribute(name: "Cookie", value: "a=b"),
            ])
    }

    @Test func readsExtHTTPJSONHeadersInOrder() throws {
        let playlist = parse(
            """
            #EXTM3U
            #EXTINF:-1,T
            #EXTHTTP:{"User-Agent":"Mozilla/5.0 \\"quoted\\" \\u00e9","Cookie":"a=b; c=d","X-Num":5}
            http://x
            #EXTINF:-1,U
            #EXTHTTP:{not json
            http://y
            """)
        #expect(
            playlist.entries[0].extHTTPHeaders == [
                M3UAttribute(name: "User-Agent", value: "Mozilla/5.0 \"quoted\" é"),
                M3UAttribute(name: "Cookie", value: "a=b; c=d"),
                M3UAttribute(name: "X-Num", value: "5"),
            ])
        #expect(playlist.entries[1].extHTTPHeaders.isEmpty)
        #expect(playlist.warnings.map(\.kind) == [.invalidHTTPHeaders])
        #expect(playlist.warnings.map(\.line) == [6])
    }

    @Test func splitsHeadersOffTheURLLine() throws {
        let playlist = parse(
            """
            #EXTM3U
            #EXTINF:17 tvg-id="SportChannel",Sport channel
            http://192.54.104.122:8080/d/abcdef/video.mp4|User-Agent=Mozilla/5.0 (Windows NT 6.1; WOW64; Trident/7.0; AS; rv:11.0) like Gecko&Referer=http://180upload.abc/embed-uaqmgcckhpcl.html
            #EXTINF:-1,Quoted
            http://x/q.m3u8|User-Agent="VLC/3.0 (a&b)"&Referer="http://r/?a=1&b=2"
            #EXTINF:-1,Encoded
            http://x/e.m3u8|user-agent=Kodi%2F19%20%26%20more&X-Forwarded-For=1.2.3.4&broken
            #EXTINF:-1,Pipe in URL
            http://x/a|b
            #EXTINF:-1,Trailing pipe
            http://x/t.m3u8|
            """)
        #expect(
            playlist.entries.map(\.url) == [
                "http://192.54.104.122:8080/d/abcdef/video.mp4", "http://x/q.m3u8", "http://x/e.m3u8", "http://x/a|b",
                "http://x/t.m3u8",
            ])
        #expect(
            playlist.entries[0].urlHeaders == [
                M3UAttribute(
                    name: "User-Agent",
                    value: "Mozilla/5.0 (Windows NT 6.1; WOW64; Trident/7.0; AS; rv:11.0) like Gecko"),
                M3UAttribute(name: "Referer", value: "http://180upload.abc/embed-uaqmgcckhpcl.html"),
            ])
        #expect(
            playlist.entries[1].urlHeaders == [
                M3UAttribute(name: "User-Agent", value: "VLC/3.0 (a&b)"),
                M3UAttribute(name: "Referer", value: "http://r/?a=1&b=2"),
            ])
        #expect(
            playlist.entries[2].urlHeaders == [
                M3UAttribute(name: "user-agent", value: "Kodi/19 & more"),
                M3UAttribute(name: "X-Forwarded-For", value: "1.2.3.4"),
            ])
        #expect(playlist.entries[2].httpHeaders.first == M3UAttribute(name: "User-Agent", value: "Kodi/19 & more"))
        #expect(playlist.entries[4].urlHeaders.isEmpty)
        #expect(playlist.warnings.map(\.kind) == [.invalidURLHeader])
        #expect(playlist.warnings.first?.line == 7)
    }

    @Test func theMostSpecificHeaderSourceWins() throws {
        let entry = try #require(
            parse(
                """
                #EXTM3U
                #EXTINF:-1 http-user-agent="attr" http-referrer="attr-ref" http-origin="attr-origin",T
                #EXTVLCOPT:http-user-agent=vlc
                #EXTVLCOPT:http-referrer=vlc-ref
                #EXTHTTP:{"Referer":"json-ref"}
                http://x|User-Agent=pipe
                """
            ).entries.first)
        #expect(
            entry.httpHeaders == [
                M3UAttribute(name: "User-Agent", value: "pipe"),
                M3UAttribute(name: "Referer", value: "json-ref"),
                M3UAttribute(name: "Origin", value: "attr-origin"),
            ])
    }

    @Test func toleratesBOMAndEveryLineEnding() throws {
        let bytes: [UInt8] =
            [0xEF, 0xBB, 0xBF]
            + Array(
                "#EXTM3U\r\n#EXTINF:-1,A\r\nhttp://a\r#EXTINF:-1,B\rhttp://b\n\n   #EXTINF:-1,C\n\thttp://c  \n".utf8)
        let playlist = M3UParser.parse(bytes)
        #expect(playlist.entries.map(\.title) == ["A", "B", "C"])
        #expect(playlist.entries.map(\.url) == ["http://a", "http://b", "http://c"])
        #expect(playlist.warnings.isEmpty)
    }

    @Test func skipsCommentsSilentlyAndJunkLinesWithWarnings() throws {
        let playlist = parse(
            """
            #EXTM3U
            # a comment
            #123
            =========================sudan===================================
            #EXTINF:-1,A
            http://a
            Random line without URL
            """)
        #expect(playlist.entries.map(\.title) == ["A"])
        #expect(playlist.warnings.map(\.kind) == [.junkLine, .junkLine])
        #expect(playlist.warnings.map(\.line) == [4, 7])
    }

    @Test func readsPlainM3UWithoutExtInf() throws {
        let playlist = parse(
            """
            http://radio.example/stream.mp3
            /music/local file.mp3
            C:\\Music\\Song.mp3
            relative/dir/song.ogg
            """)
        #expect(
            playlist.entries.map(\.url) == [
                "http://radio.example/stream.mp3", "/music/local file.mp3", "C:\\Music\\Song.mp3",
                "relative/dir/song.ogg",
            ])
        #expect(playlist.entries.allSatisfy { $0.title.isEmpty && $0.duration == -1 })
        #expect(playlist.warnings.map(\.kind) == [.missingHeader])
    }

    @Test func reportsEntriesThatNeverGetAURL() throws {
        let playlist = parse(
            """
            #EXTM3U
            #EXTINF:-1,Lost
            #EXTINF:-1,Kept
            http://kept
            #EXTINF:-1,Dangling at the end
            """)
        #expect(playlist.entries.map(\.title) == ["Kept"])
        #expect(playlist.warnings.map(\.kind) == [.entryWithoutURL, .entryWithoutURL])
        #expect(playlist.warnings.map(\.line) == [2, 5])
        #expect(playlist.warnings.map(\.detail) == ["Lost", "Dangling at the end"])
    }

    @Test func mergesARepeatedHeaderWithAWarning() throws {
        let playlist = parse(
            """
            #EXTM3U x-tvg-url="http://a"
            #EXTINF:-1,A
            http://a
            #EXTM3U x-tvg-url="http://b" tvg-shift="2"
            #EXTINF:-1,B
            http://b
            """)
        #expect(playlist.header.tvgURLs == ["http://a", "http://b"])
        #expect(playlist.header.tvgShift == "2")
        #expect(playlist.warnings.map(\.kind) == [.duplicateHeader])
        #expect(playlist.entries.count == 2)
    }

    @Test func keepsUnknownExtTagsWithTheirEntry() throws {
        let playlist = parse(
            """
            #EXTM3U
            #EXT-X-SESSION-DATA:DATA-ID="blablabla"
            #EXTINF:-1,A
            #EXTALB:Album
            http://a
            """)
        #expect(playlist.entries.first?.otherTags == ["#EXT-X-SESSION-DATA:DATA-ID=\"blablabla\"", "#EXTALB:Album"])
    }

    @Test func skipsOverlongLinesAndCarriesOn() throws {
        var parser = M3UParser(options: .init(maxLineLength: 64))
        var events: [M3UParser.Event] = []
        let long = "#EXTINF:-1," + String(repeating: "x", count: 500)
        let text = "#EXTM3U\n\(long)\nhttp://lost\n#EXTINF:-1,Short\nhttp://short\n"
        for chunkSize in [7] {
            let bytes = Array(text.utf8)
            var start = 0
            while start < bytes.count {
                parser.feed(bytes[start..<min(start + chunkSize, bytes.count)]) { events.append($0) }
                start += chunkSize
            }
        }
        parser.finish { events.append($0) }
        let entries = events.compactMap { if case .entry(let entry) = $0 { entry } else { nil } }
        let warnings = events.compactMap { if case .warning(let warning) = $0 { warning } else { nil } }
        // The long EXTINF is skipped, so its URL line has no EXTINF: it becomes a bare entry.
        #expect(entries.map(\.title) == ["", "Short"])
        #expect(warnings.map(\.kind) == [.lineTooLong])
        #expect(warnings.first?.line == 2)
    }

    @Test func givesTheSameResultForAnyChunking() throws {
        let text =
            """
            \u{FEFF}#EXTM3U x-tvg-url=\"http://g\"\r\n#EXTINF:-1 tvg-id=\"é\" group-title=\"Ünïcödé;二\",Café ☕️, \
            Straße\r\n#EXTVLCOPT:http-user-agent=UA\r\n
            """
            + "http://x/1|Referer=http://r\r\n\r\n#EXTINF:abc,Bad\rhttp://x/2\r#EXTHTTP:{\"A\":\"b\"}\n#EXTINF:5,Last\nhttp://x/3"
        let whole = M3UParser.parse(text)
        #expect(whole.entries.count == 3)
        #expect(whole.entries[0].title == "Café ☕️, Straße")
        for chunkSize in 1...19 {
            let chunked = IPTVTestSupport.parse(text, chunkSize: chunkSize)
            #expect(chunked == whole, "chunk size \(chunkSize)")
        }
    }

    @Test func neverCrashesOnRandomBytes() throws {
        var generator = SplitMix64(seed: 42)
        let alphabet =
            Array("#EXTINF:-1 tvg-id=\"',|&=\r\n{}\\%AZaz09 ".utf8) + [0x00, 0xFF, 0xC3, 0xA9, 0xEF, 0xBB, 0xBF]
        for _ in 0..<200 {
            let length = Int.random(in: 0..<400, using: &generator)
            let bytes = (0..<length).map { _ in alphabet.randomElement(using: &generator)! }
            let whole = M3UParser.parse(bytes)
            let chunked = IPTVTestSupport.parse(bytes, chunkSize: Int.random(in: 1...9, using: &generator))
            #expect(whole == chunked)
        }
    }

    @Test func asyncSequenceYieldsTheSameEvents() async throws {
        let text = "#EXTM3U x-tvg-url=\"http://g\"\n#EXTINF:-1,A\nhttp://a\njunk line here\n#EXTINF:-1,B\nhttp://b\n"
        let bytes = Array(text.utf8)
        let chunks = AsyncStream<[UInt8]> { continuation in
            for start in stride(from: 0, to: bytes.count, by: 5) {
                continuation.yield(Array(bytes[start..<min(start + 5, bytes.count)]))
            }
            continuation.finish()
        }
        var events: [M3UParser.Event] = []
        for try await event in M3UParser.events(in: chunks) {
            events.append(event)
        }
        var expected: [M3UParser.Event] = []
        var parser = M3UParser()
        parser.feed(bytes) { expected.append($0) }
        parser.finish { expected.append($0) }
        #expect(events == expected)
        #expect(events.count == 4)
        #expect(parser.entryCount == 2)
        #expect(parser.warningCount == 1)
        #expect(parser.header?.tvgURLs == ["http://g"])
    }
}
