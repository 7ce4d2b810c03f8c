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

    func json(_ value: some Encodable) throws -> [String: Any] {
        try #require(JSONSerialization.jsonObject(with: try JSONEncoder().encode(value)) as? [String: Any])
    }

    @Test func accountsSendEveryPanelFieldWithExpiryNullOrSeconds() throws {
        let output = XtreamOutput(base: "http://10.0.0.2:8080", username: "u", password: "p", logo: { _ in nil })
        var user = OutputUser(username: "u", profileIDs: ["default"], maxConnections: 2)
        let now = Date(timeIntervalSince1970: 1_800_000_000)
        let never = try json(output.account(user, activeConnections: 1, now: now))
        let info = try #require(never["user_info"] as? [String: Any])
        // The key is there with JSON null: clients read it unconditionally.
        #expect(info.keys.contains("exp_date") && info["exp_date"] is NSNull, "\(info)")
        #expect(info["status"] as? String == "Active" && info["is_trial"] as? String == "0")
        #expect(info["active_cons"] as? String == "1" && info["max_connections"] as? String == "2")
        #expect(info["allowed_output_formats"] as? [String] == ["m3u8", "ts"], "what /live/ serves")
        #expect(info["password"] as? String == "p" && info["message"] as? String == "")
        #expect((info["created_at"] as? String).flatMap { Int64($0) } != nil)
        let server = try #require(never["server_info"] as? [String: Any])
        #expect(server["url"] as? String == "10.0.0.2" && server["port"] as? String == "8080")
        #expect(server["server_protocol"] as? String == "http" && server["timestamp_now"] as? Int == 1_800_000_000)
        #expect(server["time_now"] as? String == "2027-01-15 08:00:00" && server["timezone"] as? String == "UTC")
        for key in ["https_port", "rtmp_port"] { #expect(server[key] is String, "\(key)") }

        user.expiresAt = 1_900_000_000
        let later = try #require(
            try json(output.account(user, activeConnections: 0, now: now))["user_info"] as? [String: Any])
        #expect(later["exp_date"] as? String == "1900000000" && later["status"] as? String == "Active")
        user.expiresAt = 1_700_000_000
        let past = try #require(
            try json(output.account(user, activeConnections: 0, now: now))["user_info"] as? [String: Any])
        #expect(past["exp_date"] as? String == "1700000000" && past["status"] as? String == "Expired")
        user.isDisabled = true
        let disabled = try #require(
            try json(output.account(user, activeConnections: 0, now: now))["user_info"] as? [String: Any])
        #expect(disabled["status"] as? String == "Disabled", "a disabled login says so before its expiry")
    }

    @Test func seriesInfoListsSeasonsMatchingTheEpisodesKeyedBySeason() throws {
        let output = XtreamOutput(base: "http://h", username: "u", password: "p", logo: { _ in "http://h/c.png" })
        var series = channel(5, "Show", group: "Drama", id: 40)
        series.item.kind = .series
        let episodes = [
            CatalogEpisode(id: 3, seriesID: 40, season: 2, episode: 1, title: "B1", url: "http://x/3.mkv"),
            CatalogEpisode(id: 1, seriesID: 40, season: 1, episode: 1, title: "A1", url: "http://x/1.mp4"),
            CatalogEpisode(id: 2, seriesID: 40, season: nil, episode: nil, title: "A2", url: "http://x/2"),
            CatalogEpisode(
                id: 4, seriesID: 40, season: 2, episode: 2, title: "B2", url: "http://x/4.mkv", duration: .nan),
        ]
        let answer = try json(output.seriesInfo(series, episodes: episodes))
        let seasons = try #require(answer["seasons"] as? [[String: Any]])
        #expect(seasons.map { $0["season_number"] as? Int } == [1, 2])
        #expect(seasons.map { $0["episode_count"] as? Int } == [2, 2])
        #expect(seasons.map { $0["name"] as? String } == ["Season 1", "Season 2"])
        #expect(seasons.allSatisfy { $0["cover"] as? String == "http://h/c.png" && $0["air_date"] is String })
        let byKey = try #require(answer["episodes"] as? [String: [[String: Any]]])
        #expect(Set(byKey.keys) == ["1", "2"])
        for season in seasons {
            let key = String(try #require(season["season_number"] as? Int))
            #expect(byKey[key]?.count == season["episode_count"] as? Int)
        }
        #expect(byKey["1"]?.map { $0["title"] as? String } == ["A1", "A2"])
        #expect(byKey["1"]?.map { $0["episode_num"] as? Int } == [1, 2], "a missing number: its place in the season")
        #expect(byKey["2"]?.map { $0["container_extension"] as? String } == ["mkv", "mkv"])
        let info = try #require(answer["info"] as? [String: Any])
        #expect(info["name"] as? String == "Show" && info["backdrop_path"] is [Any] && info["plot"] is String)
    }

    @Test func aLoginsProfilesMergeIntoOneNumbering() {
        func item(_ id: Int64, _ kind: CatalogItemKind) -> CatalogItem {
            CatalogItem(
                id: id, sourceID: 1, kind: kind, identity: "i\(id)", name: "n\(id)", group: nil, url: "http://h/x")
        }
        let live = [1, 2, 3].map { OutputChannel(number: $0, name: "L\($0)", item: item(Int64($0), .live)) }
        // The films profile numbers from 1 too, and also holds live channel 2.
        let films =
            [
                OutputChannel(number: 1, name: "F", item: item(10, .movie)),
                OutputChannel(number: 2, name: "L2", item: item(2, .live)),
            ]
            + [OutputChannel(number: 7, name: "G", item: item(11, .movie))]
        let merged = OutputNumbering.merged([live, films])
        #expect(merged.map(\.item.id) == [1, 2, 3, 10, 11], "a channel in two profiles is listed once")
        #expect(merged.map(\.number) == [1, 2, 3, 1_000_001, 7])
        #expect(Set(merged.map(\.guideID)).count == merged.count)
        // The moved number depends only on the film's own number: it stays when the live profile grows.
        let grown = OutputNumbering.merged([live + [OutputChannel(number: 4, name: "L4", item: item(4, .live))], films])
        #expect(grown.first { $0.item.id == 10 }?.number == 1_000_001)
        let output = XtreamOutput(base: "http://h", username: "u", password: "p", logo: { _ in nil })
        let epg = output.liveStreams(merged, category: nil).map(\.epg_channel_id)
        #expect(Set(epg).count == epg.count)
    }

    @Test func playlistsListFilmsAndEpisodesAsPanelsDo() {
        let output = XtreamOutput(base: "http://h:1", username: "u", password: "p", logo: { _ in nil })
        var film = channel(2, "Film", group: "Films", id: 20, url: "http://x/f.mkv")
        film.item.kind = .movie
        var series = channel(3, "Show", group: "Drama", id: 30)
        series.item.kind = .series
        let episode = CatalogEpisode(id: 300, seriesID: 30, season: 1, episode: 2, title: "E", url: "http://x/e.mp4")
        let text = output.playlist(
            [channel(1, "News", group: "News", id: 10), film, series], episodes: [30: [episode]],
            guideURL: "http://h:1/g")
        #expect(text.contains("\nhttp://h:1/live/u/p/10.ts\n") && text.contains("\nhttp://h:1/movie/u/p/20.mkv\n"))
        #expect(text.contains(#"tvg-name="Show S01 E02" group-title="Drama",Show S01 E02"#), "\(text)")
        #expect(text.contains("\nhttp://h:1/series/u/p/300.mp4\n"))
        #expect(!text.contains("/30."), "a series itself is no stream")
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
