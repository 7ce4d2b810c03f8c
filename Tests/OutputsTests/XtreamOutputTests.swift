import Catalog
import Foundation
import Testing

@testable import Outputs

/// The Xtream answers' pure parts, and the logins' password hashes.
@Suite struct XtreamOutputTests {
    func channel(_ number: Int, _ name: String, group: String?, id: Int64, url: String = "http://h/x.ts")
        -> OutputChannel
    {
        OutputChannel(
            number: number, name: name,
            item: CatalogItem(id: id, sourceID: 1, kind: .live, identity: name, name: name, group: group, url: url))
    }

    @Test func categoriesAreStableAndStreamsFilterByThem() {
        let output = XtreamOutput(base: "http://10.0.0.2:8080/", username: "u", password: "p", logo: { _ in nil })
        let channels = [
            channel(1, "A", group: "News", id: 10), channel(2, "B", group: "Sport", id: 11),
            channel(3, "C", group: "News", id: 12), channel(4, "D", group: nil, id: 13),
        ]
        let categories = output.categories(channels)
        #expect(categories.map(\.category_name) == ["News", "Sport"])
        #expect(XtreamOutput.categoryID("News") == XtreamOutput.categoryID("News"))
        #expect(XtreamOutput.categoryID("News") != XtreamOutput.categoryID("Sport"))
        #expect(Int(XtreamOutput.categoryID("")).map { $0 >= 1 } == true)
        let news = output.liveStreams(channels, category: XtreamOutput.categoryID("News"))
        #expect(news.map(\.stream_id) == [10, 12] && news.map(\.epg_channel_id) == ["1.tuner", "3.tuner"])
        #expect(output.streamURL(channels[0]) == "http://10.0.0.2:8080/live/u/p/10.ts")
    }

    @Test func shortGuidesAreBase64AsPanelsSendThem() {
        let output = XtreamOutput(base: "http://h", username: "u", password: "p", logo: { _ in nil })
        let programmes = [
            GuideProgramme(id: 1, epgID: "x", start: 0, stop: 3600, title: "Past"),
            GuideProgramme(id: 2, epgID: "x", start: 3600, stop: 7200, title: "Now & then", description: "é"),
            GuideProgramme(id: 3, epgID: "x", start: 7200, stop: 10800, title: "Next"),
        ]
        let short = output.listings(
            programmes, of: channel(1, "A", group: nil, id: 1), now: 4000, limit: 1, table: false)
        #expect(short.epg_listings.map(\.title) == [Data("Now & then".utf8).base64EncodedString()])
        #expect(short.epg_listings.first?.start == "1970-01-01 01:00:00")
        let table = output.listings(
            programmes, of: channel(1, "A", group: nil, id: 1), now: 4000, limit: nil, table: true)
        #expect(table.epg_listings.map(\.now_playing) == [0, 1, 0])
    }

    @Test func containersComeFromTheURLAndDefaultToMP4() {
        #expect(XtreamOutput.container(of: "http://h/movie/u/p/5.mkv") == "mkv")
        #expect(XtreamOutput.container(of: "http://h/movie/u/p/5") == "mp4")
        #expect(XtreamOutput.container(of: "http://h/a.b/c.<script>") == "mp4")
        #expect(XtreamOutput.container(of: nil) == "mp4")
    }

    @Test func passwordHashesMatchOnlyTheirPasswordAndSaltDiffers() throws {
        let first = try PasswordHash.make("correct-horse")
        #expect(first.matches("correct-horse"))
        #expect(!first.matches("correct-horsf") && !first.matches(""))
        let second = try PasswordHash.make("correct-horse")
        #expect(first.salt != second.salt && first.hash != second.hash)
        #expect(first.rounds >= 600_000)
    }

    @Test func usernamesAreShortAndPathSafe() {
        #expect(OutputUser.isValidName("viewer.1_A-b"))
        for bad in ["", "a/b", "a b", "a?b", String(repeating: "a", count: 65), "é", "..%2F"] {
            #expect(!OutputUser.isValidName(bad), "\(bad)")
        }
    }
}

/// XMLTV and panel times by integer arithmetic (the proleptic Gregorian calendar, as ISO 8601 and
/// Python have it), checked against Foundation's calendar from 1583 on: before October 1582
/// Foundation's Gregorian calendar counts Julian dates.
@Suite struct OutputTimeTests {
    @Test func timesMatchFoundationAcrossTheSupportedYears() {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        var generator = SystemRandomNumberGenerator()
        let samples: [Int64] =
            [0, -1, 86_399, 86_400, 951_782_400, 4_102_444_800, -12_212_553_600, 253_402_300_799]
            + (0..<2000).map { _ in Int64.random(in: -12_212_553_600...253_402_300_799, using: &generator) }
        for seconds in samples {
            let parts = calendar.dateComponents(
                [.year, .month, .day, .hour, .minute, .second], from: Date(timeIntervalSince1970: TimeInterval(seconds))
            )
            let expected = String(
                format: "%04d%02d%02d%02d%02d%02d +0000", parts.year!, parts.month!, parts.day!, parts.hour!,
                parts.minute!, parts.second!)
            #expect(XMLTVOutput.time(seconds) == expected, "\(seconds)")
        }
        #expect(XtreamOutput.dateTime(951_782_400) == "2000-02-29 00:00:00")
        #expect(XMLTVOutput.time(-62_135_596_800) == "00010101000000 +0000", "year 1, proleptic")
    }
}
