import Foundation
import MediaFormats
import Testing

@Suite("M3U writer")
struct M3UWriterTests {
    private func roundTrip(_ playlist: M3UPlaylist) -> M3UPlaylist {
        M3UParser.parse(M3UWriter().string(for: playlist))
    }

    @Test func writesEveryFieldSoTheParserReadsItBack() throws {
        let entry = M3UEntry(
            url: "http://x/stream.m3u8",
            title: "Café, \"Quoted\" & more",
            duration: 2.5,
            tvgID: "id.uk", tvgName: "It's \"both\"", tvgLogo: "http://l/a,b.png", tvgURL: "http://g",
            groupTitle: "News;Sport", channelNumber: "7", tvgCountry: "UK", tvgLanguage: "English",
            tvgRec: "3", tvgShift: "-1.5", radio: "false", catchup: "default", catchupDays: "7",
            catchupSource: "?utc={utc}&lutc={lutc}", timeshift: "1", userAgent: "UA \"x\"", httpReferrer: "http://ref/",
            extraAttributes: [
                M3UAttribute(name: "channelID", value: "9"), M3UAttribute(name: "tvg-id", value: "second"),
            ],
            extGroup: "Group",
            vlcOptions: [
                M3UAttribute(name: "http-user-agent", value: "\"quoted\""),
                M3UAttribute(name: "http-referrer", value: " spaced "),
                M3UAttribute(name: "no-video", value: ""),
            ],
            kodiProperties: [
                M3UAttribute(name: "inputstream.adaptive.license_key", value: "https://l|Content-Type=x|R{SSM}|")
            ],
            extHTTPHeaders: [
                M3UAttribute(name: "Cookie", value: "a=\"b\"\\c\u{1}"), M3UAttribute(name: "X", value: "ü"),
            ],
            urlHeaders: [
                M3UAttribute(name: "User-Agent", value: "Mozilla/5.0 (a&b|c) 100%"),
                M3UAttribute(name: "Referer", value: "\"q\""),
            ],
            otherTags: ["#EXT-X-SESSION-DATA:DATA-ID=\"x\""]
        )
        let header = M3UPlaylistHeader(
            tvgURLs: ["http://a/1.xml", "http://a/2.xml"], tvgShift: "1", catchup: "shift", catchupDays: "3",
            catchupSource: "http://c", extraAttributes: [M3UAttribute(name: "refresh", value: "3600")]
        )
        let playlist = M3UPlaylist(header: header, entries: [entry, M3UEntry(url: "http://bare")])
        let parsed = roundTrip(playlist)
        #expect(parsed.warnings.isEmpty)
        #expect(parsed.header == header)
        #expect(parsed.entries == playlist.entries)
    }

    @Test func writesTheExpectedText() {
        let playlist = M3UPlaylist(
            header: M3UPlaylistHeader(tvgURLs: ["http://g"]),
            entries: [
                M3UEntry(
                    url: "http://x|", title: "A", tvgID: "a", groupTitle: "G",
                    urlHeaders: [M3UAttribute(name: "Referer", value: "http://r/?a=1&b=2")])
            ]
        )
        #expect(
            M3UWriter().string(for: playlist) == """
                #EXTM3U x-tvg-url="http://g"
                #EXTINF:-1 tvg-id="a" group-title="G",A
                http://x||Referer=http://r/?a=1%26b=2

                """)
    }

    @Test(arguments: [(-1.0, "-1"), (0, "0"), (3600, "3600"), (2.5, "2.5"), (.infinity, "-1")])
    func writesDurations(duration: Double, text: String) {
        let lines = M3UWriter().lines(for: M3UEntry(url: "u", duration: duration))
        #expect(lines.hasPrefix("#EXTINF:\(text),"))
    }

    @Test func replacesLineBreaksInsideValues() {
        let entry = M3UEntry(url: "http://x\n", title: "Two\nlines", tvgName: "a\r\nb")
        let parsed = M3UParser.parse(M3UWriter().lines(for: entry))
        #expect(parsed.entries.count == 1)
        #expect(parsed.entries.first?.title == "Two lines")
        #expect(parsed.entries.first?.tvgName == "a b")
    }

    @Test func streamsEntryByEntry() {
        let writer = M3UWriter()
        var text = writer.headerLine(M3UPlaylistHeader())
        for index in 0..<3 {
            text += writer.lines(for: M3UEntry(url: "http://x/\(index)", title: "E\(index)"))
        }
        #expect(M3UParser.parse(text).entries.map(\.title) == ["E0", "E1", "E2"])
    }
}
